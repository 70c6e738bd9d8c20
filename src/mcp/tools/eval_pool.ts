/**
 * A small pool of warm evaluation workers, so one costly request (a `REPLACE` over a huge inline map, a
 * pathological config) cannot freeze the session: each job runs on a worker thread with a time limit, and
 * the time limit or the call's cancellation terminates that worker (a fresh one replaces it). The
 * session thread stays free to answer `ping`, cancellations and other calls meanwhile.
 *
 * A job whose cost is bounded by construction (small inputs, a small work budget for the whole job, no
 * regular expressions or time zones, see `inspect/inline_jobs.ts`) is answered on the calling thread instead: the
 * hand-off to a worker would cost more than the job. One that turns out to need more is handed on.
 *
 * In a stdio session a job can carry a direct-answer offer (see `eval_answer.ts`): its worker then writes
 * the answer line to stdout itself, holding the session's output lock (taken only if free at once: the
 * session holds it for each of its own lines, of any size) and after winning the slot's claim (see
 * {@link CLAIM_RUNNING}). The session thread still never writes synchronously, so a client that stops
 * reading can block a worker but never the session; a worker that dies holding the output lock has it
 * released here.
 *
 * Workers start with no Deno permissions (`deno.permissions: "none"`, which needs
 * `--unstable-worker-options`; without it they inherit the session's already narrowed permissions, never
 * more). Traffic goes over a MessagePort: inside the session worker, a nested worker's own message channel
 * costs milliseconds per round trip where a port costs about 0.07 ms.
 *
 * @module
 */

import type { EvalJob, EvalOutcome } from "../../inspect/mod.ts";
import { loadedToolCore, loadToolCore, type ToolCore } from "./core_loader.ts";
import type { DirectSpec } from "./eval_answer.ts";
import { unlockOutput } from "../../util/output_lock.ts";
import { logToStderr } from "../stderr_log.ts";

/** How long one evaluation may run before its worker is terminated. */
export const EVAL_TIME_LIMIT_MS = 5_000;

/** Workers kept warm (the machine this targets has two cores). */
export const EVAL_POOL_SIZE = 2;

/** A job whose answer its worker wrote to stdout itself (see {@link DirectRequest}). */
export interface EvalAnswered {
  answered: true;
}

/**
 * Asks the worker to write the job's answer to stdout itself when it fits (see `eval_answer.ts`); `watch`
 * receives a probe telling, synchronously, whether the worker has claimed the answer.
 */
export interface DirectRequest {
  spec: DirectSpec;
  watch(answered: () => boolean): void;
}

/**
 * States of a slot's claim cell, an `Int32Array` on a SharedArrayBuffer shared with its worker:
 * `[state, job id]`. Whoever moves a running job's cell first wins: the worker to WRITING before it
 * writes a direct answer, the session to REVOKED before it terminates the worker for a cancellation or
 * the time limit. So a cancelled call is never answered after the cancellation took effect, and a worker
 * is never terminated between claiming an answer and writing it (the answer would be lost).
 */
export const CLAIM_RUNNING = 1;
/** The worker won the claim: it writes (or wrote) the answer. */
export const CLAIM_WRITING = 2;
/** The session won the claim: the worker must not write. */
export const CLAIM_REVOKED = 3;

/** A job that did not produce an outcome: stopped by the time limit or a cancellation, or crashed. */
export interface EvalStop {
  stopped: "timeout" | "aborted" | "crashed";
  detail: string;
}

/** Options of an {@link EvalPool}. */
export interface EvalPoolOptions {
  /** Number of workers (default {@link EVAL_POOL_SIZE}). */
  size?: number;
  /** Per-job time limit in milliseconds (default {@link EVAL_TIME_LIMIT_MS}). */
  timeLimitMs?: number;
  /** Diagnostics sink (stderr in the server). */
  log?: (message: string) => void;
  /** The worker module (default `eval_worker.ts` beside this module). */
  workerUrl?: URL;
  /** How long a new worker may take to get ready (default {@link WORKER_START_TIMEOUT_MS}). */
  startTimeoutMs?: number;
  /**
   * Answer jobs within the inline bounds on this thread at once (see `inspect/inline_jobs.ts`; default true).
   * Off, every job goes to a worker (tests of the worker path).
   */
  inline?: boolean;
  /**
   * Start workers with no Deno permissions. Needs `--unstable-worker-options` (without it Deno exits the
   * process); default: only inside bxp-mcp's permission-narrowed session worker, which exists only with
   * that flag. Elsewhere workers inherit this thread's permissions.
   */
  narrowPermissions?: boolean;
}

