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
 * `WWW-Authenticate` otherwise), checked before any body is read, as are the session and the caps; a
 * malformed `Host` is 400; a body is capped (413), all bodies being read share a byte budget (503) and
 * must arrive in time (408); requests in flight are capped (503); sessions per server and per client
 * and requests running per session are capped (429 with `Retry-After`), the least recently useful
 * session making room at a cap; idle sessions expire; an event stream the client does not read is
 * dropped; logs name sessions by a hash, never by id; no CORS headers unless `corsOrigin`.
 *
 * Revision 2026-07-28 is served beside it on the same endpoint: a POST whose version header names it is
 * sessionless, checked against its headers and answered by its client's server (`http_modern.ts`).
 *
 * The transport splits into this router (`createHttpHandler` builds the parts; `route` and one
 * function per method answer), the sessions and their table (`http_session.ts`), modern requests and
 * their clients (`http_modern.ts`), the transport's own replies (`http_reply.ts`), event streams
 * (`http_stream.ts`) and body reading (`http_body.ts`).
 *
 * @module
 */

import { ErrorCode } from "./jsonrpc.ts";
import { MetaKey, ModernErrorCode } from "./modern.ts";
import { parseJsonMessage } from "./guarded_json.ts";
import { MAX_LINE_BYTES } from "./line_splitter.ts";
import { settleWithin, track } from "./settle.ts";
import type { McpServer } from "./server.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "./versions.ts";
import {
  type Body,
  BodyBudget,
  DEFAULT_BODY_BYTES_IN_FLIGHT,
  DEFAULT_BODY_TIMEOUT_MS,
  readBody,
} from "./http_body.ts";
import { HttpSession, HttpSessions } from "./http_session.ts";
import { HttpReplies } from "./http_reply.ts";
import { DEFAULT_STREAM_QUEUE_BYTES } from "./http_stream.ts";
import { checkModernRequest, isModernPost, ModernClients } from "./http_modern.ts";

