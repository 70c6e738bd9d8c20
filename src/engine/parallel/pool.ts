/**
 * A small pool of block workers. Blocks go out round-robin; each worker answers in the order it received
 * work, so callers that await results in submission order see the file's order.
 *
 * @example
 * ```ts
 * import { BlockPool } from "./pool.ts";
 * import { loadConfig } from "../../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h] & '!'"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const context = { template: config.templates[0], globalMaps: config.maps, columnNames: ["h"], stem: "a",
 *   dateMin: "", dateMax: "", debug: false, trace: false, sourceName: "a.csv", lookups: null };
 * // 1: the calling thread alone; a run's pool is `new BlockPool(n, workerSet)`, n - 1 of them worker threads.
 * const pool = new BlockPool(1);
 * try {
 *   pool.setFile(context);
 *   const bytes = new TextEncoder().encode("x\ny\n");
 *   const result = await pool.submit({ kind: "main", bytes, baseOffset: 2, baseRecord: 0, last: true });
 *   assert.equal(new TextDecoder().decode(result.out), "x!\ny!\n");
 * } finally {
 *   pool.close();
 * }
 * ```
 * @module
 */

import {
  type BlockJob,
  type BlockResult,
  type FileContext,
  isFatalBlockFailure,
  type WorkerRequest,
  type WorkerResponse,
} from "./protocol.ts";
import { BlockSession } from "./block_eval.ts";
import { ENGINE_WORKER_URL, type WorkerLease, type WorkerSet } from "../worker_set.ts";
import type { InflateRequest, InflateResponse } from "../containers/protocol.ts";
import { WorkerRamp } from "./worker_ramp.ts";
import { RunStopped, type StopCheck } from "../host.ts";

/**
 * A worker failed on a block; `fatal` marks a data problem the run must report (a line too long, a `$date`
 * the filename filter cannot compare).
 */
