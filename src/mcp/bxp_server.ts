/**
 * The bxp MCP server: the protocol core with bxp's identity, instructions and the catalog tools
 * (`bxp_write_config` only with `--allow-write`).
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { McpServer } from "./protocol/mod.ts";
import { SERVER_INSTRUCTIONS, SERVER_NAME, SERVER_TITLE } from "./help.ts";
import type { ProjectRoot } from "./security/paths.ts";
import { type SimulateHost, Simulator } from "./simulate/mod.ts";
import { registerBxpTools, WRITE_TOOL_NAME, WRITES_DISABLED } from "./tools/catalog.ts";

/** Inputs of {@link createBxpServer}. */
export interface BxpServerOptions {
  /** Diagnostics sink (stderr). */
  log: (message: string) => void;
  /** Where `bxp_simulate` stages and spawns. */
  simulateHost: SimulateHost;
  /** The fixed project root for `path` / `csv_path` arguments; null (default) accepts inline text only. */
  root?: ProjectRoot | null;
  /** Enable `bxp_write_config` (default false). */
  allowWrite?: boolean;
}

/**
 * A ready server: identity `bxp-mcp` with title, version and instructions, and the catalog tools.
 *
 * @example
 * ```ts
 * const server = createBxpServer({ log: console.error, simulateHost: denoSimulateHost(console.error) });
 * server.toolNames[0]; // "bxp_validate"
 * ```
 */
export function createBxpServer(options: BxpServerOptions): McpServer {
  const allowWrite = options.allowWrite ?? false;
  const root = options.root ?? null;
  const server = new McpServer({
    name: SERVER_NAME,
    title: SERVER_TITLE,
    version: VERSION,
    instructions: SERVER_INSTRUCTIONS,
    log: options.log,
    // Without --allow-write the writing tool is not listed, and a call says how to enable it.
    unavailableTools: allowWrite ? undefined : new Map([[WRITE_TOOL_NAME, WRITES_DISABLED]]),
  });
  registerBxpTools(server, {
    simulator: new Simulator(options.simulateHost),
    root: () => Promise.resolve(root),
    allowWrite,
  });
  return server;
}