export { DEFAULT_BODY_BYTES_IN_FLIGHT, DEFAULT_BODY_TIMEOUT_MS } from "./http_body.ts";
export { DEFAULT_STREAM_QUEUE_BYTES } from "./http_stream.ts";

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
 * At the session cap (or a client's quota), a session unused this long (no request but `ping`) with
 * nothing running makes room for a new one: a client that left without DELETE, as most do, or one keeping
 * sessions alive with pings alone. A flood of fresh sessions gets 429 instead.
 */
export const EVICTABLE_AFTER_MS = 60_000;

/** Default time in-flight calls get to finish at shutdown before they are cancelled. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

/** Default cap on requests being answered at once, all sessions and clients together (then 503). */
export const DEFAULT_MAX_REQUESTS_IN_FLIGHT = 1024;

/**
 * Modern (2026-07-28) requests of one client answered at once, open `subscriptions/listen` streams
 * included (then 429): a client is a remote address, so every local process on loopback shares it.
 */
export const DEFAULT_MAX_MODERN_REQUESTS_PER_CLIENT = 128;

/** Header names (lower case, as `Headers` returns them). */
const SESSION_HEADER = "mcp-session-id";
const VERSION_HEADER = "mcp-protocol-version";

/** Inputs of {@link createHttpHandler}. */
export interface HttpOptions {
  /**
   * A fresh server for each new session (its own tools, resources and in-flight calls), and for each
   * client (remote address) sending modern, sessionless requests: all of one client's share one.
   */
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
  /** Sessions one client (remote address) may hold at once (default: `maxSessions`). */
  maxSessionsPerClient?: number;
  /** Bytes of request bodies held at once, all requests together (default {@link DEFAULT_BODY_BYTES_IN_FLIGHT}). */
  maxBodyBytesInFlight?: number;
  /** Time a request's body may take to arrive (default {@link DEFAULT_BODY_TIMEOUT_MS}). */
  bodyTimeoutMs?: number;
  /** Requests answered at once, all together (default {@link DEFAULT_MAX_REQUESTS_IN_FLIGHT}). */
  maxRequestsInFlight?: number;
  /** Bytes an event stream may hold unread before it is dropped (default {@link DEFAULT_STREAM_QUEUE_BYTES}). */
  maxStreamQueueBytes?: number;
  /** Requests of one session handled at once (default {@link DEFAULT_MAX_REQUESTS_PER_SESSION}). */
  maxRequestsPerSession?: number;
  /** Modern requests of one client handled at once (default {@link DEFAULT_MAX_MODERN_REQUESTS_PER_CLIENT}). */
  maxModernRequestsPerClient?: number;
  /** Idle time before a session ends (default {@link DEFAULT_IDLE_TIMEOUT_MS}). */
  idleTimeoutMs?: number;
  /** A fresh, unguessable session id (default `crypto.randomUUID()`). */
  newSessionId?: () => string;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** What {@link createHttpHandler} returns. */
export interface HttpHandler {
  /**
   * Answer one HTTP request from `remote` (the peer's address: the client a per-client quota counts).
   * Never rejects.
   */
  handle(request: Request, remote?: string): Promise<Response>;
  /**
   * Stop taking new work (503), give running calls up to `graceMs` to answer, then end every session
   * (remaining calls cancelled, close hooks run: child processes killed, files removed) and close every
   * stream. Idempotent.
   */
  shutdown(graceMs?: number): Promise<void>;
  /** Sessions alive now. */
  readonly sessionCount: number;
}

const encoder = new TextEncoder();

/**
 * The Streamable HTTP handler. Pass `handle` to an HTTP server bound to the address the options describe.
 * It builds the parts (the replies, the session table, the modern clients), sweeps idle ones out, and
 * leaves each request to `route`.
 *
 * A server would call `http.handle(request)` for each request (`Deno.serve`, or `serveHttp1` of
 * http_listener.ts); here requests are handed to it directly, so no port is opened:
 *
 * @example
 * ```ts
 * import { McpServer } from "./server.ts";
 * import { createHttpHandler } from "./http.ts";
 * import assert from "node:assert/strict";
 * const createSession = () => new McpServer({ name: "demo", version: "1.0.0" });
 * const http = createHttpHandler({ createSession, loopback: true, token: null });
 * const accept = "application/json, text/event-stream";
 * const headers = { host: "127.0.0.1", "content-type": "application/json", accept };
 * const clientInfo = { name: "client", version: "1" };
 * const params = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo };
 * const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params });
 * const response = await http.handle(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body }));
 * assert.equal(response.status, 200);
 * assert.equal((await response.json()).result.serverInfo.name, "demo");
 * assert.ok(response.headers.has("mcp-session-id"));
 * assert.equal(http.sessionCount, 1);
 * await http.shutdown();
 * assert.equal(http.sessionCount, 0);
 * ```
 */
export function createHttpHandler(options: HttpOptions): HttpHandler {
  const log = options.log ?? (() => {});
  const now = options.now ?? Date.now;
  const maxBody = options.maxBodyBytes ?? MAX_LINE_BYTES;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxInFlight = options.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_IN_FLIGHT;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const streamQueue = options.maxStreamQueueBytes ?? DEFAULT_STREAM_QUEUE_BYTES;
  const budget = new BodyBudget(options.maxBodyBytesInFlight ?? DEFAULT_BODY_BYTES_IN_FLIGHT);
  const corsOrigin = options.corsOrigin ?? null;
  const endpoint: Endpoint = {
    loopback: options.loopback,
    token: options.token,
    corsOrigin,
    reply: new HttpReplies({ corsOrigin, maxBodyBytes: maxBody, bodyTimeoutMs }),
    sessions: new HttpSessions({
      maxSessions,
      maxSessionsPerClient: Math.min(options.maxSessionsPerClient ?? maxSessions, maxSessions),
      evictableAfterMs: Math.min(EVICTABLE_AFTER_MS, idleMs),
      createServer: options.createSession,
      newId: options.newSessionId ?? (() => crypto.randomUUID()),
      now,
      log,
      streamQueueBytes: streamQueue,
    }),
    modern: new ModernClients({
      createServer: options.createSession,
      maxClients: maxSessions,
      maxRunningPerClient: options.maxModernRequestsPerClient ?? DEFAULT_MAX_MODERN_REQUESTS_PER_CLIENT,
      streamQueueBytes: streamQueue,
      now,
    }),
    readBody: (request) => readBody(request, maxBody, budget, bodyTimeoutMs),
    maxRunningPerSession: options.maxRequestsPerSession ?? DEFAULT_MAX_REQUESTS_PER_SESSION,
    stopping: false,
  };
  const { reply, sessions, modern } = endpoint;
  /** Requests being answered (their promises), for shutdown. */
  const inFlight = new Set<Promise<unknown>>();
  let stopped: Promise<void> | null = null;

  // Idle sessions expire; checked a few times per idle period.
  const sweep = setInterval(() => {
    const limit = now() - idleMs;
    sessions.expire(limit);
    modern.expire(limit);
  }, Math.max(50, Math.min(idleMs / 4, 30_000)));

  return {
    async handle(request: Request, remote = "unknown"): Promise<Response> {
      if (inFlight.size >= maxInFlight) {
        return reply.plain(request, 503, `Service Unavailable: ${maxInFlight} requests are being answered`, {
          "retry-after": "1",
        });
      }
      const work = route(endpoint, request, remote).catch((error) => {
        log(`internal error answering ${request.method}: ${error instanceof Error ? error.message : error}`);
        return reply.plain(request, 500, "Internal Server Error");
      });
      track(inFlight, work);
      return await work;
    },
    shutdown(graceMs = DEFAULT_SHUTDOWN_GRACE_MS): Promise<void> {
      stopped ??= (async () => {
        endpoint.stopping = true;
        clearInterval(sweep);
        const running = [...sessions.work(), ...modern.work()];
        if (!await settleWithin(running, graceMs)) log(`calls still running after ${graceMs} ms: cancelling`);
        await Promise.all([
          ...sessions.endAll("server shutting down"),
          ...modern.endAll("server shutting down"),
        ]);
        await settleWithin([...inFlight], 1_000);
      })();
      return stopped;
    },
    get sessionCount() {
      return sessions.size;
    },
  };
}

/** What the routing functions below share: the gates' settings, the parts, and whether we are stopping. */
interface Endpoint {
  readonly loopback: boolean;
  readonly token: string | null;
  readonly corsOrigin: string | null;
  readonly reply: HttpReplies;
  readonly sessions: HttpSessions;
  readonly modern: ModernClients;
  /** A request's body, under the size, shared-budget and time bounds. */
  readonly readBody: (request: Request) => Promise<Body>;
  readonly maxRunningPerSession: number;
  /** Set at shutdown: `/healthz` says so, `/mcp` answers 503. */
  stopping: boolean;
}

/**
 * One request from `client`, through the gates in order: a well-formed Host (400) and target, the
 * health check (served to anyone), a loopback Host on a loopback server (403), the path (404), the
 * Origin and token ({@link refuseAtGate}), shutdown (503); then by method.
 */
async function route(ep: Endpoint, request: Request, client: string): Promise<Response> {
  // The Host header first: a malformed one is the client's error (400), not ours (the request's URL is
  // built from it); on loopback, only /healthz (which tells nothing) is served to a foreign name.
  const host = request.headers.get("host");
  if (host !== null && !isWellFormedHost(host)) {
    return ep.reply.plain(request, 400, "Bad Request: malformed Host header");
  }
  let path: string;
  try {
    path = new URL(request.url).pathname;
  } catch {
    return ep.reply.plain(request, 400, "Bad Request: malformed request target");
  }
  if (path === HEALTH_PATH && (request.method === "GET" || request.method === "HEAD")) {
    return answerHealth(ep, request);
  }
  if (ep.loopback && !isLoopbackHost(host)) {
    return ep.reply.plain(request, 403, "Forbidden: the Host header must name this loopback server");
  }
  if (path !== MCP_PATH) return ep.reply.plain(request, 404, "Not Found: the MCP endpoint is /mcp");
  const refused = refuseAtGate(ep, request);
  if (refused !== null) return refused;
  if (ep.stopping) {
    return ep.reply.plain(request, 503, "Service Unavailable: the server is shutting down", {
      "retry-after": "5",
    });
  }
  switch (request.method) {
    case "POST":
      return await postMcp(ep, request, client);
    case "GET":
      return getMcp(ep, request);
    case "DELETE":
      return await deleteMcp(ep, request);
    case "OPTIONS":
      return optionsMcp(ep, request);
    default:
      return ep.reply.plain(request, 405, "Method Not Allowed", { allow: "GET, POST, DELETE" });
  }
}

/** `GET`/`HEAD /healthz`: 200 while sessions are taken, 503 once stopping; nothing else is told. */
function answerHealth(ep: Endpoint, request: Request): Response {
  const status = ep.stopping ? 503 : 200;
  const body = request.method === "HEAD" ? null : JSON.stringify({ status: ep.stopping ? "stopping" : "ok" });
  return new Response(body, { status, headers: { "content-type": "application/json" } });
}

/** The refusal of a request that may not reach the endpoint at all (a foreign Origin, a missing or wrong token), or null. */
function refuseAtGate(ep: Endpoint, request: Request): Response | null {
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== ep.corsOrigin && !isSameOrigin(origin, request)) {
    return ep.reply.plain(request, 403, "Forbidden: Origin not allowed");
  }
  // A browser's CORS preflight never carries credentials; it is answered (for the allowed origin
  // only) and does nothing.
  if (request.method === "OPTIONS") return null;
  if (ep.token !== null) {
    const given = bearerToken(request.headers.get("authorization"));
    if (given === null) {
      return ep.reply.plain(request, 401, "Unauthorized: a bearer token is required", {
        "www-authenticate": 'Bearer realm="mcp"',
      });
    }
    if (!constantTimeEqual(given, ep.token)) {
      return ep.reply.plain(request, 401, "Unauthorized: invalid bearer token", {
        "www-authenticate": 'Bearer realm="mcp", error="invalid_token"',
      });
    }
  }
  return null;
}

/** The session a non-initialize request names (now marked active), or its refusal (400, 404). */
function sessionOf(ep: Endpoint, request: Request): HttpSession | Response {
  const id = request.headers.get(SESSION_HEADER);
  if (id === null) return ep.reply.plain(request, 400, "Bad Request: Mcp-Session-Id header is required");
  const session = ep.sessions.get(id);
  if (session === undefined || session.closing !== null) {
    return ep.reply.plain(request, 404, "Session not found");
  }
  const version = request.headers.get(VERSION_HEADER);
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return ep.reply.plain(request, 400, `Bad Request: unsupported MCP-Protocol-Version '${clip(version)}'`);
  }
  session.markActive();
  return session;
}

