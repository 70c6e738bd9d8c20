/**
 * Requests this server sends to its client (`roots/list`, ...): ids of our own, a time limit on every
 * request, and the client's responses matched back to the caller. The client is a peer, not a trusted
 * party, so an unknown or malformed response is ignored and a silent client costs at most the timeout.
 *
 * @module
 */

import type { WireId } from "./jsonrpc.ts";

/** Default time a request to the client may take before it fails with reason `"timeout"`. */
export const DEFAULT_PEER_REQUEST_TIMEOUT_MS = 10_000;

/** Why a request to the client did not produce a result. */
export type PeerFailure = "error" | "timeout" | "closed" | "no_output";

/** A request to the client failed: an error response, no answer in time, or the session ended. */
export class PeerRequestError extends Error {
  /** What went wrong. */
  readonly reason: PeerFailure;
  /** The JSON-RPC error code of an error response, else null. */
  readonly code: number | null;

  /** Create the error. */
  constructor(reason: PeerFailure, message: string, code: number | null = null) {
    super(message);
    this.name = "PeerRequestError";
    this.reason = reason;
    this.code = code;
  }
}

interface Pending {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: PeerRequestError) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/**
 * Tracks the requests in flight to the client. Ids are strings of our own (`srv-1`, `srv-2`, ...) so they
 * can never collide with ids the client uses for its requests to us.
 *
 * Here the client's part is played by hand: the sent line is read back and its response settled.
 *
 * @example
 * ```ts
 * import { PeerRequests } from "./peer_requests.ts";
 * import { toWireId } from "./jsonrpc.ts";
 * import assert from "node:assert/strict";
 * const peer = new PeerRequests();
 * const sent: string[] = [];
 * const answer = peer.start("roots/list", undefined, 5_000, (json) => void sent.push(json));
 * const request = JSON.parse(sent[0]);
 * assert.deepEqual(request, { jsonrpc: "2.0", id: "srv-1", method: "roots/list" });
 * // ... when the client's response line arrives:
 * const response = { jsonrpc: "2.0", id: request.id, result: { roots: [] } };
 * assert.equal(peer.settle(toWireId(request.id), response), true);
 * assert.deepEqual(await answer, { roots: [] });
 * assert.equal(peer.size, 0);
 * ```
 */
export class PeerRequests {
  readonly #pending = new Map<string, Pending>();
  #next = 1;
  #closed = false;

  /** Number of requests waiting for the client. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Send a request through `send` and resolve with the client's `result`; rejects with
   * {@link PeerRequestError} on an error response, after `timeoutMs`, or when {@link PeerRequests.close}
   * runs first.
   */
  start(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    send: ((json: string) => void) | null,
  ): Promise<unknown> {
    if (this.#closed) return Promise.reject(new PeerRequestError("closed", "the session has ended"));
    if (send === null) {
      return Promise.reject(new PeerRequestError("no_output", "no transport to send the request on"));
    }
    const id = `srv-${this.#next++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(
          new PeerRequestError("timeout", `the client did not answer '${method}' within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      this.#pending.set(id, { method, resolve, reject, timer });
      const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
      if (params !== undefined) message.params = params;
      try {
        send(JSON.stringify(message));
      } catch (error) {
        this.#finish(id)?.reject(
          new PeerRequestError("no_output", error instanceof Error ? error.message : String(error)),
        );
      }
    });
  }

  /**
   * Route a response-shaped message to its request. Returns false when no request of ours has that id
   * (the caller logs and drops it).
   */
  settle(id: WireId | null, message: Record<string, unknown>): boolean {
    if (id === null || typeof id.value !== "string") return false;
    const pending = this.#finish(id.value);
    if (pending === undefined) return false;
    if (Object.hasOwn(message, "error")) {
      const error = message.error;
      const record = typeof error === "object" && error !== null ? error as Record<string, unknown> : {};
      const code = typeof record.code === "number" ? record.code : null;
      const text = typeof record.message === "string" ? record.message.slice(0, 256) : "error";
      pending.reject(new PeerRequestError("error", `the client refused '${pending.method}': ${text}`, code));
    } else {
      pending.resolve(message.result);
    }
    return true;
  }

  /** Fail every waiting request with reason `"closed"`; later requests fail at once. */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#pending.keys()]) {
      this.#finish(id)?.reject(new PeerRequestError("closed", "the session has ended"));
    }
  }

  #finish(id: string): Pending | undefined {
    const pending = this.#pending.get(id);
    if (pending === undefined) return undefined;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    return pending;
  }
}
