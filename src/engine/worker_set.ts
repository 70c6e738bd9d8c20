/**
 * A run's worker threads, one per extra core, shared by its passes one after another: the preparation
 * passes inflate container members on them, then the block pool evaluates on them. Before, each pass
 * started isolates of its own, and a terminated inflate worker left its memory behind for the rest of
 * the run (about 8 MB of peak RSS on a zip input).
 *
 * One user holds the threads at a time ({@link WorkerSet.lease}); a second asking meanwhile gets none and
 * starts or inflates on its own, so sharing never makes a run wait or fail. The threads run the engine
 * worker (`worker.ts`), which answers both message families; session and block ids never collide
 * because each family's answers carry their own types.
 *
 * @example
 * ```ts
 * import { WorkerSet } from "./worker_set.ts";
 * import assert from "node:assert/strict";
 * // A run's set runs the engine worker (the default URL); a one-line echo worker keeps this example quick.
 * const echo = new URL("data:text/javascript,self.onmessage = (e) => self.postMessage(e.data);");
 * const set = new WorkerSet(1, echo); // a run: navigator.hardwareConcurrency - 1
 * try {
 *   const lease = set.lease()!;
 *   assert.equal(set.lease(), null); // one user at a time: a second one goes without
 *   const answer = new Promise((resolve) => lease.workers[0].onmessage = (e) => resolve(e.data));
 *   lease.workers[0].postMessage({ type: "ping" });
 *   assert.deepEqual(await answer, { type: "ping" });
 *   lease.release();
 * } finally {
 *   set.close();
 * }
 * ```
 * @module
 */

/** The engine worker module every thread of a set runs. */
export const ENGINE_WORKER_URL: URL = new URL("./worker.ts", import.meta.url);

/** The threads lent to one user until it releases them. */
export interface WorkerLease {
  readonly workers: readonly Worker[];
  /** `worker` failed: it is stopped, and a fresh one takes its place at the next lease. */
  retire(worker: Worker): void;
  /** Gives the threads back (their handlers are cleared); safe to call twice. */
  release(): void;
}

/** Worker threads started on first lease and stopped by {@link WorkerSet.close}. */
export class WorkerSet {
  readonly count: number;
  readonly #url: URL;
  #workers: Worker[] | null = null;
  #leased = false;
  #closed = false;
  #started = 0;

  /** `count` threads (0: none; every lease is then empty). */
  constructor(count: number, url: URL = ENGINE_WORKER_URL) {
    this.count = Math.max(0, count);
    this.#url = url;
  }

  /**
   * The threads for one user, or null while another holds them (or after close). A thread that cannot
   * start (a bundle without the worker module) is left out, so a lease may hold fewer than `count`.
   */
  lease(): WorkerLease | null {
    if (this.#leased || this.#closed) return null;
    const workers = this.#workers ??= [];
    while (workers.length < this.count) {
      try {
        workers.push(new Worker(this.#url, { type: "module" }));
        this.#started++;
      } catch {
        break;
      }
    }
    this.#leased = true;
    let released = false;
    return {
      workers: [...workers],
      retire: (worker) => {
        const at = workers.indexOf(worker);
        if (at >= 0) workers.splice(at, 1);
        worker.terminate();
      },
      release: () => {
        if (released) return;
        released = true;
        for (const w of workers) {
          w.onmessage = null;
          w.onerror = null;
        }
        this.#leased = false;
      },
    };
  }

  /** Threads started over the set's life (a retired one is replaced by a new start). */
  get started(): number {
    return this.#started;
  }

  /** Stops every thread; later leases are null. */
  close(): void {
    this.#closed = true;
    for (const w of this.#workers ?? []) w.terminate();
    this.#workers = null;
  }
}
