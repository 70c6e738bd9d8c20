/**
 * The MCP Streamable HTTP transport (revision 2025-11-25, also serving 2025-06-18 and 2025-03-26
 * clients): one endpoint (`/mcp`) taking JSON-RPC messages by POST, an optional server-to-client event
 * stream by GET, DELETE to end a session, and `GET /healthz` for load balancers. Each session
 * (`Mcp-Session-Id`, issued at `initialize`) gets its own {@link McpServer} from a factory, so sessions
 * share nothing but the process. The transport is a `fetch`-style handler free of `Deno.*`: the adapter
 * hands it to `Deno.serve`.
 *
 * Security (the spec's MUSTs and more): the `Host` header of a loopback server must name loopback (DNS
 * rebinding); a present `Origin` must be the server's own origin or the one `corsOrigin`; with a
 * `token`, every `/mcp` request needs `Authorization: Bearer <token>` (compared in constant time, 401 with
 * `WWW-Authenticate` otherwise); bodies are capped (413); sessions per server and requests running per
 * session are capped (429 with `Retry-After`); idle sessions expire; no CORS headers unless `corsOrigin`.
 *
 * @module
 */

import { ErrorCode, errorResponse } from "./jsonrpc.ts";
import { parseJsonMessage } from "./json_input.ts";
import { MAX_LINE_BYTES } from "./line_splitter.ts";
import { settleWithin } from "./settle.ts";
import type { McpServer } from "./server.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "./versions.ts";

/** The endpoint path. */
export const MCP_PATH = "/mcp";

/** The health check path (no authentication; it says only whether the server takes sessions). */
export const HEALTH_PATH = "/healthz";

/** Default cap on sessions alive at once. */
export const DEFAULT_MAX_SESSIONS = 256;

/** Default cap on requests of one session being handled at once. */
export const DEFAULT_MAX_REQUESTS_PER_SESSION = 16;

/** Default idle time after which a session is ended (no request and nothing running). */
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

/**
 * At the session cap, a session idle this long with nothing running and no open stream (a client that
 * left without DELETE, as most do) makes room for a new one; a flood of fresh sessions gets 429 instead.
 */
export const EVICTABLE_AFTER_MS = 60_000;

/** Default time in-flight calls get to finish at shutdown before they are cancelled. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

/** Server-to-client messages kept for a session while no stream is open to carry them. */
const MAX_PENDING_OUT = 256;

/** A comment line sent on open event streams this often, so proxies and dead peers are noticed. */
const KEEPALIVE_MS = 25_000;

/** Header names (lower case, as `Headers` returns them). */
const SESSION_HEADER = "mcp-session-id";
const VERSION_HEADER = "mcp-protocol-version";

/** Inputs of {@link createHttpHandler}. */
export interface HttpOptions {
  /** A fresh server for each new session (its own tools, resources and in-flight calls). */
  createSession: () => McpServer;
  /** Diagnostics sink. */
  log?: (message: string) => void;
  /**
   * Whether the server listens on loopback only: then the `Host` header must name loopback
   * (`localhost`, `127.0.0.1`, `[::1]`, with any port), the DNS-rebinding defence.
   */
  loopback: boolean;
  /** Bearer token every `/mcp` request must carry; null for none (only sensible on loopback). */
  token: string | null;
  /** The one foreign origin allowed to call (CORS answered for it); null for none. */
  corsOrigin?: string | null;
  /** Largest request body in bytes (default {@link MAX_LINE_BYTES}, the stdio line cap). */
  maxBodyBytes?: number;
  /** Sessions alive at once (default {@link DEFAULT_MAX_SESSIONS}). */
  maxSessions?: number;
  /** Requests of one session handled at once (default {@link DEFAULT_MAX_REQUESTS_PER_SESSION}). */
  maxRequestsPerSession?: number;
  /** Idle time before a session ends (default {@link DEFAULT_IDLE_TIMEOUT_MS}). */
  idleTimeoutMs?: number;
  /** A fresh, unguessable session id (default `crypto.randomUUID()`). */
  newSessionId?: () => string;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** What {@link createHttpHandler} returns. */
export interface HttpHandler {
  /** Answer one HTTP request. Never rejects. */
  handle(request: Request): Promise<Response>;
  /**
   * Stop taking new work (503), give running calls up to `graceMs` to answer, then end every session
   * (remaining calls cancelled, close hooks run: child processes killed, files removed) and close every
   * stream. Idempotent.
   */
  shutdown(graceMs?: number): Promise<void>;
  /** Sessions alive now. */
  readonly sessionCount: number;
}

/** An open `text/event-stream` response body. */
class EventStream {
  readonly response: Response;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #keepalive: ReturnType<typeof setInterval> | undefined;
  readonly #onClose: () => void;