/**
 * `POST /mcp`: the content type and Accept, then a modern request to {@link postModern}; a legacy one
 * is an `initialize` opening a session or a message to the session it names, answered by that session.
 */
async function postMcp(ep: Endpoint, request: Request, client: string): Promise<Response> {
  const { reply, sessions } = ep;
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type.trim())) {
    return reply.plain(request, 415, "Unsupported Media Type: Content-Type must be application/json");
  }
  const accept = request.headers.get("accept") ?? "*/*";
  const takesSse = /text\/event-stream|\*\/\*/i.test(accept);
  if (!takesSse && !/application\/json|application\/\*/i.test(accept)) {
    return reply.plain(request, 406, "Not Acceptable: accept application/json and text/event-stream");
  }
  // A modern request (2026-07-28: its version header says so) has no session; it is told apart from a
  // legacy one before its body is read, so a legacy session's checks never see it.
  const hasSession = request.headers.get(SESSION_HEADER) !== null;
  if (isModernPost(request.headers.get(VERSION_HEADER), hasSession)) {
    return await postModern(ep, request, client, takesSse);
  }
  // Everything the headers decide is decided before the body is read: its session (a request without
  // one can only be an initialize, so the session caps), then its size and the shared body budget.
  let existing: HttpSession | null = null;
  if (request.headers.get(SESSION_HEADER) !== null) {
    const found = sessionOf(ep, request);
    if (found instanceof Response) return found;
    existing = found;
  } else {
    const full = sessions.wouldRefuse(client);
    if (full !== null) return reply.tooManySessions(request, full.message);
  }
  const body = await ep.readBody(request);
  if (body.kind !== "ok") return reply.bodyRefusal(request, body);
  const text = body.text;
  const parsed = parseJsonMessage(text);
  const message = parsed.ok && isRecord(parsed.value) ? parsed.value : null;
  // A body that says it is modern under a legacy (or absent) version header: the headers do not match.
  const bodyVersion = message === null ? undefined : metaVersion(message.params);
  if (bodyVersion !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(bodyVersion)) {
    return reply.jsonError(
      request,
      400,
      message,
      ModernErrorCode.headerMismatch,
      "Header mismatch: the MCP-Protocol-Version header does not match the body's protocol version",
    );
  }
  const isInitialize = message !== null && message.method === "initialize" && "id" in message;

  let session: HttpSession;
  if (isInitialize) {
    if (existing !== null) {
      return reply.plain(
        request,
        400,
        "Bad Request: initialize starts a new session; send it without a session id",
      );
    }
    // Decided again now: other sessions may have opened while this body arrived.
    const opened = await sessions.open(client);
    if (!(opened instanceof HttpSession)) return reply.tooManySessions(request, opened.message);
    session = opened;
  } else {
    if (existing === null) return reply.plain(request, 400, "Bad Request: Mcp-Session-Id header is required");
    if (existing.closing !== null) return reply.plain(request, 404, "Session not found");
    session = existing;
  }

  // Notifications and the client's answers to our requests: accepted, answered without a body. Anything
  // else with an id (even malformed) is a request the core answers.
  const answersUs = message !== null && !("method" in message) &&
    ("result" in message || "error" in message);
  if (message !== null && (!("id" in message) || answersUs)) {
    session.accept(text);
    return new Response(null, { status: 202, headers: reply.headers(request) });
  }
  const maxRunning = ep.maxRunningPerSession;
  if (session.running >= maxRunning) {
    return reply.plain(
      request,
      429,
      `Too Many Requests: ${maxRunning} requests of this session are running`,
      {
        "retry-after": "1",
      },
    );
  }
  // A ping keeps a session from expiring but does not make it useful: it is still first to make room.
  if (message === null || message.method !== "ping") session.markUseful();
  const headers = reply.headers(request);
  if (isInitialize) headers.set("mcp-session-id", session.id);
  return session.answer(text, headers, takesSse);
}