/** The name `security/sandbox.ts` gives bxp-mcp's session worker. */
const SESSION_WORKER_NAME = "bxp-mcp-session";

/** Whether this code runs in bxp-mcp's session worker (started with narrowed permissions). */
function inSandboxedSession(): boolean {
  const scope = globalThis as { name?: unknown; WorkerGlobalScope?: unknown };
  return scope.WorkerGlobalScope !== undefined && scope.name === SESSION_WORKER_NAME;
}

type EvalResult = EvalOutcome | EvalStop | EvalAnswered;

interface Pending {
  job: EvalJob;
  signal: AbortSignal;
  direct: DirectRequest | undefined;
  settle: (result: EvalResult) => void;
}

interface Running extends Pending {
  id: number;
  timer: ReturnType<typeof setTimeout>;
  onAbort: () => void;
}

interface Slot {
  worker: Worker;
  port: MessagePort;
  /** The claim cell shared with this slot's worker (see {@link CLAIM_RUNNING}). */
  claim: Int32Array;
  ready: boolean;
  running: Running | null;
  /** Fires when the worker has not said `ready` in time (a module that never loads, a stuck start). */
  startTimer: ReturnType<typeof setTimeout> | null;
}

/** Workers that die (or never get ready) before they are ready, in a row, before the pool gives up on workers. */
const MAX_START_FAILURES = 3;

/** How long a new worker may take to say `ready` (about a second inside the session worker). */
export const WORKER_START_TIMEOUT_MS = 10_000;

/**
 * The pool. {@link EvalPool.run} resolves with the job's outcome or an {@link EvalStop}; it never rejects.
 *
 * A job within the inline bounds, as here, is answered on this thread without starting a worker (the
 * worker path is driven by tests/mcp/tools/eval_pool_test.ts):
 *
 * @example
 * ```ts
 * import { EvalPool } from "./eval_pool.ts";
 * import assert from "node:assert/strict";
 * const pool = new EvalPool();
 * try {
 *   const job = { kind: "eval", expr: "1 + 2", headers: null, fields: null } as const;
 *   const out = await pool.run(job, new AbortController().signal);
 *   assert.deepEqual(out, { text: JSON.stringify({ ok: true, value: "3" }) });
 * } finally {
 *   pool.dispose();
 * }
 * ```
 */
export class EvalPool {
  readonly #size: number;
  readonly #timeLimitMs: number;
  readonly #log: (message: string) => void;
  readonly #workerUrl: URL;
  readonly #startTimeoutMs: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #startFailures = 0;
  #inThread = false;
  readonly #narrow: boolean;
  readonly #inline: boolean;
  #disposed = false;

