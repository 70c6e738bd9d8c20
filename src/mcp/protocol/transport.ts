/**
 * The seam between the server core ({@link TransportServer}, which `McpServer` implements) and the
 * transports that carry its messages (stdio, each HTTP session). The core knows only this file: no
 * stream, no request, no event stream.
 *
 * Modelled on the MCP TypeScript SDK's `Transport` (`shared/transport.ts`: `start`, `send`, `close`,
 * `onmessage`, `onclose`, `onerror`), but shaped to what our two transports need, for three reasons:
 *
 * - Answers travel with the message, not through `send`. An HTTP POST is answered on its own response
 *   (a JSON body, or an event stream its first notification opens), and a 2026-07-28 POST's request ids
 *   are unique only within that POST; so each incoming message is handed over with its own reply
 *   {@link Send} (and a scope), where the SDK routes one `send` by `relatedRequestId`. What is left for
 *   {@link Transport.send} is what belongs to no incoming message: the server's own requests to the
 *   client (e.g. `roots/list`).
 * - The transport drives, so there is no `onmessage`: it calls {@link TransportServer.handleLine} and
 *   keeps the promise, which settles once the message is fully handled. Stdio's backpressure (messages
 *   and bytes in flight) and an HTTP session's per-session cap, idle expiry and end of a POST all wait
 *   on it; the SDK's `onmessage` returns nothing to wait on.
 * - The transport owns the lifecycle, so there is no `start`, `close`, `onclose` or `onerror`: it
 *   connects the server when it starts serving, ends the session with {@link TransportServer.close}
 *   (its own order: a grace for running calls, close, flush its output) and then disconnects. A read
 *   error is the transport's to log and end on.
 *
 * @module
 */

/** Receives each outgoing message: one complete JSON text without a trailing newline. */
export type Send = (json: string) => void;

/**
 * What `McpServer.setDirectAnswers` turns on (see `DirectAnswer` in `server.ts`): the transport's terms
 * for direct answers.
 */
export interface DirectAnswers {
  /** Longest line, newline included, another thread may write. */
  readonly maxLineBytes: number;
  /** The lock every writer of the output holds for a whole line (see `output_lock.ts`). */
  readonly outputLock: Int32Array;
}

/**
 * What the server core needs of a transport while connected to it ({@link TransportServer.connect}).
 *
 * @example
 * ```ts
 * import type { Transport } from "./transport.ts";
 * import assert from "node:assert/strict";
 * const out: string[] = [];
 * const transport: Transport = { send: (json) => void out.push(json) };
 * transport.send('{"jsonrpc":"2.0","id":1,"method":"roots/list"}');
 * assert.equal(out.length, 1);
 * ```
 */
export interface Transport {
  /**
   * Carry a server-initiated message that answers no incoming one (a request to the client): one JSON
   * text without newline. Never throws: a transport that cannot carry it now queues or drops it.
   */
  send(json: string): void;
  /**
   * Terms on which other threads may write tool answers straight to the output (stdio, when its output
   * is the process's stdout), or null/absent: answers then come back through the server.
   */
  readonly directAnswers?: DirectAnswers | null;
}

/** What a transport needs of the server core; `McpServer` implements it. */
export interface TransportServer {
  /**
   * Send server-initiated messages through `transport` from now on (and take its direct-answer terms),
   * or through nothing (null) once the transport stops serving.
   */
  connect(transport: Transport | null): void;
  /**
   * Handle one incoming message; its answers, and the notifications of its work, go to `reply`. `scope`
   * names where its request ids are unique (one HTTP POST); without it they are the connection's. The
   * promise settles once the message is fully handled; it never rejects.
   */
  handleLine(line: string, reply?: Send, scope?: string): Promise<void>;
  /** End the session: running calls cancelled, close hooks run. Idempotent. */
  close(reason: string): Promise<void>;
}