/**
 * A modern (2026-07-28) POST: no session; the headers checked against the body; served by the
 * client's modern server with its ids scoped to this POST; a closed response stream cancels it.
 */
async function postModern(
  ep: Endpoint,
  request: Request,
  client: string,
  takesSse: boolean,
): Promise<Response> {
  const { reply, modern } = ep;
  const body = await ep.readBody(request);
  if (body.kind !== "ok") return reply.bodyRefusal(request, body);
  const parsed = parseJsonMessage(body.text);
  if (!parsed.ok || !isRecord(parsed.value)) {
    // The core words the refusal (parse error, batch, too deep); it has no id, so it is a 400.
    return reply.jsonError(
      request,
      400,
      null,
      parsed.ok ? ErrorCode.invalidRequest : ErrorCode.parseError,
      parsed.ok ? "Invalid request: a message must be a single JSON object" : "Parse error",
    );
  }
  const message = parsed.value;
  if (!("method" in message)) {
    // The server sends modern clients no requests (2026-07-28 embeds them in results): nothing to answer.
    return reply.jsonError(
      request,
      400,
      null,
      ErrorCode.invalidRequest,
      "Invalid request: responses are not accepted",
    );
  }
  if (!("id" in message)) {
    // 2026-07-28 defines no client notification over HTTP (a closed stream is the cancel): accepted,
    // and dropped, so one client's notifications/cancelled can never reach another's calls.
    return new Response(null, { status: 202, headers: reply.headers(request) });
  }
  const refused = checkModernRequest(request.headers, message);
  if (refused !== null) {
    return reply.jsonError(request, refused.status, message, refused.code, refused.message, refused.data);
  }
  const owner = modern.get(client);
  if (owner === null) return reply.tooManySessions(request, `${modern.maxClients} clients are being served`);
  if (owner.running >= modern.maxRunningPerClient) {
    return reply.plain(
      request,
      429,
      `Too Many Requests: ${modern.maxRunningPerClient} requests of this client are running`,
      { "retry-after": "1" },
    );
  }
  return modern.answer(owner, request, body.text, reply.headers(request), takesSse);
}