  constructor(headers: Headers, onClose: () => void) {
    this.#onClose = onClose;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#finish(), // the client went away
    });
    headers.set("content-type", "text/event-stream");
    headers.set("cache-control", "no-cache, no-transform");
    this.response = new Response(body, { status: 200, headers });
    this.#keepalive = setInterval(() => this.#write(": keepalive\n\n"), KEEPALIVE_MS);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Send one JSON-RPC message as a `message` event; false when the stream is gone. */
  send(json: string): boolean {
    return this.#write(`event: message\ndata: ${json}\n\n`);
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.#controller.close();
    } catch {
      // already errored
    }
    this.#finish();
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    try {
      this.#controller.enqueue(encoder.encode(text));
      return true;
    } catch {
      this.#finish();
      return false;
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepalive);
    this.#onClose();
  }
}

const encoder = new TextEncoder();

/** One MCP session over HTTP. */
class HttpSession {
  readonly id: string;
  readonly server: McpServer;
  /** Requests of this session being handled now. */
  running = 0;
  lastActive: number;
  /** The standalone GET stream, if the client opened one. */
  standalone: EventStream | null = null;
  /** POST event streams still open (they carry server requests while no GET stream is open). */
  readonly postStreams = new Set<EventStream>();
  /** Server-to-client messages waiting for a stream. */
  readonly pending: string[] = [];
  readonly work = new Set<Promise<unknown>>();
  closing: Promise<void> | null = null;

  constructor(id: string, server: McpServer, now: number, log: (message: string) => void) {
    this.id = id;
    this.server = server;
    this.lastActive = now;
    server.setOutput((json) => this.#sendOut(json, log));
  }

  /** Server-initiated messages: the GET stream, else an open POST stream, else kept for the next one. */
  #sendOut(json: string, log: (message: string) => void): void {
    if (this.standalone?.send(json)) return;
    for (const stream of this.postStreams) if (stream.send(json)) return;
    if (this.pending.length >= MAX_PENDING_OUT) {
      this.pending.shift();
      log(`session ${this.id}: dropped a server message no stream could carry`);
    }
    this.pending.push(json);
  }

  flushPending(stream: EventStream): void {
    while (this.pending.length > 0 && stream.send(this.pending[0])) this.pending.shift();
  }

  close(reason: string): Promise<void> {
    this.closing ??= (async () => {
      await this.server.close(reason);
      this.server.setOutput(null);
      this.standalone?.close();
      for (const stream of this.postStreams) stream.close();
    })();
    return this.closing;
  }
}

/**
 * The Streamable HTTP handler. Pass `handle` to an HTTP server bound to the address the options describe.
 *
 * @example
 * ```ts
 * const http = createHttpHandler({ createSession: () => newServer(), loopback: true, token: null });
 * Deno.serve({ hostname: "127.0.0.1", port: 8080 }, (request) => http.handle(request));
 * ```
 */