export class BlockError extends Error {
  readonly fatal: boolean;
  /**
   * A fatal block's trace frames up to the failing record, or null: the serial pass has written them when it
   * stops, so the run's trace file holds them too.
   */
  readonly trace: Uint8Array | null;
  constructor(message: string, fatal: boolean, trace: Uint8Array | null = null) {
    super(message);
    this.name = "BlockError";
    this.fatal = fatal;
    this.trace = trace;
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
  /** The run's stop check: asked before each block and, inside it, before each record. */
  readonly #stop: StopCheck | null;

  constructor(stop: StopCheck | null) {
    this.#stop = stop;
  }
  #queue: { job: BlockJob; done: Pending }[] = [];
  #scheduled = false;
  /** Told the size and duration of each block evaluated here (the pool's ramp forecasts from them). */
  onTimed: ((bytes: number, ms: number) => void) | null = null;

  setFile(context: FileContext): void {
    // Applied in order with the blocks already queued for the previous file.
    this.#queue.push({
      job: null as unknown as BlockJob,
      done: { resolve: () => this.#session = new BlockSession(context, this.#stop), reject: () => {} },
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
        if (this.#stop?.requested()) throw new RunStopped();
        const bytes = item.job.bytes.length;
        const started = performance.now();
        const result = this.#session.run(item.job);
        this.onTimed?.(bytes, performance.now() - started);
        item.done.resolve(result);
      } catch (err) {
        const fatal = isFatalBlockFailure(err);
        item.done.reject(
          err instanceof RunStopped ? err : new BlockError(
            (err as Error).message,
            fatal,
            fatal ? this.#session?.takeTrace() ?? null : null,
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

/**
 * A ramped pool starts its workers with a pass at least this large, before its forecast: at the calling
 * thread's fastest measured rate (a pass-through config) such a pass is still well over the usual join
 * threshold, so the threads will be wanted, and loading them early saves the calling thread from waiting
 * for them later. Below it, threads start only when the forecast says so: a thread loading beside a short
 * run slowed a 14 MB conversion by about 60 ms on two cores.
 */
const PRESTART_BYTES = 64 * 1024 * 1024;

/** Block workers sharing one file context at a time; one slot runs on the calling thread. */
export class BlockPool {
  readonly size: number;
  readonly #workers: Worker[] = [];
  /** Blocks submitted to each worker and not answered yet. */
  readonly #load: number[] = [];
  /** Whether each worker has loaded (answered its ping); only a ready worker is given blocks. */
  readonly #ready: boolean[] = [];
  readonly #local: LocalSlot;
  readonly #pending = new Map<number, Pending & { worker: number }>();
  #id = 0;
  #onWorkers = 0;
  /** Whether workers take blocks: from the start for an eager pool, else once a pass's ramp says so. */
  #joined: boolean;
  /** The current pass's forecast while the workers have not joined. */
  #ramp: WorkerRamp | null = null;
  readonly #joinAfterMs: number | null;
  /** The current file's context, for workers that start during it. */
  #context: FileContext | null = null;
  readonly #set: WorkerSet | null;
  /** The run's shared threads while this pool holds them (null: none, or the pool started its own). */
  #lease: WorkerLease | null = null;

  /**
   * `size` evaluators in all: `size - 1` worker threads plus the calling thread. The threads are the run's
   * `set` when it is free (the preparation passes have given them back), else the pool starts its own.
   *
   * `joinAfterMs` null starts the workers with the pool and gives them blocks from the first one on.
   * Otherwise each pass starts on the calling thread alone and the workers join once its own timing
   * forecasts at least that many ms of remaining work (see `worker_ramp.ts`). They start then (or when a
   * pass is large enough that they will surely join, see {@link BlockPool.setFile}), and a worker takes
   * blocks only once it has loaded, so the calling thread never waits on a thread still starting.
   *
   * `stop`: asked before each block the calling thread evaluates and before each of its records, which
   * then fail with `RunStopped` (the calling thread runs no signal handler while it evaluates).
   */
  constructor(
    size: number,
    set: WorkerSet | null = null,
    joinAfterMs: number | null = null,
    stop: StopCheck | null = null,
  ) {
    this.size = size;
    this.#local = new LocalSlot(stop);
    this.#set = set;
    this.#joinAfterMs = joinAfterMs;
    this.#joined = joinAfterMs === null;
    if (this.#joined) this.#startWorkers();
  }

  /** Whether the workers take blocks now (false while a pass runs on the calling thread alone). */
  get joined(): boolean {
    return this.#joined;
  }

  /** Blocks given to worker threads so far (the rest ran on the calling thread). */
  get blocksOnWorkers(): number {
    return this.#onWorkers;
  }

  /** Worker threads this pool has started or leased. */
  get workersStarted(): number {
    return this.#workers.length;
  }

  /** Leases (or starts) the workers; a ramped pool's workers wait for their ping answers before taking blocks. */
  #startWorkers(): void {
    const handshake = !this.#joined;
    this.#lease = this.#set?.lease() ?? null;
    const workers = this.#lease?.workers.slice(0, this.size - 1) ?? [];
    while (workers.length < this.size - 1) workers.push(new Worker(ENGINE_WORKER_URL, { type: "module" }));
    for (const w of workers) {
      const index = this.#workers.length;
      w.onmessage = (e: MessageEvent<WorkerResponse | InflateResponse>) => {
        if (e.data.type === "ready") this.#ready[index] = true;
        else this.#answer(e.data);
      };
      w.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        this.#failAll(new BlockError(`block worker failed: ${e.message}`, false));
      };
      this.#workers.push(w);
      this.#load.push(0);
      this.#ready.push(!handshake);
      // The engine worker answers a ping once its module has loaded (see worker.ts).
      if (handshake) w.postMessage({ type: "ping" } satisfies InflateRequest);
      if (this.#context !== null) {
        w.postMessage({ type: "file", context: this.#context } satisfies WorkerRequest);
      }
    }
  }

  /**
   * Sends the next file's context to every worker (ordered before that file's blocks). `passBytes`: the
   * input this pass reads; a ramped pool starts its workers right away when the pass is at least
   * {@link PRESTART_BYTES}, so they have loaded by the time the forecast lets them join.
   */
  setFile(context: FileContext, passBytes = 0): void {
    this.#context = context;
    const msg: WorkerRequest = { type: "file", context };
    for (const w of this.#workers) w.postMessage(msg);
    this.#local.setFile(context);
    if (!this.#joined && this.size > 1) {
      // Each pass forecasts afresh: a pre_pass and its main pass differ in cost per byte.
      const ramp = new WorkerRamp(this.#joinAfterMs!);
      this.#ramp = ramp;
      this.#local.onTimed = (bytes, ms) => ramp.observe(bytes, ms);
      if (passBytes >= PRESTART_BYTES && this.#workers.length === 0) this.#startWorkers();
    }
  }

  /**
   * Evaluates a block on the least busy ready worker, or on the calling thread when every worker already
   * holds {@link WORKER_DEPTH} blocks (or none has started). Nothing is transferred: a block's bytes and
   * its output buffer are shared with the worker when they are views over a `SharedArrayBuffer` (the
   * recycled ones, see recycler.ts; the caller must not touch them until the result is in), else copied.
   * `remainingBytes`: input of this pass after the block, for a ramped pool's forecast.
   */
  submit(job: BlockJob, remainingBytes = 0): Promise<BlockResult> {
    if (this.#ramp?.shouldJoin(remainingBytes)) {
      this.#ramp = null;
      this.#local.onTimed = null;
      this.#joined = true;
      if (this.#workers.length === 0) this.#startWorkers();
    }
    const id = this.#id++;
    let slot = -1;
    for (let i = 0; this.#joined && i < this.#load.length; i++) {
      if (!this.#ready[i] || this.#load[i] >= WORKER_DEPTH) continue;
      if (slot < 0 || this.#load[i] < this.#load[slot]) slot = i;
    }
    if (slot < 0) {
      return new Promise((resolve, reject) => this.#local.submit(job, { resolve, reject }));
    }
    const worker = this.#workers[slot];
    this.#load[slot]++;
    this.#onWorkers++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, worker: slot });
      const msg: WorkerRequest = { type: "block", id, job };
      worker.postMessage(msg);
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

  #answer(msg: WorkerResponse | InflateResponse): void {
    // A shared thread may still answer an inflate session the previous pass abandoned.
    if (msg.type !== "result" && msg.type !== "error") return;
    const p = this.#pending.get(msg.id);
    if (p === undefined) return;
    this.#pending.delete(msg.id);
    this.#load[p.worker]--;
    if (msg.type === "result") p.resolve(msg.result);
    else p.reject(new BlockError(msg.message, msg.fatal, msg.trace ?? null));
  }

  #failAll(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    this.#load.fill(0);
  }
}