/** `GET /mcp`: the session's standalone event stream (one at a time: 409 for a second). */
function getMcp(ep: Endpoint, request: Request): Response {
  const accept = request.headers.get("accept") ?? "";
  if (!/text\/event-stream/i.test(accept)) {
    return ep.reply.plain(request, 406, "Not Acceptable: GET opens a text/event-stream", {
      allow: "GET, POST, DELETE",
    });
  }
  const found = sessionOf(ep, request);
  if (found instanceof Response) return found;
  return found.openStream(ep.reply.headers(request)) ??
    ep.reply.plain(request, 409, "Conflict: this session already has an open GET stream");
}

/** `DELETE /mcp`: the client ends its session (204 once it is all gone). */
async function deleteMcp(ep: Endpoint, request: Request): Promise<Response> {
  const found = sessionOf(ep, request);
  if (found instanceof Response) return found;
  await ep.sessions.end(found, "ended by the client");
  return new Response(null, { status: 204, headers: ep.reply.headers(request) });
}

/** `OPTIONS /mcp`: the CORS preflight, answered for the allowed origin only (405 otherwise). */
function optionsMcp(ep: Endpoint, request: Request): Response {
  if (ep.corsOrigin !== null && request.headers.get("origin") === ep.corsOrigin) {
    const headers = ep.reply.headers(request);
    headers.set("access-control-allow-methods", "GET, POST, DELETE");
    headers.set(
      "access-control-allow-headers",
      "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID",
    );
    headers.set("access-control-max-age", "600");
    return new Response(null, { status: 204, headers });
  }
  return ep.reply.plain(request, 405, "Method Not Allowed", { allow: "GET, POST, DELETE" });
}