export function createHttpHandler(options: HttpOptions): HttpHandler {
  const log = options.log ?? (() => {});
  const now = options.now ?? Date.now;
  const maxBody = options.maxBodyBytes ?? MAX_LINE_BYTES;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxRunning = options.maxRequestsPerSession ?? DEFAULT_MAX_REQUESTS_PER_SESSION;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const newId = options.newSessionId ?? (() => crypto.randomUUID());
  const corsOrigin = options.corsOrigin ?? null;
  const sessions = new Map<string, HttpSession>();
  /** Requests being answered (their promises), for shutdown. */
  const inFlight = new Set<Promise<unknown>>();
  let stopping = false;
  let stopped: Promise<void> | null = null;

  const endSession = async (session: HttpSession, reason: string): Promise<void> => {
    sessions.delete(session.id);
    try {
      await session.close(reason);
    } finally {
      // Said once the session's calls are stopped and its files removed, so the line means it is all gone.
      log(`session ${session.id} ended (${reason})`);
    }
  };

  /** End the longest-idle abandoned session (see {@link EVICTABLE_AFTER_MS}), if there is one. */
  const evictOne = () => {
    let oldest: HttpSession | null = null;
    for (const session of sessions.values()) {
      const quiet = session.running === 0 && session.postStreams.size === 0 &&
        (session.standalone === null || session.standalone.closed);
      if (quiet && session.lastActive <= now() - Math.min(EVICTABLE_AFTER_MS, idleMs)) {
        if (oldest === null || session.lastActive < oldest.lastActive) oldest = session;
      }
    }
    if (oldest !== null) void endSession(oldest, "the session cap was reached and it was idle longest");
  };

  // Idle sessions expire; checked a few times per idle period.
  const sweep = setInterval(() => {
    const limit = now() - idleMs;
    for (const session of [...sessions.values()]) {
      if (session.running === 0 && session.lastActive < limit) void endSession(session, "idle");
    }
  }, Math.max(50, Math.min(idleMs / 4, 30_000)));

  const baseHeaders = (request: Request): Headers => {
    const headers = new Headers();
    const origin = request.headers.get("origin");
    if (corsOrigin !== null && origin === corsOrigin) {
      headers.set("access-control-allow-origin", corsOrigin);
      headers.set("access-control-expose-headers", "Mcp-Session-Id, WWW-Authenticate");
      headers.set("vary", "Origin");
    }
    return headers;
  };

  const plain = (request: Request, status: number, message: string, extra?: Record<string, string>) => {
    const headers = baseHeaders(request);
    headers.set("content-type", "application/json");
    for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);
    // A JSON-RPC error without id, as the spec allows for transport refusals.
    const code = status === 404 ? -32001 : ErrorCode.invalidRequest;
    return new Response(errorResponse(null, code, message), { status, headers });
  };

  /** The refusal of a request that may not reach the endpoint at all, or null. */
  const gatekeeper = (request: Request): Response | null => {
    if (options.loopback && !isLoopbackHost(request.headers.get("host"))) {
      return plain(request, 403, "Forbidden: the Host header must name this loopback server");
    }
    const origin = request.headers.get("origin");
    if (origin !== null && origin !== corsOrigin && !isSameOrigin(origin, request)) {
      return plain(request, 403, "Forbidden: Origin not allowed");
    }
    if (options.token !== null) {
      const given = bearerToken(request.headers.get("authorization"));
      if (given === null) {
        return plain(request, 401, "Unauthorized: a bearer token is required", {
          "www-authenticate": 'Bearer realm="mcp"',
        });
      }
      if (!constantTimeEqual(given, options.token)) {
        return plain(request, 401, "Unauthorized: invalid bearer token", {
          "www-authenticate": 'Bearer realm="mcp", error="invalid_token"',
        });
      }
    }
    return null;
  };

  /** The session a non-initialize request names, or its refusal. */
  const sessionOf = (request: Request): HttpSession | Response => {
    const id = request.headers.get(SESSION_HEADER);
    if (id === null) return plain(request, 400, "Bad Request: Mcp-Session-Id header is required");
    const session = sessions.get(id);
    if (session === undefined || session.closing !== null) {
      return plain(request, 404, "Session not found");
    }
    const version = request.headers.get(VERSION_HEADER);
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return plain(request, 400, `Bad Request: unsupported MCP-Protocol-Version '${clip(version)}'`);
    }
    session.lastActive = now();
    return session;
  };

  const handlePost = async (request: Request): Promise<Response> => {
    const type = request.headers.get("content-type") ?? "";
    if (!/^application\/json\b/i.test(type.trim())) {
      return plain(request, 415, "Unsupported Media Type: Content-Type must be application/json");
    }
    const accept = request.headers.get("accept") ?? "*/*";
    const takesSse = /text\/event-stream|\*\/\*/i.test(accept);
    if (!takesSse && !/application\/json|application\/\*/i.test(accept)) {
      return plain(request, 406, "Not Acceptable: accept application/json and text/event-stream");
    }
    const body = await readBody(request, maxBody);
    if (body.kind === "too_large") {
      return plain(request, 413, `Payload Too Large: the body exceeds ${maxBody} bytes`);
    }
    if (body.kind === "error") return plain(request, 400, `Bad Request: ${body.message}`);
    const text = body.text;
    const parsed = parseJsonMessage(text);
    const message = parsed.ok && isRecord(parsed.value) ? parsed.value : null;
    const isInitialize = message !== null && message.method === "initialize" && "id" in message;

    let session: HttpSession;
    if (isInitialize) {
      if (request.headers.get(SESSION_HEADER) !== null) {
        return plain(
          request,
          400,
          "Bad Request: initialize starts a new session; send it without a session id",
        );
      }
      if (sessions.size >= maxSessions) evictOne();
      if (sessions.size >= maxSessions) {
        return plain(request, 429, `Too Many Requests: ${maxSessions} sessions are open`, {
          "retry-after": "30",
        });
      }
      const id = newId();
      session = new HttpSession(id, options.createSession(), now(), log);
      sessions.set(id, session);
      log(`session ${id} started`);
    } else {
      const found = sessionOf(request);
      if (found instanceof Response) return found;
      session = found;
    }

    // Notifications and the client's answers to our requests: accepted, answered without a body. Anything
    // else with an id (even malformed) is a request the core answers.
    const answersUs = message !== null && !("method" in message) &&
      ("result" in message || "error" in message);
    if (message !== null && (!("id" in message) || answersUs)) {
      track(session.work, session.server.handleLine(text, () => {}));
      return new Response(null, { status: 202, headers: baseHeaders(request) });
    }
    if (session.running >= maxRunning) {
      return plain(request, 429, `Too Many Requests: ${maxRunning} requests of this session are running`, {
        "retry-after": "1",
      });
    }
    return answerRequest(request, session, text, takesSse, isInitialize);
  };

  /**
   * Run one request; its first message decides the answer: the response alone as `application/json`, or
   * (a notification first, e.g. progress) an event stream carrying everything until the response.
   */
  const answerRequest = (
    request: Request,
    session: HttpSession,
    text: string,
    takesSse: boolean,
    isInitialize: boolean,
  ): Promise<Response> => {
    const headers = baseHeaders(request);
    if (isInitialize) headers.set("mcp-session-id", session.id);
    session.running++;
    return new Promise<Response>((resolve) => {
      let stream: EventStream | null = null;
      let answered = false;
      const send = (json: string) => {
        const isNotification = json.startsWith('{"jsonrpc":"2.0","method"');
        if (stream !== null) {
          stream.send(json);
          if (!isNotification) stream.close();
        } else if (answered) {
          log(`session ${session.id}: dropped a message sent after the answer`);
        } else if (!isNotification) {
          answered = true;
          headers.set("content-type", "application/json");
          resolve(new Response(json, { status: parseFailed(json) ? 400 : 200, headers }));
        } else if (takesSse) {
          const opened = new EventStream(headers, () => session.postStreams.delete(opened));
          stream = opened;
          session.postStreams.add(opened);
          answered = true;
          resolve(opened.response);
          session.flushPending(opened);
          opened.send(json);
        } // a client that takes only JSON gets no notifications
      };
      const work = session.server.handleLine(text, send).finally(() => {
        session.running--;
        session.lastActive = now();
        if (stream !== null) stream.close();
        // A cancelled call is never answered (the spec forbids it): end the request with no content.
        if (!answered) resolve(new Response(null, { status: 202, headers }));
      });
      track(session.work, work);
    });
  };

  const handleGet = (request: Request): Response => {
    const accept = request.headers.get("accept") ?? "";
    if (!/text\/event-stream/i.test(accept)) {
      return plain(request, 406, "Not Acceptable: GET opens a text/event-stream", {
        allow: "GET, POST, DELETE",
      });
    }
    const found = sessionOf(request);
    if (found instanceof Response) return found;
    if (found.standalone !== null && !found.standalone.closed) {
      return plain(request, 409, "Conflict: this session already has an open GET stream");
    }
    const stream: EventStream = new EventStream(baseHeaders(request), () => {
      if (found.standalone === stream) found.standalone = null;
    });
    found.standalone = stream;
    found.flushPending(stream);
    return stream.response;
  };

  const handleDelete = async (request: Request): Promise<Response> => {
    const found = sessionOf(request);
    if (found instanceof Response) return found;
    await endSession(found, "ended by the client");
    return new Response(null, { status: 204, headers: baseHeaders(request) });
  };

  const route = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (path === HEALTH_PATH && (request.method === "GET" || request.method === "HEAD")) {
      const status = stopping ? 503 : 200;
      const body = request.method === "HEAD"
        ? null
        : JSON.stringify({ status: stopping ? "stopping" : "ok" });
      return new Response(body, { status, headers: { "content-type": "application/json" } });
    }
    if (path !== MCP_PATH) return plain(request, 404, "Not Found: the MCP endpoint is /mcp");
    const refused = gatekeeper(request);
    if (refused !== null) return refused;
    if (stopping) {
      return plain(request, 503, "Service Unavailable: the server is shutting down", { "retry-after": "5" });
    }
    switch (request.method) {
      case "POST":
        return await handlePost(request);
      case "GET":
        return handleGet(request);
      case "DELETE":
        return await handleDelete(request);
      case "OPTIONS":
        if (corsOrigin !== null && request.headers.get("origin") === corsOrigin) {
          const headers = baseHeaders(request);
          headers.set("access-control-allow-methods", "GET, POST, DELETE");
          headers.set(
            "access-control-allow-headers",
            "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID",
          );
          headers.set("access-control-max-age", "600");
          return new Response(null, { status: 204, headers });
        }
        return plain(request, 405, "Method Not Allowed", { allow: "GET, POST, DELETE" });
      default:
        return plain(request, 405, "Method Not Allowed", { allow: "GET, POST, DELETE" });
    }
  };

  return {
    async handle(request: Request): Promise<Response> {
      const work = route(request).catch((error) => {
        log(`internal error answering ${request.method}: ${error instanceof Error ? error.message : error}`);
        return plain(request, 500, "Internal Server Error");
      });
      track(inFlight, work);
      return await work;
    },
    shutdown(graceMs = DEFAULT_SHUTDOWN_GRACE_MS): Promise<void> {
      stopped ??= (async () => {
        stopping = true;
        clearInterval(sweep);
        const running = [...sessions.values()].flatMap((s) => [...s.work]);
        if (!await settleWithin(running, graceMs)) log(`calls still running after ${graceMs} ms: cancelling`);
        await Promise.all([...sessions.values()].map((s) => endSession(s, "server shutting down")));
        await settleWithin([...inFlight], 1_000);
      })();
      return stopped;
    },
    get sessionCount() {
      return sessions.size;
    },
  };
}

