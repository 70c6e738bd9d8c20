/**
 * Where container members are inflated: on worker threads (the run's shared ones, see `../worker_set.ts`:
 * one per extra evaluator, see `../parallel/worker_count.ts`) and on the calling thread at once, or on the
 * calling thread alone when the run is serial or workers cannot start (the browser bundle, a binary built
 * without the worker module). For a worker's member the calling thread only moves bytes: it reads
 * compressed ranges, transfers them to the worker and writes what comes back.
 *
 * @example
 * ```ts
 * import { InflatePool } from "./pool.ts";
 * import { deflateSync } from "fflate";
 * import { crc32 } from "../../formats/zip/crc32.ts";
 * import assert from "node:assert/strict";
 * const data = new TextEncoder().encode("h\n" + "x,1\n".repeat(1000));
 * // The calling-thread pool; `await InflatePool.start(2)` gives two worker threads with the same sessions and
 * // close (too slow to start for an example).
 * const pool = InflatePool.local();
 * try {
 *   const session = pool.session({ method: 8, size: data.length, crc32: crc32(data), name: "a.csv" });
 *   const sent = session.write(deflateSync(data), true);
 *   let size = 0;
 *   for await (const piece of session.pieces()) size += piece.length;
 *   await sent;
 *   assert.equal(size, data.length);
 * } finally {
 *   pool.close();
 * }
 * ```
 * @module
 */

import { type MemberFacts, memberInflateStream } from "../../formats/zip/member_inflater.ts";
import type { InflateRequest, InflateResponse } from "./protocol.ts";
import { ENGINE_WORKER_URL, type WorkerLease, type WorkerSet } from "../worker_set.ts";

/**
 * One member being inflated: write its compressed chunks in order (the last with `final`), read its
 * uncompressed pieces from {@link InflateSession.pieces} at the same time.
 */
export interface InflateSession {
  /** Hands over the next chunk (its buffer may be transferred); resolves when the next may be written. */
  write(chunk: Uint8Array, final: boolean): Promise<void>;
  /** The member's pieces in order; ends after the last, throws the member's failure. Read once. */
  pieces(): AsyncGenerator<Uint8Array>;
  /** Ends the session early (a failure elsewhere, a consumer that stopped). */
  close(): void;
}

/** How long a worker may take to answer its first message before the pool inflates on the calling thread. */
const START_TIMEOUT_MS = 10_000;
/** Chunks a worker may hold unacknowledged. */
const WORKER_CREDITS = 2;
/** Pieces received but not yet read above which no more chunks are sent (a slow disk stalls the member). */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

class LocalSession implements InflateSession {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #release: (() => void) | null;

  /** `release`: called once when the session ends (the pool counts the calling thread's sessions). */
  constructor(facts: MemberFacts, release: () => void = () => {}) {
    const { writable, readable } = memberInflateStream(facts);
    this.#writer = writable.getWriter();
    this.#reader = readable.getReader();
    this.#release = release;
  }

  #done(): void {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  async write(chunk: Uint8Array, final: boolean): Promise<void> {
    await this.#writer.write(chunk);
    if (final) await this.#writer.close();
  }

  async *pieces(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        const { value, done } = await this.#reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      this.#done();
    }
  }

  close(): void {
    this.#done();
    this.#writer.abort().catch(() => {});
    this.#reader.cancel().catch(() => {});
  }
}

/** Answers of inflate sessions (a shared thread may still send a block answer of an earlier pool). */
const INFLATE_ANSWERS = new Set<string>(["ack", "piece", "end", "failed"]);

/**
 * Session ids, unique in the process: a shared thread may still answer a session an earlier pool closed,
 * and that answer must not reach a later pool's session of the same number.
 */
let nextSessionId = 0;

class InflateWorker {
  readonly worker: Worker;
  readonly sessions = new Map<number, WorkerSession>();
  failed: Error | null = null;

  constructor(worker: Worker) {
    this.worker = worker;
    worker.onmessage = (e: MessageEvent<InflateResponse>) => {
      const msg = e.data;
      if (msg.type !== "ready" && INFLATE_ANSWERS.has(msg.type)) this.sessions.get(msg.id)?.receive(msg);
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.failed = new Error(`inflate worker failed: ${e.message}`);
      for (const s of [...this.sessions.values()]) s.fail(this.failed);
    };
  }
}

class WorkerSession implements InflateSession {
  readonly #host: InflateWorker;
  readonly #id: number;
  #unacked = 0;
  #queuedBytes = 0;
  readonly #queue: Uint8Array[] = [];
  #ended = false;
  #failure: Error | null = null;
  /** Whoever waits: the writer for credit, the reader for pieces. */
  #wakeWriter: (() => void) | null = null;
  #wakeReader: (() => void) | null = null;

  constructor(host: InflateWorker, id: number, facts: MemberFacts) {
    this.#host = host;
    this.#id = id;
    host.sessions.set(id, this);
    host.worker.postMessage({ type: "open", id, facts } satisfies InflateRequest);
  }

  /** A message of this session from the worker. */
  receive(msg: Exclude<InflateResponse, { type: "ready" }>): void {
    switch (msg.type) {
      case "ack":
        this.#unacked--;
        break;
      case "piece":
        this.#queue.push(msg.bytes);
        this.#queuedBytes += msg.bytes.length;
        break;
      case "end":
        this.#ended = true;
        this.#host.sessions.delete(this.#id);
        break;
      case "failed":
        this.fail(new Error(msg.message));
        return;
    }
    this.#wake();
  }