  /** Create a pool; workers start on {@link EvalPool.warm} or the first job not answered inline. */
  constructor(options: EvalPoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? EVAL_POOL_SIZE);
    this.#timeLimitMs = options.timeLimitMs ?? EVAL_TIME_LIMIT_MS;
    this.#log = options.log ?? logToStderr;
    this.#workerUrl = options.workerUrl ?? new URL("./eval_worker.ts", import.meta.url);
    this.#startTimeoutMs = options.startTimeoutMs ?? WORKER_START_TIMEOUT_MS;
    this.#narrow = options.narrowPermissions ?? inSandboxedSession();
    this.#inline = options.inline ?? true;
  }

  /** The per-job time limit in milliseconds. */
  get timeLimitMs(): number {
    return this.#timeLimitMs;
  }

  /** Start the workers now, so the first call does not wait for one. */
  warm(): void {
    while (!this.#inThread && !this.#disposed && this.#slots.length < this.#size) {
      const slot = this.#startSlot();
      if (slot === null) return;
      this.#slots.push(slot);
    }
  }

  /**
   * Run `job`: at once on this thread when it is within the inline bounds, else on a worker, which `signal`
   * (the call's cancellation) terminates. With `direct`, the worker may write the answer to stdout itself
   * and the job settles with {@link EvalAnswered}.
   */
  run(job: EvalJob, signal: AbortSignal, direct?: DirectRequest): Promise<EvalResult> {
    if (signal.aborted) return Promise.resolve({ stopped: "aborted", detail: "cancelled" });
    // The jobs' code loads with the session's first need of it (see `core_loader.ts`).
    const core = loadedToolCore();
    if (core === null) return loadToolCore().then(() => this.run(job, signal, direct));
    if (this.#inline && !this.#disposed) {
      const outcome = core.runInline(job);
      if (outcome !== null) return Promise.resolve(outcome);
    }
    this.warm();
    if (this.#inThread || this.#disposed) return Promise.resolve(runHere(core, job));
    return new Promise((settle) => {
      const pending: Pending = { job, signal, direct, settle };
      let settled = false;
      const onQueuedAbort = () => {
        const at = this.#queue.indexOf(pending);
        if (at >= 0) this.#queue.splice(at, 1);
        pending.settle({ stopped: "aborted", detail: "cancelled" });
      };
      signal.addEventListener("abort", onQueuedAbort, { once: true });
      // Settles once: a cancelled job whose worker had already claimed its answer reports back later.
      pending.settle = (result) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onQueuedAbort);
        settle(result);
      };
      this.#queue.push(pending);
      this.#pump();
    });
  }

  /** Terminate every worker; queued and running jobs are stopped. */
  dispose(): void {
    this.#disposed = true;
    for (const slot of this.#slots.splice(0)) this.#retire(slot, "aborted", "the pool was closed");
    for (const pending of this.#queue.splice(0)) {
      pending.settle({ stopped: "aborted", detail: "the pool was closed" });
    }
  }

  #startSlot(): Slot | null {
    const worker = this.#newWorker();
    if (worker === null) {
      this.#fallBackInThread("cannot start an evaluation worker");
      return null;
    }
    const channel = new MessageChannel();
    const slot: Slot = {
      worker,
      port: channel.port1,
      claim: new Int32Array(new SharedArrayBuffer(8)),
      ready: false,
      running: null,
      startTimer: null,
    };
    slot.startTimer = setTimeout(() => {
      slot.startTimer = null;
      if (!slot.ready) this.#onWorkerError(slot, `not ready after ${this.#startTimeoutMs / 1000} s`);
    }, this.#startTimeoutMs);
    // The process may end while a worker is still starting.
    Deno.unrefTimer(slot.startTimer);
    channel.port1.onmessage = (event) => this.#onMessage(slot, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#onWorkerError(slot, event.message);
    };
    worker.postMessage(channel.port2, [channel.port2]);
    return slot;
  }

  #newWorker(): Worker | null {
    const base: WorkerOptions = { type: "module", name: "bxp-eval" };
    try {
      // Deno exits the process (rather than throw) when `deno.permissions` is used without
      // --unstable-worker-options, so it is only asked for where that flag is known to be in effect.
      if (this.#narrow) return new Worker(this.#workerUrl, { ...base, deno: { permissions: "none" } });
      return new Worker(this.#workerUrl, base);
    } catch (error) {
      this.#log(`cannot start an evaluation worker: ${describe(error)}`);
      return null;
    }
  }

  #onMessage(slot: Slot, data: unknown): void {
    if (!this.#slots.includes(slot)) return;
    if (data === "ready") {
      slot.ready = true;
      if (slot.startTimer !== null) clearTimeout(slot.startTimer);
      slot.startTimer = null;
      this.#startFailures = 0;
      this.#pump();
      return;
    }
    const message = data as {
      id: number;
      outcome?: EvalOutcome;
      error?: string;
      answered?: true;
      cut?: true;
    };
    const running = slot.running;
    if (running === null || running.id !== message.id) return;
    this.#finish(slot);
    if (message.cut === true) {
      this.#log("stdout failed partway through an evaluation answer; the line is cut");
    }
    if (message.answered === true) running.settle({ answered: true });
    else {
      running.settle(
        message.outcome ?? { stopped: "crashed", detail: message.error ?? "the evaluation failed" },
      );
    }
    this.#pump();
  }

  #onWorkerError(slot: Slot, detail: string): void {
    if (!this.#slots.includes(slot)) return;
    if (!slot.ready) this.#startFailures++;
    this.#replace(slot, "crashed", `the evaluation worker failed: ${detail}`);
    if (this.#startFailures >= MAX_START_FAILURES) {
      this.#fallBackInThread(`evaluation workers keep failing to start (${detail})`);
    }
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const slot = this.#slots.find((s) => s.ready && s.running === null);
      if (slot === undefined) return;
      this.#dispatch(slot, this.#queue.shift() as Pending);
    }
  }

  #dispatch(slot: Slot, pending: Pending): void {
    const id = this.#nextId++;
    const limitSeconds = this.#timeLimitMs / 1000;
    const timer = setTimeout(
      () => this.#stop(slot, id, "timeout", `stopped after its ${limitSeconds} s time limit`),
      this.#timeLimitMs,
    );
    const onAbort = () => this.#stop(slot, id, "aborted", "cancelled");
    slot.running = { ...pending, id, timer, onAbort };
    pending.signal.addEventListener("abort", onAbort, { once: true });
    const claim = slot.claim;
    Atomics.store(claim, 1, id);
    Atomics.store(claim, 0, CLAIM_RUNNING);
    if (pending.direct === undefined) {
      slot.port.postMessage({ id, job: pending.job });
      return;
    }
    let answered = false;
    pending.direct.watch(() =>
      answered ||= Atomics.load(claim, 1) === id && Atomics.load(claim, 0) === CLAIM_WRITING
    );
    slot.port.postMessage({ id, job: pending.job, direct: { ...pending.direct.spec, claim } });
  }

  /**
   * Stop the running job `id` of `slot` (time limit or cancellation): revoke its claim and terminate the
   * worker. When the worker has already claimed the answer it is writing it: the job counts as answered
   * (a cancellation settles it as aborted, so nothing more is sent) and the worker is left to finish; its
   * report frees the slot.
   */
  #stop(slot: Slot, id: number, stopped: EvalStop["stopped"], detail: string): void {
    const running = slot.running;
    if (running === null || running.id !== id) return;
    if (Atomics.compareExchange(slot.claim, 0, CLAIM_RUNNING, CLAIM_REVOKED) === CLAIM_WRITING) {
      clearTimeout(running.timer);
      running.signal.removeEventListener("abort", running.onAbort);
      running.settle(stopped === "aborted" ? { stopped, detail } : { answered: true });
      return;
    }
    this.#replace(slot, stopped, detail);
  }

  /** Stop tracking the slot's running job (its timer and abort listener). */
  #finish(slot: Slot): void {
    const running = slot.running;
    if (running === null) return;
    clearTimeout(running.timer);
    running.signal.removeEventListener("abort", running.onAbort);
    slot.running = null;
  }

  /** Terminate `slot`, settle its job with `stopped`, and start a fresh worker in its place. */
  #replace(slot: Slot, stopped: EvalStop["stopped"], detail: string): void {
    const at = this.#slots.indexOf(slot);
    if (at < 0) return;
    this.#retire(slot, stopped, detail);
    const fresh = this.#disposed || this.#inThread ? null : this.#startSlot();
    if (fresh === null) this.#slots.splice(at, 1);
    else this.#slots[at] = fresh;
    this.#pump();
  }

  #retire(slot: Slot, stopped: EvalStop["stopped"], detail: string): void {
    const running = slot.running;
    this.#finish(slot);
    if (slot.startTimer !== null) clearTimeout(slot.startTimer);
    slot.startTimer = null;
    slot.port.onmessage = null;
    slot.port.close();
    slot.worker.terminate();
    // A worker that crashed (or is stopped with the pool) holding the output lock would otherwise keep the
    // session from ever writing again. Its token is the job id.
    if (running?.direct !== undefined) unlockOutput(running.direct.spec.outputLock, running.id);
    running?.settle({ stopped, detail });
  }

  #fallBackInThread(why: string): void {
    if (this.#inThread) return;
    this.#inThread = true;
    this.#log(`${why}; evaluating on the session thread without a time limit`);
    for (const slot of this.#slots.splice(0)) this.#retire(slot, "crashed", why);
    // Queued jobs came through run(), which loaded the core first; with none queued it may not be.
    const core = loadedToolCore();
    if (core === null) return;
    for (const pending of this.#queue.splice(0)) pending.settle(runHere(core, pending.job));
  }
}

/** Run a job on this thread (the fallback when no worker can start). */
function runHere(core: ToolCore, job: EvalJob): EvalOutcome | EvalStop {
  try {
    return core.runEvalJob(job);
  } catch (error) {
    return { stopped: "crashed", detail: describe(error) };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

let shared: EvalPool | null = null;

/** The pool every registration in this thread shares (created on first use). */
export function sharedEvalPool(log?: (message: string) => void): EvalPool {
  shared ??= new EvalPool({ log });
  return shared;
}
