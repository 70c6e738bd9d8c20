/**
 * The sessions of the Streamable HTTP transport: one {@link McpServer} each, the streams that carry its
 * server-to-client messages, and the table that caps them (all sessions, and each client's: a client is
 * its remote address) and makes room at the cap by ending the least recently useful session (a `ping`
 * is not use: a client pinging every session it holds must not keep everyone else out).
 *
 * Session ids are the only credential a client holds besides the token, so logs name a session by a
 * short label (a hash of its id), never by the id.
 *
 * @module
 */

import type { McpServer } from "./server.ts";
import { EventStream } from "./http_stream.ts";

/** Server-to-client messages kept for a session while no stream is open to carry them. */
const MAX_PENDING_OUT = 256;

/** One MCP session over HTTP. */
export class HttpSession {
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
  /** The standalone GET stream, if the client opened one. */
  standalone: EventStream | null = null;
  /** POST event streams still open (they carry server requests while no GET stream is open). */
  readonly postStreams = new Set<EventStream>();
  /** Server-to-client messages waiting for a stream. */
  readonly pending: string[] = [];
  /** The session's handling promises (settled), for shutdown. */
  readonly work = new Set<Promise<unknown>>();
  closing: Promise<void> | null = null;
  readonly #log: (message: string) => void;

  constructor(
    id: string,
    label: string,
    client: string,
    server: McpServer,
    now: number,
    log: (message: string) => void,
  ) {
    this.id = id;
    this.label = label;
    this.client = client;
    this.server = server;
    this.lastActive = now;
    this.lastUseful = now;
    this.#log = log;
    server.setOutput((json) => this.#sendOut(json));
  }

  /** Server-initiated messages: the GET stream, else an open POST stream, else kept for the next one. */
  #sendOut(json: string): void {
    if (this.standalone?.send(json)) return;
    for (const stream of this.postStreams) if (stream.send(json)) return;
    if (this.pending.length >= MAX_PENDING_OUT) {
      this.pending.shift();
      this.#log(`session ${this.label}: dropped a server message no stream could carry`);
    }
    this.pending.push(json);
  }

  /** Send what waited for a stream on `stream`, as much as its queue takes (the rest keeps waiting). */
  flushPending(stream: EventStream): void {
    while (this.pending.length > 0 && stream.offer(this.pending[0])) this.pending.shift();
  }

  /** Whether a call is being handled (such a session is never evicted). */
  get busy(): boolean {
    return this.running > 0;
  }

  /** End the server (calls cancelled, close hooks run) and every stream. Idempotent. */
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

/** A short, non-secret label for a session id in logs: 8 hex digits of its SHA-256. */
export async function sessionLabel(id: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(id)));
  return [...digest.subarray(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Limits of a {@link SessionTable}. */
export interface SessionLimits {
  maxSessions: number;
  maxSessionsPerClient: number;
  /** A session unused (no request but `ping`) this long may be ended to make room at a cap. */
  evictableAfterMs: number;
}

/** Why a new session cannot be opened now. */
export type NoRoom = { kind: "full"; message: string };

/** The live sessions, their caps, and the eviction that makes room. */
export class SessionTable {
  readonly #sessions = new Map<string, HttpSession>();
  readonly #limits: SessionLimits;
  readonly #now: () => number;

  constructor(limits: SessionLimits, now: () => number) {
    this.#limits = limits;
    this.#now = now;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): HttpSession | undefined {
    return this.#sessions.get(id);
  }

  values(): HttpSession[] {
    return [...this.#sessions.values()];
  }

  add(session: HttpSession): void {
    this.#sessions.set(session.id, session);
  }

  delete(session: HttpSession): void {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
  }

  /**
   * Make room for one more session of `client`: null when there is room (after choosing, in `evict`,
   * the sessions to end), else why not. At a cap, the least recently useful session that is not busy and
   * has been unused for {@link SessionLimits.evictableAfterMs} is ended: the client's own at its quota,
   * anyone's at the overall cap. Without `evict`, only says whether there would be room.
   */
  makeRoom(client: string, evict?: (session: HttpSession, reason: string) => void): NoRoom | null {
    const { maxSessions, maxSessionsPerClient } = this.#limits;
    const all = [...this.#sessions.values()].filter((s) => s.closing === null);
    const mine = all.filter((s) => s.client === client);
    // A quota as large as the cap is no quota: the cap's rule (below) decides.
    if (maxSessionsPerClient < maxSessions && mine.length >= maxSessionsPerClient) {
      const victim = this.#leastUseful(mine);
      if (victim === null) {
        return { kind: "full", message: `${maxSessionsPerClient} sessions of this client are open` };
      }
      if (evict !== undefined) {
        this.delete(victim);
        evict(victim, "its client's session quota was reached and it was unused longest");
      }
      return null;
    }
    if (all.length >= maxSessions) {
      const victim = this.#leastUseful(all);
      if (victim === null) return { kind: "full", message: `${maxSessions} sessions are open` };
      if (evict !== undefined) {
        this.delete(victim);
        evict(victim, "the session cap was reached and it was unused longest");
      }
    }
    return null;
  }

  #leastUseful(candidates: HttpSession[]): HttpSession | null {
    const before = this.#now() - this.#limits.evictableAfterMs;
    let pick: HttpSession | null = null;
    for (const session of candidates) {
      if (session.busy || session.lastUseful > before) continue;
      if (pick === null || session.lastUseful < pick.lastUseful) pick = session;
    }
    return pick;
  }
}