  /** Ends the session with `err` (the first failure wins). */
  fail(err: Error): void {
    this.#failure ??= err;
    this.#host.sessions.delete(this.#id);
    this.#wake();
  }

  #wake(): void {
    const w = this.#wakeWriter, r = this.#wakeReader;
    this.#wakeWriter = this.#wakeReader = null;
    w?.();
    r?.();
  }

  async write(chunk: Uint8Array, final: boolean): Promise<void> {
    if (this.#failure !== null) throw this.#failure;
    if (this.#host.failed !== null) throw this.#host.failed;
    this.#unacked++;
    this.#host.worker.postMessage(
      { type: "chunk", id: this.#id, chunk, final } satisfies InflateRequest,
      [chunk.buffer as ArrayBuffer],
    );
    while (
      this.#failure === null && !this.#ended &&
      (this.#unacked >= WORKER_CREDITS || this.#queuedBytes > MAX_QUEUED_BYTES)
    ) {
      await new Promise<void>((resolve) => this.#wakeWriter = resolve);
    }
    if (this.#failure !== null) throw this.#failure;
  }

  async *pieces(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const piece = this.#queue.shift();
      if (piece !== undefined) {
        this.#queuedBytes -= piece.length;
        // Room again: the writer may send on.
        const w = this.#wakeWriter;
        this.#wakeWriter = null;
        w?.();
        yield piece;
        continue;
      }
      if (this.#failure !== null) throw this.#failure;
      if (this.#ended) return;
      await new Promise<void>((resolve) => this.#wakeReader = resolve);
    }
  }

  close(): void {
    if (this.#ended || this.#failure !== null) return;
    this.fail(new Error("inflate session is closed"));
    this.#host.worker.postMessage({ type: "close", id: this.#id } satisfies InflateRequest);
  }
}

/**
 * Inflate workers shared by the members of a run's containers, plus the calling thread, which inflates
 * members too (as the block pool's main-thread slot does: one isolate fewer for the same cores).
 */
export class InflatePool {
  readonly #workers: InflateWorker[];
  /** The run's shared threads while this pool holds them (null: its own, or none). */
  readonly #lease: WorkerLease | null;
  /** Sessions running on the calling thread. */
  #local = 0;

  private constructor(workers: InflateWorker[], lease: WorkerLease | null = null) {
    this.#workers = workers;
    this.#lease = lease;
  }

  /** A pool that inflates on the calling thread. */
  static local(): InflatePool {
    return new InflatePool([]);
  }

  /**
   * A pool of `threads` inflating threads in all: `threads - 1` workers and the calling thread. The workers
   * are `set`'s when it is given and free, else started here. Waits until each worker answers (so a
   * missing worker module is known now, not midway through a member). 0 or 1 inflates on the calling
   * thread alone; so does a pool none of whose workers start.
   */
  static async start(threads: number, set: WorkerSet | null = null): Promise<InflatePool> {
    if (threads < 2 || typeof Worker === "undefined") return new InflatePool([]);
    const lease = set?.lease() ?? null;
    if (lease !== null) {
      const asked = lease.workers.slice(0, threads - 1);
      const answered = await Promise.all(asked.map((w) => handshake(w)));
      asked.forEach((w, i) => answered[i] === null && lease.retire(w));
      return new InflatePool(answered.filter((w): w is InflateWorker => w !== null), lease);
    }
    const started = await Promise.all(
      Array.from({ length: threads - 1 }, () => startWorker()),
    );
    return new InflatePool(started.filter((w): w is InflateWorker => w !== null));
  }

  /** Members inflated at the same time: one per worker and one on the calling thread. */
  get size(): number {
    return this.#workers.length + 1;
  }

  /** True when members are inflated on worker threads. */
  get threaded(): boolean {
    return this.#workers.length > 0;
  }

  /**
   * A session where the fewest run: a live worker, or the calling thread (which takes a tie, so a pool
   * inflating one member does it without a round trip).
   */
  session(facts: MemberFacts): InflateSession {
    let best: InflateWorker | null = null;
    for (const w of this.#workers) {
      if (w.failed !== null) continue;
      if (best === null || w.sessions.size < best.sessions.size) best = w;
    }
    if (best === null || this.#local <= best.sessions.size) {
      this.#local++;
      return new LocalSession(facts, () => this.#local--);
    }
    return new WorkerSession(best, nextSessionId++, facts);
  }

  /** Stops the pool's own workers and gives shared ones back to their set. */
  close(): void {
    if (this.#lease !== null) this.#lease.release();
    else for (const w of this.#workers) w.worker.terminate();
    this.#workers.length = 0;
  }
}

function startWorker(): Promise<InflateWorker | null> {
  let worker: Worker;
  try {
    worker = new Worker(ENGINE_WORKER_URL, { type: "module" });
  } catch {
    return Promise.resolve(null);
  }
  return handshake(worker).then((ready) => {
    if (ready === null) worker.terminate();
    return ready;
  });
}

/** `worker` as an inflate worker once it answers a ping; null when it fails or stays silent. */
function handshake(worker: Worker): Promise<InflateWorker | null> {
  return new Promise((resolve) => {
    let settled = false;
    const timer = setTimeout(() => done(false), START_TIMEOUT_MS);
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(ok ? new InflateWorker(worker) : null);
    };
    worker.onmessage = (e: MessageEvent<InflateResponse>) => done(e.data.type === "ready");
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      done(false);
    };
    worker.postMessage({ type: "ping" } satisfies InflateRequest);
  });
}
