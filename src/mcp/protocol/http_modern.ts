/**
 * MCP 2026-07-28 over Streamable HTTP: sessionless requests, each its own POST, checked against the
 * request metadata headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), answered by a server
 * shared by every POST of one client (the transport's notion of a client: its remote address), with
 * request ids scoped to the POST. The header checks, the status of an answer, the servers (one
 * {@link ModernClient} each) and their table; the router (`http.ts`) reads the body and drives them.
 *
 * @module
 */

import { ErrorCode } from "./jsonrpc.ts";
import { MetaKey, ModernErrorCode, readEra } from "./modern.ts";
import type { McpServer } from "./server.ts";
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from "./versions.ts";
import { EventStream, PostReply } from "./http_stream.ts";
import { track } from "./settle.ts";

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

/**
 * One client's modern server, the POSTs it is answering, and what keeps it alive (idle expiry and
 * eviction at the cap read `running` and `lastActive`).
 */
export class ModernClient {
  readonly key: string;
  readonly server: McpServer;
  /** POSTs of this client being answered now (an open `subscriptions/listen` counts until it ends). */
  running = 0;
  lastActive: number;
  closing: Promise<void> | null = null;
  readonly #now: () => number;
  readonly #streamQueueBytes: number;

  constructor(key: string, server: McpServer, now: () => number, streamQueueBytes: number) {
    this.key = key;
    this.server = server;
    this.#now = now;
    this.#streamQueueBytes = streamQueueBytes;
    this.lastActive = now();
    // Modern requests never reach the client through the server's own requests (2026-07-28 embeds
    // them in results), so there is no output for them.
    server.connect(null);
  }

  /** Whether nothing runs and no request arrived since `limit` (the client has expired). */
  idleSince(limit: number): boolean {
    return this.running === 0 && this.lastActive < limit;
  }

  /**
   * Run one modern request (`text`, the POST's body) in its own `scope`. Its first message decides the
   * answer, as for a legacy one, and its status too (see {@link modernStatus}); the stream carries only
   * this request's notifications and stays open while it holds a `subscriptions/listen`. The client
   * closing it, or dropping the POST, cancels the request. `work` gets the handling promise.
   */
  answer(
    request: Request,
    text: string,
    headers: Headers,
    takesSse: boolean,
    scope: string,
    work: Set<Promise<unknown>>,
  ): Promise<Response> {
    this.running++;
    let ended = false;
    let reply: PostReply | null = null;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      this.server.cancelScope(scope, why);
      this.running--;
      this.lastActive = this.#now();
      request.signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      reply?.stream?.close();
      end("the client closed the request");
    };
    request.signal.addEventListener("abort", onAbort, { once: true });
    return new Promise<Response>((resolve) => {
      const posted = new PostReply({
        headers,
        takesSse,
        resolve,
        status: modernStatus,
        openStream: () => {
          headers.set("x-accel-buffering", "no");
          return new EventStream(headers, () => end("the response stream closed"), this.#streamQueueBytes);
        },
        // After a JSON answer nothing more belongs to this request.
        dropped: () => {},
      });
      reply = posted;
      const handled = this.server.handleLine(text, (json) => posted.send(json), scope).finally(() => {
        // A subscription stays open until the client closes it or the server ends it (its last answer).
        const open = posted.stream;
        if (open !== null && !open.closed && this.server.hasSubscription(scope)) return;
        open?.close();
        end("answered");
        if (!posted.answered) resolve(new Response(null, { status: 202, headers }));
      });
      track(work, handled);
    });
  }

  /** End the server (calls cancelled, close hooks run). Idempotent. */
  close(reason: string): Promise<void> {
    this.closing ??= this.server.close(reason);
    return this.closing;
  }
}

/** What a {@link ModernClients} table is made of. */
export interface ModernClientsInit {
  /** A fresh server for each new client. */
  createServer: () => McpServer;
  /** Clients served at once (the idle longest makes room). */
  maxClients: number;
  /** Modern requests of one client answered at once (then 429). */
  maxRunningPerClient: number;
  /** Bytes an event stream may hold unread before it is dropped. */
  streamQueueBytes: number;
  /** The clock. */
  now: () => number;
}

/**
 * The modern clients' servers and their whole life: one per client (its `simulate` runs, hence its
 * `bxp-sim://`-style resources, are its own), created on a client's first modern request, ended when
 * idle or at shutdown, capped; and the scope and handling promise of every modern POST they answer.
 */
export class ModernClients {
  readonly #clients = new Map<string, ModernClient>();
  readonly #init: ModernClientsInit;
  /** Modern requests' handling promises, for shutdown. */
  readonly #work = new Set<Promise<unknown>>();
  /** A fresh scope per modern POST: request ids are unique only within one. */
  #nextScope = 0;

  constructor(init: ModernClientsInit) {
    this.#init = init;
  }

  get size(): number {
    return this.#clients.size;
  }

  /** Modern requests of one client answered at once. */
  get maxRunningPerClient(): number {
    return this.#init.maxRunningPerClient;
  }

  /** Clients served at once. */
  get maxClients(): number {
    return this.#init.maxClients;
  }

  /**
   * The server of `key`, created when it has none; at the cap the client idle longest (nothing
   * running) is ended to make room, else null.
   */
  get(key: string): ModernClient | null {
    const { createServer, maxClients, now, streamQueueBytes } = this.#init;
    const found = this.#clients.get(key);
    if (found !== undefined && found.closing === null) {
      found.lastActive = now();
      return found;
    }
    if (this.#clients.size >= maxClients) {
      let victim: ModernClient | null = null;
      for (const client of this.#clients.values()) {
        if (client.running > 0) continue;
        if (victim === null || client.lastActive < victim.lastActive) victim = client;
      }
      if (victim === null) return null;
      this.#delete(victim);
      void this.end(victim, "the client cap was reached and it was idle longest");
    }
    const client = new ModernClient(key, createServer(), now, streamQueueBytes);
    this.#clients.set(key, client);
    return client;
  }

  /** Answer one modern POST's `text` by `client`'s server in a fresh scope (see {@link ModernClient.answer}). */
  answer(
    client: ModernClient,
    request: Request,
    text: string,
    headers: Headers,
    takesSse: boolean,
  ): Promise<Response> {
    return client.answer(request, text, headers, takesSse, `p${this.#nextScope++}`, this.#work);
  }

  /** End `client`'s server and drop it. */
  async end(client: ModernClient, reason: string): Promise<void> {
    this.#delete(client);
    await client.close(reason);
  }

  /** End every client idle since `limit`. */
  expire(limit: number): void {
    for (const client of [...this.#clients.values()]) {
      if (client.idleSince(limit)) void this.end(client, "idle");
    }
  }

  /** Every modern request's handling promise, for shutdown to wait on. */
  work(): Promise<unknown>[] {
    return [...this.#work];
  }

  /** End every client. */
  endAll(reason: string): Promise<void>[] {
    return [...this.#clients.values()].map((c) => this.end(c, reason));
  }

  #delete(client: ModernClient): void {
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
