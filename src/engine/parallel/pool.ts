/**
 * A small pool of block workers. Blocks go out round-robin; each worker answers in the order it received
 * work, so callers that await results in submission order see the file's order.
 *
 * @example
 * ```ts ignore
 * const pool = new BlockPool(2, workerSet); // or without a set: threads of its own
 * pool.setFile(context);
 * const result = await pool.submit(job);
 * pool.close();
 * ```
 * @module
 */

import type { BlockJob, BlockResult, FileContext, WorkerRequest, WorkerResponse } from "./protocol.ts";
import { BlockSession } from "./block_eval.ts";
import { ENGINE_WORKER_URL, type WorkerLease, type WorkerSet } from "../worker_set.ts";

/**
 * A worker failed on a block; `fatal` marks a data problem the run must report (a line too long, a `$date`
 * the filename filter cannot compare).
 */
export class BlockError extends Error {
  readonly fatal: boolean;
  constructor(message: string, fatal: boolean) {
    super(message);
    this.name = "BlockError";
    this.fatal = fatal;
  }
}

/**
 * The next macrotask: `setImmediate` where the runtime has it (Deno), else a zero timer (a browser page), so
 * the core stays importable anywhere. A chain of timers is clamped to 4 ms each after five, which left the
 * calling thread idle between blocks of a few ms each; an immediate still runs after pending I/O.
 */
const nextTask: (run: () => void) => void = (() => {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate;
  return immediate === undefined ? (run) => void setTimeout(run, 0) : (run) => void immediate(run);
})();

interface Pending {
  resolve: (r: BlockResult) => void;
  reject: (e: Error) => void;
}

/**
 * Evaluates blocks on the calling thread, one per macrotask, so the thread keeps reading and writing between
 * blocks. It takes a share of the work without the memory of another isolate.
 */
class LocalSlot {
  #session: BlockSession | null = null;
  #queue: { job: BlockJob; done: Pending }[] = [];
  #scheduled = false;

  setFile(context: FileContext): void {
    // Applied in order with the blocks already queued for the previous file.
    this.#queue.push({
      job: null as unknown as BlockJob,
      done: { resolve: () => this.#session = new BlockSession(context), reject: () => {} },
    });
    this.#schedule();
  }

  submit(job: BlockJob, done: Pending): void {
    this.#queue.push({ job, done });
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    nextTask(this.#runSoon);
  }

  /**
   * Runs the block in a microtask of the macrotask, not in the macrotask's callback itself: a throw inside
   * a timer's or an immediate's callback costs this runtime about 5 µs, against 0.3 µs in a microtask
   * (measured; V8 seems to keep each throw's place and stack for the callback's caller), and an expression
   * failing on every row throws once a row.
   */
  readonly #runSoon = (): void => queueMicrotask(this.#runOne);

  readonly #runOne = (): void => {
    this.#scheduled = false;
    const item = this.#queue.shift();
    if (item === undefined) return;
    if (item.job === null) {
      item.done.resolve(null as unknown as BlockResult);
    } else {
      try {
        if (this.#session === null) throw new Error("block before file context");
        item.done.resolve(this.#session.run(item.job));
      } catch (err) {
        item.done.reject(
          new BlockError(
            (err as Error).message,
            err instanceof Error &&
              (err.name === "CsvRecordTooLongError" || err.name === "UncomparableDateError"),
          ),
        );
      }
    }
    if (this.#queue.length > 0) this.#schedule();
  };
}

/**
 * Blocks a worker may hold before the calling thread takes one itself. The calling thread also reads,
 * applies results and writes, so it evaluates only what the workers cannot take right now. Three keep a
 * worker busy through a few milliseconds of the calling thread being descheduled on a shared machine.
 */
const WORKER_DEPTH = 3;

/** Block workers sharing one file context at a time; one slot runs on the calling thread. */
export class BlockPool {
  readonly size: number;
  readonly #workers: Worker[] = [];
  /** Blocks submitted to each worker and not answered yet. */
  readonly #load: number[] = [];
  readonly #local = new LocalSlot();
  readonly #pending = new Map<number, Pending & { worker: number }>();
  #id = 0;

  /** The run's shared threads while this pool holds them (null: the pool started its own). */
  readonly #lease: WorkerLease | null;

  /**
   * `size` evaluators in all: `size - 1` worker threads plus the calling thread. The threads are the run's
   * `set` when it is free (the preparation passes have given them back), else the pool starts its own.
   */
  constructor(size: number, set: WorkerSet | null = null) {
    this.size = size;
    this.#lease = set?.lease() ?? null;
    const workers = this.#lease?.workers.slice(0, size - 1) ?? [];
    while (workers.length < size - 1) workers.push(new Worker(ENGINE_WORKER_URL, { type: "module" }));
    for (const w of workers) {
      w.onmessage = (e: MessageEvent<WorkerResponse>) => this.#answer(e.data);
      w.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        this.#failAll(new BlockError(`block worker failed: ${e.message}`, false));
      };
      this.#workers.push(w);
      this.#load.push(0);
    }
  }

  /** Sends the next file's context to every worker (ordered before that file's blocks). */
  setFile(context: FileContext): void {
    const msg: WorkerRequest = { type: "file", context };
    for (const w of this.#workers) w.postMessage(msg);
    this.#local.setFile(context);
  }

  /**
   * Evaluates a block on the least busy worker, or on the calling thread when every worker already holds
   * {@link WORKER_DEPTH} blocks; a worker's block bytes (and its output buffer) are transferred.
   */
  submit(job: BlockJob): Promise<BlockResult> {
    const id = this.#id++;
    let slot = -1;
    for (let i = 0; i < this.#load.length; i++) {
      if (this.#load[i] < WORKER_DEPTH && (slot < 0 || this.#load[i] < this.#load[slot])) slot = i;
    }
    if (slot < 0) {
      return new Promise((resolve, reject) => this.#local.submit(job, { resolve, reject }));
    }
    const worker = this.#workers[slot];
    this.#load[slot]++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, worker: slot });
      const msg: WorkerRequest = { type: "block", id, job };
      const transfer = [job.bytes.buffer as ArrayBuffer];
      if (job.out != null && job.out.buffer !== job.bytes.buffer) {
        transfer.push(job.out.buffer as ArrayBuffer);
      }
      worker.postMessage(msg, transfer);
    });
  }

  /** Stops the pool's own workers and gives shared ones back to their set. */
  close(): void {
    const shared = new Set(this.#lease?.workers ?? []);
    for (const w of this.#workers) {
      if (!shared.has(w)) w.terminate();
    }
    this.#lease?.release();
    this.#failAll(new BlockError("block pool closed", false));
  }

  #answer(msg: WorkerResponse): void {
    // A shared thread may still answer an inflate session the previous pass abandoned.
    if (msg.type !== "result" && msg.type !== "error") return;
    const p = this.#pending.get(msg.id);
    if (p === undefined) return;
    this.#pending.delete(msg.id);
    this.#load[p.worker]--;
    if (msg.type === "result") p.resolve(msg.result);
    else p.reject(new BlockError(msg.message, msg.fatal));
  }

  #failAll(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    this.#load.fill(0);
  }
}
