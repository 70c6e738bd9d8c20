/**
 * A counting gate: at most `limit` holders at once, the rest wait in arrival order. Waiting can be
 * abandoned through an AbortSignal (a cancelled call leaves the queue without ever taking a slot).
 *
 * @module
 */

interface Waiter {
  grant: () => void;
}

/**
 * A first-come, first-served semaphore.
 *
 * @example
 * ```ts
 * import { Gate } from "./gate.ts";
 * import assert from "node:assert/strict";
 * const gate = new Gate(2);
 * const done: string[] = [];
 * const release = await gate.acquire(AbortSignal.timeout(1000));
 * try {
 *   done.push("work");
 * } finally {
 *   release();
 * }
 * assert.deepEqual(done, ["work"]);
 * ```
 */
export class Gate {
  readonly limit: number;
  #active = 0;
  readonly #waiting: Waiter[] = [];

  /** A gate admitting `limit` (at least 1) holders at once. */
  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  /** Holders right now. */
  get active(): number {
    return this.#active;
  }

  /** Callers waiting right now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Wait for a slot; resolves with the function that gives it back (call it exactly once). Rejects with
   * the signal's reason, without taking a slot, when `signal` fires first.
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.limit && this.#waiting.length === 0) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          this.#active++;
          resolve(this.#releaser());
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at !== -1) this.#waiting.splice(at, 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      const next = this.#waiting.shift();
      if (next !== undefined) next.grant();
    };
  }
}

/**
 * Hold a slot of every gate in `gates`, taken in order (the same order everywhere, so no two callers can
 * deadlock). Resolves with the function giving them all back and whether any gate made the caller wait; a
 * signal that fires while waiting gives back what was taken and rejects.
 */
export async function acquireAll(
  gates: readonly Gate[],
  signal: AbortSignal,
): Promise<{ release: () => void; waited: boolean }> {
  const releases: (() => void)[] = [];
  const releaseAll = () => {
    for (const release of releases.reverse()) release();
  };
  let waited = false;
  try {
    for (const gate of gates) {
      // Checked in the same tick as the acquire: a free slot is taken at once.
      if (gate.active >= gate.limit || gate.waiting > 0) waited = true;
      releases.push(await gate.acquire(signal));
    }
  } catch (error) {
    releaseAll();
    throw error;
  }
  return { release: releaseAll, waited };
}
