/**
 * Where container members are inflated: on worker threads (one per evaluator, see
 * `../parallel/worker_count.ts`), or on the calling thread when the run is serial or workers cannot start
 * (the browser bundle, a binary built without the worker module). The calling thread only moves bytes: it
 * reads compressed ranges, transfers them to a worker and writes what comes back.
 *
 * @example
 * ```ts ignore
 * const pool = await InflatePool.start(2);
 * const session = pool.session({ method: 8, size, crc32, name: "a.csv" });
 * const pieces = await session.push(compressed, true);
 * pool.close();
 * ```
 * @module
 */

import { type MemberFacts, MemberInflater } from "../../formats/zip/member_inflater.ts";
import type { InflateRequest, InflateResponse } from "./protocol.ts";

/** One member being inflated: push its compressed chunks in order, each answer holds the uncompressed pieces. */
export interface InflateSession {
  /** Inflates the next chunk (`final` on the member's last); the chunk's buffer may be transferred. */
  push(chunk: Uint8Array, final: boolean): Promise<Uint8Array[]>;
  /** Ends the session early (a failure elsewhere); pending answers may still arrive and are dropped. */
  close(): void;
}

/** How long a worker may take to answer its first message before the pool inflates on the calling thread. */
const START_TIMEOUT_MS = 10_000;

class LocalSession implements InflateSession {
  readonly #inflater: MemberInflater;
  constructor(facts: MemberFacts) {
    this.#inflater = new MemberInflater(facts);
  }
  push(chunk: Uint8Array, final: boolean): Promise<Uint8Array[]> {
    try {
      return Promise.resolve(this.#inflater.push(chunk, final));
    } catch (err) {
      return Promise.reject(err);
    }
  }
  close(): void {}
}

interface Waiter {
  resolve(pieces: Uint8Array[]): void;
  reject(err: Error): void;
}

class InflateWorker {
  readonly worker: Worker;
  /** Open sessions: their answers, oldest first. */
  readonly waiting = new Map<number, Waiter[]>();
  failed: Error | null = null;

  constructor(worker: Worker) {
    this.worker = worker;
    worker.onmessage = (e: MessageEvent<InflateResponse>) => this.#answer(e.data);
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.#failAll(new Error(`inflate worker failed: ${e.message}`));
    };
  }

  #answer(msg: InflateResponse): void {
    if (msg.type === "ready") return;
    const queue = this.waiting.get(msg.id);
    const w = queue?.shift();
    if (w === undefined) return;
    if (msg.type === "pieces") w.resolve(msg.pieces);
    else {
      w.reject(new Error(msg.message));
      // The worker dropped the session: later pushes of it fail the same way.
      for (const rest of queue!.splice(0)) rest.reject(new Error(msg.message));
      this.waiting.delete(msg.id);
    }
  }

  #failAll(err: Error): void {
    this.failed = err;
    for (const queue of this.waiting.values()) for (const w of queue) w.reject(err);
    this.waiting.clear();
  }
}

class WorkerSession implements InflateSession {
  readonly #host: InflateWorker;
  readonly #id: number;
  #closed = false;

  constructor(host: InflateWorker, id: number, facts: MemberFacts) {
    this.#host = host;
    this.#id = id;
    host.waiting.set(id, []);
    host.worker.postMessage({ type: "open", id, facts } satisfies InflateRequest);
  }

  push(chunk: Uint8Array, final: boolean): Promise<Uint8Array[]> {
    const host = this.#host;
    if (host.failed !== null) return Promise.reject(host.failed);
    const queue = host.waiting.get(this.#id);
    if (queue === undefined || this.#closed) return Promise.reject(new Error("inflate session is closed"));
    return new Promise((resolve, reject) => {
      queue.push({
        resolve: (pieces) => {
          if (final) this.#finish();
          resolve(pieces);
        },
        reject: (err) => {
          this.#finish();
          reject(err);
        },
      });
      host.worker.postMessage(
        { type: "push", id: this.#id, chunk, final } satisfies InflateRequest,
        [chunk.buffer as ArrayBuffer],
      );
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#host.worker.postMessage({ type: "close", id: this.#id } satisfies InflateRequest);
    const queue = this.#host.waiting.get(this.#id);
    this.#host.waiting.delete(this.#id);
    for (const w of queue ?? []) w.reject(new Error("inflate session is closed"));
  }

  #finish(): void {
    this.#closed = true;
    this.#host.waiting.delete(this.#id);
  }
}

/** Inflate workers shared by the members of a run's containers. */
export class InflatePool {
  readonly #workers: InflateWorker[];
  #nextId = 0;

  private constructor(workers: InflateWorker[]) {
    this.#workers = workers;
  }

  /** A pool that inflates on the calling thread. */
  static local(): InflatePool {
    return new InflatePool([]);
  }

  /**
   * Starts `workers` inflate workers and waits until each answers (so a missing worker module is known
   * now, not midway through a member). 0 or 1 inflates on the calling thread; so does a pool none of whose
   * workers start.
   */
  static async start(workers: number): Promise<InflatePool> {
    if (workers < 2 || typeof Worker === "undefined") return new InflatePool([]);
    const started = await Promise.all(
      Array.from({ length: workers }, () => startWorker()),
    );
    return new InflatePool(started.filter((w): w is InflateWorker => w !== null));
  }

  /** Members inflated at the same time: one per worker, or one on the calling thread. */
  get size(): number {
    return Math.max(1, this.#workers.length);
  }

  /** True when members are inflated on worker threads. */
  get threaded(): boolean {
    return this.#workers.length > 0;
  }

  /** A session on the least busy live worker, or on the calling thread. */
  session(facts: MemberFacts): InflateSession {
    let best: InflateWorker | null = null;
    for (const w of this.#workers) {
      if (w.failed !== null) continue;
      if (best === null || w.waiting.size < best.waiting.size) best = w;
    }
    return best === null ? new LocalSession(facts) : new WorkerSession(best, this.#nextId++, facts);
  }

  /** Stops every worker. */
  close(): void {
    for (const w of this.#workers) w.worker.terminate();
    this.#workers.length = 0;
  }
}

function startWorker(): Promise<InflateWorker | null> {
  let worker: Worker;
  try {
    worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
  } catch {
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), START_TIMEOUT_MS);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      if (ok) resolve(new InflateWorker(worker));
      else {
        worker.terminate();
        resolve(null);
      }
    };
    worker.onmessage = (e: MessageEvent<InflateResponse>) => done(e.data.type === "ready");
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      done(false);
    };
    worker.postMessage({ type: "ping" } satisfies InflateRequest);
  });
}
