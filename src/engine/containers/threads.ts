/**
 * The inflate threads of one preparation pass, started on first need (small containers never start them)
 * and stopped at the end of the pass, before any template converts.
 *
 * @example
 * ```ts ignore
 * const threads = new ContainerThreads(containerWorkerCount(env));
 * try {
 *   const pool = await threads.pool();
 * } finally {
 *   threads.close();
 * }
 * ```
 * @module
 */

import { InflatePool } from "./pool.ts";

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
  #pool: Promise<InflatePool> | null = null;
  /** The calling-thread pool, for members too small for threads. */
  readonly local: InflatePool = InflatePool.local();

  /** `count`: threads to start when first asked (0 or 1: none). */
  constructor(count: number) {
    this.#count = count;
  }

  /** True when threads would be started. */
  get available(): boolean {
    return this.#count >= 2;
  }

  /** The threaded pool (the calling-thread pool when threads are not available or cannot start). */
  pool(): Promise<InflatePool> {
    if (!this.available) return Promise.resolve(this.local);
    return this.#pool ??= InflatePool.start(this.#count);
  }

  /** Stops the threads, if started. */
  async close(): Promise<void> {
    if (this.#pool !== null) (await this.#pool).close();
  }
}
