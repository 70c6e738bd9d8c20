/**
 * The output lock: one `Int32` word on a SharedArrayBuffer that every thread writing protocol lines to
 * the same output holds for the whole of a line. The stdio transport creates it when other threads may
 * write to its output (see `DirectAnswer` in `server.ts`); its own writer holds it while any of its lines
 * is being written (every retry of a short write included), and a direct writer takes it for its single
 * line. Without it a session line longer than the output's atomic write size (PIPE_BUF on a pipe; none
 * at all on a socket or a file, where short writes are retried) could have a direct line land in its
 * middle: a corrupted JSON-RPC stream.
 *
 * The word holds the owner: {@link OUTPUT_FREE}, {@link OUTPUT_SESSION}, or a direct writer's positive
 * token, so a writer that died holding it can be told apart and released (see {@link unlockOutput}).
 * Taking it never blocks a thread: a direct writer that finds it taken does not wait (it hands its line
 * to the session instead), and the session waits with `Atomics.waitAsync` (see {@link lockOutput}).
 *
 * @module
 */

/** The lock word is free. */
export const OUTPUT_FREE = 0;

/** The lock word's owner while the transport's own writer holds it; direct writers use positive tokens. */
export const OUTPUT_SESSION = -1;

/**
 * A fresh, free output lock (shareable with workers: it travels by reference in `postMessage`).
 *
 * @example
 * ```ts
 * import { createOutputLock, tryLockOutput, unlockOutput } from "./output_lock.ts";
 * import assert from "node:assert/strict";
 * const lock = createOutputLock();
 * assert.equal(tryLockOutput(lock, 7), true);
 * assert.equal(unlockOutput(lock, 7), true);
 * ```
 */
export function createOutputLock(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/**
 * Take `lock` for `owner` if it is free, at once; whether it was taken. Never waits.
 *
 * @example
 * ```ts
 * import { createOutputLock, OUTPUT_SESSION, tryLockOutput } from "./output_lock.ts";
 * import assert from "node:assert/strict";
 * const lock = createOutputLock();
 * assert.equal(tryLockOutput(lock, OUTPUT_SESSION), true);
 * assert.equal(tryLockOutput(lock, 3), false); // the session holds it
 * ```
 */
export function tryLockOutput(lock: Int32Array, owner: number): boolean {
  return Atomics.compareExchange(lock, 0, OUTPUT_FREE, owner) === OUTPUT_FREE;
}

/**
 * Release `lock` if `owner` holds it, waking a session waiting for it; whether it was held by `owner`.
 * Also how a pool releases the lock of a worker it terminated (by that worker's token): a dead owner
 * must not keep the session from writing.
 *
 * @example
 * ```ts
 * import { createOutputLock, unlockOutput } from "./output_lock.ts";
 * import assert from "node:assert/strict";
 * const lock = createOutputLock();
 * assert.equal(unlockOutput(lock, 7), false); // owner 7 does not hold it
 * ```
 */
export function unlockOutput(lock: Int32Array, owner: number): boolean {
  if (Atomics.compareExchange(lock, 0, owner, OUTPUT_FREE) !== owner) return false;
  Atomics.notify(lock, 0);
  return true;
}

/**
 * How long the session waits on one owner before it looks again: a safety net only (a release always
 * notifies), and the timer that keeps the event loop alive, which a pending `Atomics.waitAsync` does not.
 */
const RECHECK_MS = 20;

/**
 * Take `lock` for `owner`, waiting without blocking the thread while another owner holds it (only ever
 * a direct writer, for one short line). Resolves with true once it is held, or with false once `signal`
 * has fired (the lock is then not taken).
 *
 * @example
 * ```ts
 * import { createOutputLock, lockOutput, OUTPUT_SESSION, unlockOutput } from "./output_lock.ts";
 * import assert from "node:assert/strict";
 * const lock = createOutputLock();
 * const written: string[] = [];
 * if (await lockOutput(lock, OUTPUT_SESSION)) {
 *   try {
 *     written.push("the line");
 *   } finally {
 *     unlockOutput(lock, OUTPUT_SESSION);
 *   }
 * }
 * assert.deepEqual(written, ["the line"]);
 * ```
 */
export async function lockOutput(lock: Int32Array, owner: number, signal?: AbortSignal): Promise<boolean> {
  for (;;) {
    if (signal?.aborted) return false;
    const held = Atomics.compareExchange(lock, 0, OUTPUT_FREE, owner);
    if (held === OUTPUT_FREE) return true;
    const waiting = Atomics.waitAsync(lock, 0, held, RECHECK_MS);
    if (!waiting.async) continue; // released in between
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = new Promise<void>((resolve) => timer = setTimeout(resolve, RECHECK_MS));
    await Promise.race([waiting.value, tick]);
    clearTimeout(timer);
  }
}