function track(set: Set<Promise<unknown>>, work: Promise<unknown>): void {
  const settled = work.then(() => {}, () => {});
  set.add(settled);
  settled.finally(() => set.delete(settled));
}

/** Whether a JSON-RPC answer is the core's refusal of an unparsable or malformed message (id null). */
function parseFailed(json: string): boolean {
  return json.startsWith('{"jsonrpc":"2.0","id":null,"error"');
}

type Body = { kind: "ok"; text: string } | { kind: "too_large" } | { kind: "error"; message: string };

/** Read a request body up to `limit` bytes as strict UTF-8, without buffering more than the limit. */
async function readBody(request: Request, limit: number): Promise<Body> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return { kind: "too_large" };
  if (request.body === null) return { kind: "error", message: "empty body" };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return { kind: "too_large" };
      }
      chunks.push(value);
    }
  } catch (error) {
    return {
      kind: "error",
      message: `reading the body failed: ${error instanceof Error ? error.message : error}`,
    };
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  try {
    return { kind: "ok", text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { kind: "error", message: "the body is not valid UTF-8" };
  }
}

/**
 * Whether a `Host` header names loopback: `localhost`, `127.0.0.1` or `[::1]`, with an optional port.
 *
 * @example
 * ```ts
 * isLoopbackHost("127.0.0.1:8080"); // true
 * isLoopbackHost("evil.example.com"); // false
 * ```
 */
export function isLoopbackHost(host: string | null): boolean {
  if (host === null) return false;
  const name = host.toLowerCase().replace(/:\d+$/, "");
  return name === "localhost" || name === "127.0.0.1" || name === "[::1]";
}

/** Whether `origin` is the server's own (`http://` + the request's Host), as a same-origin page sends. */
function isSameOrigin(origin: string, request: Request): boolean {
  const host = request.headers.get("host");
  if (host === null) return false;
  const scheme = new URL(request.url).protocol;
  return origin.toLowerCase() === `${scheme}//${host.toLowerCase()}`;
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
function bearerToken(header: string | null): string | null {
  const match = header === null ? null : /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match === null ? null : match[1];
}

/**
 * Compare two secrets in time that depends only on the expected one's length (never on where they differ).
 *
 * @example
 * ```ts
 * constantTimeEqual("s3cret-token", "s3cret-token"); // true
 * ```
 */
export function constantTimeEqual(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i % Math.max(a.length, 1)] ?? 0) ^ b[i];
  return diff === 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length <= 64 ? text : `${text.slice(0, 64)}...`;
}