/**
 * Whether a `Host` header names loopback: `localhost`, `127.0.0.1` or `[::1]`, with an optional port.
 *
 * @example
 * ```ts
 * import { isLoopbackHost } from "./http.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isLoopbackHost("127.0.0.1:8080"), true);
 * assert.equal(isLoopbackHost("evil.example.com"), false);
 * ```
 */
export function isLoopbackHost(host: string | null): boolean {
  if (host === null) return false;
  const name = host.toLowerCase().replace(/:\d+$/, "");
  return name === "localhost" || name === "127.0.0.1" || name === "[::1]";
}

/**
 * Whether a `Host` header is a well-formed `host[:port]`: a name or IPv4 address, or an IPv6 address
 * in brackets, and a port up to 65535 (anything else cannot even be made into the request's URL).
 */
export function isWellFormedHost(host: string): boolean {
  const match = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/.exec(
    host,
  );
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
}

/** Whether `origin` is the server's own (`http://` + the request's Host), as a same-origin page sends. */
function isSameOrigin(origin: string, request: Request): boolean {
  const host = request.headers.get("host");
  if (host === null) return false;
  let scheme: string;
  try {
    scheme = new URL(request.url).protocol;
  } catch {
    return false;
  }
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
 * import { constantTimeEqual } from "./http.ts";
 * import assert from "node:assert/strict";
 * assert.equal(constantTimeEqual("s3cret-token", "s3cret-token"), true);
 * assert.equal(constantTimeEqual("s3cret-token", "s3cret-tokem"), false);
 * ```
 */
export function constantTimeEqual(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i % Math.max(a.length, 1)] ?? 0) ^ b[i];
  return diff === 0;
}

/** The `_meta` protocol version a message's params name, when it is a string. */
function metaVersion(params: unknown): string | undefined {
  if (!isRecord(params) || !isRecord(params._meta)) return undefined;
  const version = params._meta[MetaKey.protocolVersion];
  return typeof version === "string" ? version : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length <= 64 ? text : `${text.slice(0, 64)}...`;
}
