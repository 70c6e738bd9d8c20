/**
 * The official v2 TypeScript client (`@modelcontextprotocol/client`) connected to a real bxp-mcp in a
 * chosen version-negotiation mode, for the stdio and the HTTP v2 client tests alike.
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import { BXP_TOOLS } from "../../../src/mcp/tools/catalog.ts";

/** The modern protocol revision the v2 client negotiates. */
export const MODERN = "2026-07-28";

/** The tools a server without --allow-write lists, in catalog order. */
export const TOOL_ORDER = BXP_TOOLS.filter((t) => !t.requiresWrite).map((t) => t.name);

/** A tool result as the tests read it. */
export interface TextResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** How the client picks the protocol revision. */
export type NegotiationMode = "auto" | "legacy" | { pin: string };

/**
 * Connect a v2 client named `name` over `transport` in `mode`, recording every error the client
 * reports in `errors`.
 */
export async function connectV2Client(transport: Transport, name: string, mode: NegotiationMode) {
  const errors: unknown[] = [];
  const client = new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode } });
  client.onerror = (error: unknown) => errors.push(error);
  // A generous timeout: on a busy two-core machine the first answer waits for the process to start
  // (or, over HTTP, for the session thread).
  await client.connect(transport, { timeout: 60_000 });
  return { client, errors };
}
