/**
 * The inflate threads of one preparation pass, taken on first need (small containers never take them) and
 * given back at the end of the pass, before any template converts: the run's shared threads when it has
 * them, else threads started for the pass.
 *
 * @example
 * ```ts
 * import { ContainerThreads, containerWorkerCount } from "./threads.ts";
 * import assert from "node:assert/strict";
 * const env = { parallel: null }; // a serial run: no inflate threads
 * const threads = new ContainerThreads(containerWorkerCount(env));
 * try {
 *   const pool = await threads.pool(); // the calling-thread pool here; started threads with a count of 2+
 *   assert.equal(pool, threads.local);
 *   assert.equal(threads.available, false);
 * } finally {
 *   await threads.close();
 * }
 * ```
 * @module
 */

import { InflatePool } from "./pool.ts";
import type { WorkerSet } from "../worker_set.ts";

/** How many inflate threads a run wants (see `RunEnv.containerWorkers`). */
export function containerWorkerCount(
  env: { containerWorkers?: number; parallel?: unknown },
): number {
  if (env.containerWorkers !== undefined) return env.containerWorkers;
  if (env.parallel === null || env.parallel === undefined) return 0;
  return Math.max(1, Math.floor(globalThis.navigator?.hardwareConcurrency ?? 1));
}

/** Lazily started inflate threads. */
export class ContainerThreads {
  readonly #count: number;
  readonly #set: WorkerSet | null;
  #pool: Promise<InflatePool> | null = null;
  /** The calling-thread pool, for members too small for threads. */
  readonly local: InflatePool = InflatePool.local();

  /**
   * `count`: inflating threads when first asked (0 or 1: none), the calling thread one of them; `set`: the
   * run's shared threads, used instead of starting new ones when given.
   */
  constructor(count: number, set: WorkerSet | null = null) {
    this.#count = count;
    this.#set = set;
  }

  /** True when threads would be started. */
  get available(): boolean {
    return this.#count >= 2;
  }

  /** The threaded pool (the calling-thread pool when threads are not available or cannot start). */
  pool(): Promise<InflatePool> {
    if (!this.available) return Promise.resolve(this.local);
    return this.#pool ??= InflatePool.start(this.#count, this.#set);
  }

  /** Stops the threads, if started (shared ones go back to their set). */
  async close(): Promise<void> {
    if (this.#pool !== null) (await this.#pool).close();
  }
}
