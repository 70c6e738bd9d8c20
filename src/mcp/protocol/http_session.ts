/**
 * The sessions of the Streamable HTTP transport: one {@link McpServer} each, the streams that carry its
 * server-to-client messages (each request's answer stream, the GET stream), the bookkeeping idle expiry
 * and eviction read, and the table that caps them (all sessions, and each client's: a client is
 * its remote address) and makes room at the cap by ending the least recently useful session (a `ping`
 * is not use: a client pinging every session it holds must not keep everyone else out).
 *
 * Session ids are the only credential a client holds besides the token, so logs name a session by a
 * short label (a hash of its id), never by the id.
 *
 * @module
 */

import type { McpServer } from "./server.ts";
import { DEFAULT_STREAM_QUEUE_BYTES, EventStream, PostReply } from "./http_stream.ts";
import { track } from "./settle.ts";
import type { Transport } from "./transport.ts";

/** Server-to-client messages kept for a session while no stream is open to carry them. */
const MAX_PENDING_OUT = 256;

/** What a new {@link HttpSession} is made of. */
export interface HttpSessionInit {
  /** The id the client will send (`Mcp-Session-Id`); secret. */
  id: string;
  /** A short, non-secret name for logs ({@link sessionLabel}). */
  label: string;
  /** Who opens it (its remote address). */
  client: string;
  /** The session's own server, connected to the session from now on. */
  server: McpServer;
  /** The clock. */
  now: () => number;
  /** Diagnostics sink. */
  log: (message: string) => void;
  /** Bytes an event stream may hold unread before it is dropped (default {@link DEFAULT_STREAM_QUEUE_BYTES}). */
  streamQueueBytes?: number;
}

/**
 * One MCP session over HTTP, and its server's {@link Transport}: answers go out on each POST's own
 * response, server-initiated messages through {@link HttpSession.send}.
 */
export class HttpSession implements Transport {
  /** The id the client sends (`Mcp-Session-Id`); secret. */
  readonly id: string;
  /** A short, non-secret name for logs. */
  readonly label: string;
  /** Who opened it (its remote address), for the per-client quota. */
  readonly client: string;
  readonly server: McpServer;
  /** Requests of this session being handled now. */
  running = 0;
  /** Last request of any kind (idle expiry). */
  lastActive: number;
  /** Last request other than `ping` (the eviction order at the cap). */
  lastUseful: number;
  /** The session's handling promises (settled), for shutdown. */
  readonly work = new Set<Promise<unknown>>();
  closing: Promise<void> | null = null;
  /** The standalone GET stream, if the client opened one. */
  #standalone: EventStream | null = null;
  /** POST event streams still open (they carry server requests while no GET stream is open). */
  readonly #postStreams = new Set<EventStream>();
  /** Server-to-client messages waiting for a stream. */
  readonly #pending: string[] = [];
  readonly #now: () => number;
  readonly #log: (message: string) => void;
  readonly #streamQueueBytes: number;

  constructor(init: HttpSessionInit) {
    this.id = init.id;
    this.label = init.label;
    this.client = init.client;
    this.server = init.server;
    this.#now = init.now;
    this.#log = init.log;
    this.#streamQueueBytes = init.streamQueueBytes ?? DEFAULT_STREAM_QUEUE_BYTES;
    this.lastActive = this.lastUseful = this.#now();
    this.server.connect(this);
  }

  /** A request of any kind arrived (idle expiry counts from here). */
  markActive(): void {
    this.lastActive = this.#now();
  }

  /** A request other than `ping` arrived (eviction at a cap takes the least recently useful first). */
  markUseful(): void {
    this.lastUseful = this.#now();
  }

  /** Whether nothing runs and no request arrived since `limit` (the session has expired). */
  idleSince(limit: number): boolean {
    return this.running === 0 && this.lastActive < limit;
  }

  /** Hand a notification, or the client's answer to a server request, to the server (nothing to answer). */
  accept(text: string): void {
    track(this.work, this.server.handleLine(text, () => {}));
  }

