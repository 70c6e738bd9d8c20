/**
 * MCP 2026-07-28 over Streamable HTTP: sessionless requests, each its own POST, checked against the
 * request metadata headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), answered by a server
 * shared by every POST of one client (the transport's notion of a client: its remote address), with
 * request ids scoped to the POST. Pure helpers and the table of those servers; the router (`http.ts`)
 * drives them.
 *
 * @module
 */

import { ErrorCode } from "./jsonrpc.ts";
import { MetaKey, ModernErrorCode, readEra } from "./modern.ts";
import type { McpServer } from "./server.ts";
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from "./versions.ts";

/** A request the router refuses before the server sees it: HTTP status, JSON-RPC code and message. */
export interface ModernRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data?: Record<string, unknown>;
}

/**
 * Whether a POST's headers make it a modern request (decided before its body is read): its
 * `MCP-Protocol-Version` names a modern revision, or, on a request without a session, a revision this
 * server does not know (only a modern client sends an unknown one without a session: it is then told
 * the supported versions). Legacy requests send a legacy version or, before 2025-06-18, none.
 */
export function isModernPost(version: string | null, hasSession: boolean): boolean {
  if (version === null) return false;
  if (MODERN_PROTOCOL_VERSIONS.includes(version)) return true;
  return !hasSession && !SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/** Methods whose `Mcp-Name` header mirrors a body field, and that field. */
const NAME_FIELD: Readonly<Record<string, "name" | "uri">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/**
 * Check a modern request against its headers, in the spec's order of concerns: the mirrored headers
 * must be present and equal to the body (-32020 HeaderMismatch), the body's `_meta` must be complete
 * (-32602) and name a version this server speaks (-32022). All are `400 Bad Request`. Null when the
 * request may be served. `initialize`, removed in 2026-07-28, is an unknown method there (404).
 */
export function checkModernRequest(
  headers: Headers,
  message: Record<string, unknown>,
): ModernRefusal | null {
  const method = message.method;
  const methodHeader = headers.get("mcp-method");
  if (methodHeader === null) return mismatch("the Mcp-Method header is required");
  if (typeof method === "string" && methodHeader !== method) {
    return mismatch(
      `Mcp-Method header value '${clip(methodHeader)}' does not match body value '${clip(method)}'`,
    );
  }
  const version = headers.get("mcp-protocol-version") ?? "";
  const params = message.params;
  const meta = isRecord(params) && isRecord(params._meta) ? params._meta : null;
  if (meta === null || !Object.hasOwn(meta, MetaKey.protocolVersion)) {
    return badParams(`missing required '_meta' member '${MetaKey.protocolVersion}'`);
  }
  const bodyVersion = meta[MetaKey.protocolVersion];
  if (typeof bodyVersion === "string" && bodyVersion !== version) {
    return mismatch(
      `MCP-Protocol-Version header value '${clip(version)}' does not match body value '${clip(bodyVersion)}'`,
    );
  }
  const verdict = readEra(params);
  if (verdict.era === "refused") {
    return { status: 400, code: verdict.code, message: verdict.message, data: verdict.data };
  }
  if (verdict.era === "legacy") {
    // A legacy version in a modern request's _meta (its header says the same): legacy is reached
    // through initialize and a session only.
    return {
      status: 400,
      code: ModernErrorCode.unsupportedProtocolVersion,
      message: "Unsupported protocol version",
      data: { supported: [...MODERN_PROTOCOL_VERSIONS], requested: clip(version) },
    };
  }
  const field = typeof method === "string" ? NAME_FIELD[method] : undefined;
  if (field !== undefined && isRecord(params) && Object.hasOwn(params, field)) {
    const nameHeader = headers.get("mcp-name");
    if (nameHeader === null) return mismatch(`the Mcp-Name header is required for ${method}`);
    const decoded = decodeHeaderValue(nameHeader);
    if (decoded === null) return mismatch("the Mcp-Name header value is malformed");
    if (decoded !== params[field]) {
      return mismatch(
        `Mcp-Name header value '${clip(decoded)}' does not match body value '${clip(String(params[field]))}'`,
      );
    }
  }
  if (method === "initialize") {
    return { status: 404, code: ErrorCode.methodNotFound, message: "Method not found" };
  }
  return null;
}

/**
 * A mirrored header's value as the body has it: the Base64 sentinel form (`=?base64?...?=`, the UTF-8
 * bytes in standard Base64) decoded, a plain value as it is (visible ASCII, spaces and tabs only); null
 * when malformed.
 *
 * @example
 * ```ts
 * import { decodeHeaderValue } from "./http_modern.ts";
 * import assert from "node:assert/strict";
 * assert.equal(decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?="), "Hello, 世界");
 * assert.equal(decodeHeaderValue("bxp_eval"), "bxp_eval");
 * ```
 */
export function decodeHeaderValue(value: string): string | null {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (sentinel !== null) {
    try {
      const bytes = Uint8Array.from(atob(sentinel[1]), (c) => c.charCodeAt(0));
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return null;
    }
  }
  if (value.startsWith("=?base64?")) return null;
  return /^[\x20-\x7E\t]*$/.test(value) ? value : null;
}

/**
 * The HTTP status of a modern answer, from its first message: `404` for an unknown method (-32601),
 * `400` for the errors 2026-07-28 sends with it (a missing client capability, header mismatch,
 * unsupported version, and a message that could not be read), otherwise `200`.
 */
export function modernStatus(json: string): number {
  const match = /^\{"jsonrpc":"2\.0","id":(null|"(?:[^"\\]|\\.)*"|[-+.\deE]+),"error":\{"code":(-?\d+)/
    .exec(json);
  if (match === null) return 200;
  if (match[1] === "null") return 400;
  const code = Number(match[2]);
  if (code === ErrorCode.methodNotFound) return 404;
  if (
    code === ModernErrorCode.missingRequiredClientCapability || code === ModernErrorCode.headerMismatch ||
    code === ModernErrorCode.unsupportedProtocolVersion || code === ErrorCode.invalidRequest
  ) return 400;
  return 200;
}

/** The server of one client's modern requests, and what keeps it alive. */
export interface ModernClient {
  readonly key: string;
  readonly server: McpServer;
  /** POSTs of this client being answered now (an open `subscriptions/listen` counts until it ends). */
  running: number;
  lastActive: number;
  closing: Promise<void> | null;
}

/**
 * The modern clients' servers: one per client (its `simulate` runs, hence its `bxp-sim://`-style
 * resources, are its own), created on a client's first modern request, ended when idle, capped.
 */
export class ModernClients {
  readonly #clients = new Map<string, ModernClient>();
  readonly #create: () => McpServer;
  readonly #max: number;
  readonly #now: () => number;

  constructor(create: () => McpServer, max: number, now: () => number) {
    this.#create = create;
    this.#max = max;
    this.#now = now;
  }

  get size(): number {
    return this.#clients.size;
  }

  values(): ModernClient[] {
    return [...this.#clients.values()];
  }

  /**
   * The server of `key`, created when it has none; at the cap the client idle longest (nothing
   * running) is ended to make room (through `end`), else null.
   */
  get(key: string, end: (client: ModernClient, reason: string) => void): ModernClient | null {
    const found = this.#clients.get(key);
    if (found !== undefined && found.closing === null) {
      found.lastActive = this.#now();
      return found;
    }
    if (this.#clients.size >= this.#max) {
      let victim: ModernClient | null = null;
      for (const client of this.#clients.values()) {
        if (client.running > 0) continue;
        if (victim === null || client.lastActive < victim.lastActive) victim = client;
      }
      if (victim === null) return null;
      this.delete(victim);
      end(victim, "the client cap was reached and it was idle longest");
    }
    const client: ModernClient = {
      key,
      server: this.#create(),
      running: 0,
      lastActive: this.#now(),
      closing: null,
    };
    // Modern requests never reach the client through the server's own requests (2026-07-28 embeds
    // them in results), so there is no output for them.
    client.server.connect(null);
    this.#clients.set(key, client);
    return client;
  }

  delete(client: ModernClient): void {
    if (this.#clients.get(client.key) === client) this.#clients.delete(client.key);
  }
}

function mismatch(message: string): ModernRefusal {
  return { status: 400, code: ModernErrorCode.headerMismatch, message: `Header mismatch: ${message}` };
}

function badParams(detail: string): ModernRefusal {
  return { status: 400, code: ErrorCode.invalidParams, message: `Invalid params: ${detail}` };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length <= 128 ? text : `${text.slice(0, 128)}...`;
}