  /**
   * Run one request; its first message decides the answer: the response alone as `application/json`
   * (400 for the core's refusal of an unparsable message), or (a notification first, e.g. progress) an
   * event stream carrying everything until the response, which also carries server requests while it is
   * open. A call that ends unanswered (cancelled) ends the request with 202 and no content. `headers` are
   * the response's (CORS, the session id of an `initialize`).
   */
  answer(text: string, headers: Headers, takesSse: boolean): Promise<Response> {
    this.running++;
    return new Promise<Response>((resolve) => {
      const reply = new PostReply({
        headers,
        takesSse,
        resolve,
        status: (json) => parseFailed(json) ? 400 : 200,
        openStream: () => {
          const opened = new EventStream(headers, (why) => {
            this.#postStreams.delete(opened);
            if (why === "not_reading") {
              this.#log(`session ${this.label}: dropped an event stream nobody read`);
            }
          }, this.#streamQueueBytes);
          this.#postStreams.add(opened);
          // What waited for a stream goes first, before this request's own messages.
          this.#flushPending(opened);
          return opened;
        },
        dropped: () => this.#log(`session ${this.label}: dropped a message sent after the answer`),
      });
      const work = this.server.handleLine(text, (json) => reply.send(json)).finally(() => {
        this.running--;
        this.lastActive = this.#now();
        reply.stream?.close();
        // A cancelled call is never answered (the spec forbids it): end the request with no content.
        if (!reply.answered) resolve(new Response(null, { status: 202, headers }));
      });
      track(this.work, work);
    });
  }

  /**
   * Open the standalone GET stream on `headers` (what waited for a stream goes first), or null when one
   * is open already (one per session).
   */
  openStream(headers: Headers): Response | null {
    if (this.#standalone !== null && !this.#standalone.closed) return null;
    const stream: EventStream = new EventStream(headers, (why) => {
      if (this.#standalone === stream) this.#standalone = null;
      if (why === "not_reading") this.#log(`session ${this.label}: dropped a GET stream nobody read`);
    }, this.#streamQueueBytes);
    this.#standalone = stream;
    this.#flushPending(stream);
    return stream.response;
  }

  /** Server-initiated messages: the GET stream, else an open POST stream, else kept for the next one. */
  send(json: string): void {
    if (this.#standalone?.send(json)) return;
    for (const stream of this.#postStreams) if (stream.send(json)) return;
    if (this.#pending.length >= MAX_PENDING_OUT) {
      this.#pending.shift();
      this.#log(`session ${this.label}: dropped a server message no stream could carry`);
    }
    this.#pending.push(json);
  }

  /** Send what waited for a stream on `stream`, as much as its queue takes (the rest keeps waiting). */
  #flushPending(stream: EventStream): void {
    while (this.#pending.length > 0 && stream.offer(this.#pending[0])) this.#pending.shift();
  }

  /** Whether a call is being handled (such a session is never evicted). */
  get busy(): boolean {
    return this.running > 0;
  }

  /** End the server (calls cancelled, close hooks run) and every stream. Idempotent. */
  close(reason: string): Promise<void> {
    this.closing ??= (async () => {
      await this.server.close(reason);
      this.server.connect(null);
      this.#standalone?.close();
      for (const stream of this.#postStreams) stream.close();
    })();
    return this.closing;
  }
}

/** Whether a JSON-RPC answer is the core's refusal of an unparsable or malformed message (id null). */
function parseFailed(json: string): boolean {
  return json.startsWith('{"jsonrpc":"2.0","id":null,"error"');
}

/** A short, non-secret label for a session id in logs: 8 hex digits of its SHA-256. */
export async function sessionLabel(id: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(id)));
  return [...digest.subarray(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** What a {@link HttpSessions} table is made of: its caps, and what each new session needs. */
export interface HttpSessionsInit {
  maxSessions: number;
  maxSessionsPerClient: number;
  /** A session unused (no request but `ping`) this long may be ended to make room at a cap. */
  evictableAfterMs: number;
  /** A fresh server for each new session. */
  createServer: () => McpServer;
  /** A fresh, unguessable session id. */
  newId: () => string;
  /** The clock. */
  now: () => number;
  /** Diagnostics sink. */
  log: (message: string) => void;
  /** Bytes an event stream may hold unread before it is dropped. */
  streamQueueBytes: number;
}

/** Why a new session cannot be opened now. */
export type NoRoom = { kind: "full"; message: string };

/**
 * The live sessions and their whole life: opening one under the caps (ending the least recently useful
 * session to make room), looking one up by id, ending one, expiring idle ones, ending all at shutdown.
 */
export class HttpSessions {
  readonly #sessions = new Map<string, HttpSession>();
  readonly #init: HttpSessionsInit;

  constructor(init: HttpSessionsInit) {
    this.#init = init;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): HttpSession | undefined {
    return this.#sessions.get(id);
  }

  /** Why `client` could not open a session now, or null when it could (nothing is ended to say so). */
  wouldRefuse(client: string): NoRoom | null {
    return this.#makeRoom(client);
  }

  /**
   * Open a session for `client`, its server fresh, making room at a cap (decided now: other sessions may
   * have opened since {@link wouldRefuse} said yes); why not when there is no room.
   */
  async open(client: string): Promise<HttpSession | NoRoom> {
    const { newId, createServer, now, log, streamQueueBytes } = this.#init;
    const id = newId();
    const label = await sessionLabel(id);
    const full = this.#makeRoom(client, (victim, reason) => void this.end(victim, reason));
    if (full !== null) return full;
    const session = new HttpSession({
      id,
      label,
      client,
      server: createServer(),
      now,
      log,
      streamQueueBytes,
    });
    this.#sessions.set(session.id, session);
    log(`session ${label} started`);
    return session;
  }

  /** End `session` (calls cancelled, close hooks run) and drop it; logged once it is all gone. */
  async end(session: HttpSession, reason: string): Promise<void> {
    this.#delete(session);
    try {
      await session.close(reason);
    } finally {
      // Said once the session's calls are stopped and its files removed, so the line means it is all gone.
      this.#init.log(`session ${session.label} ended (${reason})`);
    }
  }

  /** End every session idle since `limit` (nothing running, no request). */
  expire(limit: number): void {
    for (const session of this.#sessions.values()) {
      if (session.idleSince(limit)) void this.end(session, "idle");
    }
  }

  /** Every session's handling promises, for shutdown to wait on. */
  work(): Promise<unknown>[] {
    return [...this.#sessions.values()].flatMap((s) => [...s.work]);
  }

  /** End every session. */
  endAll(reason: string): Promise<void>[] {
    return [...this.#sessions.values()].map((s) => this.end(s, reason));
  }

  #delete(session: HttpSession): void {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
  }

  /**
   * Make room for one more session of `client`: null when there is room (after choosing, in `evict`,
   * the sessions to end), else why not. At a cap, the least recently useful session that is not busy and
   * has been unused for {@link HttpSessionsInit.evictableAfterMs} is ended: the client's own at its quota,
   * anyone's at the overall cap. Without `evict`, only says whether there would be room.
   */
  #makeRoom(client: string, evict?: (session: HttpSession, reason: string) => void): NoRoom | null {
    const { maxSessions, maxSessionsPerClient } = this.#init;
    const all = [...this.#sessions.values()].filter((s) => s.closing === null);
    const mine = all.filter((s) => s.client === client);
    // A quota as large as the cap is no quota: the cap's rule (below) decides.
    if (maxSessionsPerClient < maxSessions && mine.length >= maxSessionsPerClient) {
      const victim = this.#leastUseful(mine);
      if (victim === null) {
        return { kind: "full", message: `${maxSessionsPerClient} sessions of this client are open` };
      }
      if (evict !== undefined) {
        this.#delete(victim);
        evict(victim, "its client's session quota was reached and it was unused longest");
      }
      return null;
    }
    if (all.length >= maxSessions) {
      const victim = this.#leastUseful(all);
      if (victim === null) return { kind: "full", message: `${maxSessions} sessions are open` };
      if (evict !== undefined) {
        this.#delete(victim);
        evict(victim, "the session cap was reached and it was unused longest");
      }
    }
    return null;
  }

  #leastUseful(candidates: HttpSession[]): HttpSession | null {
    const before = this.#init.now() - this.#init.evictableAfterMs;
    let pick: HttpSession | null = null;
    for (const session of candidates) {
      if (session.busy || session.lastUseful > before) continue;
      if (pick === null || session.lastUseful < pick.lastUseful) pick = session;
    }
    return pick;
  }
}
