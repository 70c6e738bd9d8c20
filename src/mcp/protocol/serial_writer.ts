/**
 * The single path to the output stream: every message becomes exactly one write of `json + "\n"`, queued
 * in call order, so concurrent tool results and progress notifications can never interleave. It also
 * counts the bytes handed over but not yet written, so the reader can stop taking requests while a client
 * is not reading its answers.
 *
 * When other threads may write lines to the same output (direct answers, see `output_lock.ts`), the
 * writer holds the shared output lock from the moment a line is handed to the stream until the stream
 * has written all of it, and keeps holding it while more lines follow; it takes the lock without ever
 * blocking the thread, queueing lines meanwhile.
 *
 * @module
 */

import { lockOutput, OUTPUT_SESSION, tryLockOutput, unlockOutput } from "../../util/output_lock.ts";

interface DrainWaiter {
  readonly limit: number;
  readonly wake: () => void;
}

/**
 * Owns the output stream's writer for the whole session. Writes are fire-and-forget for callers; a
 * failed stream is reported once to `log` and later messages are dropped (the peer is gone).
 *
 * Here the output stream collects what it is given, as the session's stdout would take it:
 *
 * @example
 * ```ts
 * import { SerialWriter } from "./serial_writer.ts";
 * import assert from "node:assert/strict";
 * const written: string[] = [];
 * const decoder = new TextDecoder();
 * const stream = new WritableStream<Uint8Array>({
 *   write: (chunk) => void written.push(decoder.decode(chunk)),
 * });
 * const out = new SerialWriter(stream, console.error);
 * out.writeLine('{"jsonrpc":"2.0","id":1,"result":{}}');
 * out.writeLine('{"jsonrpc":"2.0","id":2,"result":{}}');
 * await out.flush();
 * out.release();
 * assert.deepEqual(written, [
 *   '{"jsonrpc":"2.0","id":1,"result":{}}\n',
 *   '{"jsonrpc":"2.0","id":2,"result":{}}\n',
 * ]);
 * assert.equal(out.failed, false);
 * ```
 */
export class SerialWriter {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #log: (message: string) => void;
  readonly #encoder = new TextEncoder();
  readonly #lock: Int32Array | null;
  #last: Promise<void> = Promise.resolve();
  #failed = false;
  #queuedBytes = 0;
  #drainWaiters: DrainWaiter[] = [];
  /** Whether this writer holds the output lock. */
  #holding = false;
  /** Lines handed to the stream and not yet written (the lock is held while there are any). */
  #inStream = 0;
  /** Lines waiting, in order, for the output lock. */
  #waiting: Uint8Array[] = [];
  /** Taking the output lock, while lines wait for it. */
  #acquiring: Promise<void> | null = null;
  /** Fired by {@link SerialWriter.release}: a wait for the output lock gives up. */
  readonly #released = new AbortController();

  /**
   * Take the stream's writer lock until {@link SerialWriter.release}. With `outputLock` (see
   * `output_lock.ts`), each line is written only while holding that lock too.
   */
  constructor(
    stream: WritableStream<Uint8Array>,
    log: (message: string) => void,
    outputLock: Int32Array | null = null,
  ) {
    this.#writer = stream.getWriter();
    this.#log = log;
    this.#lock = outputLock;
  }

  /** Whether the stream failed; nothing is written after that. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Bytes queued but not yet taken by the stream. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Queue one message: `json` must be a single line of JSON; the newline is added here. */
  writeLine(json: string): void {
    if (this.#failed) return;
    // One chunk per message: the stream keeps chunks whole and in order.
    const bytes = this.#encoder.encode(`${json}\n`);
    this.#queuedBytes += bytes.length;
    if (this.#lock === null || this.#holding || (this.#acquiring === null && this.#tryHold())) {
      this.#toStream(bytes);
      return;
    }
    this.#waiting.push(bytes);
    this.#acquiring ??= this.#acquire();
  }

  /**
   * Resolve once at most `limit` bytes are queued (at once when already so, or when the stream failed:
   * nothing will drain then, and nothing more is queued).
   */
  drainedTo(limit: number): Promise<void> {
    if (this.#queuedBytes <= limit || this.#failed) return Promise.resolve();
    return new Promise((wake) => this.#drainWaiters.push({ limit, wake }));
  }

  /** Resolve once every queued message has been handed to the stream. Never rejects. */
  async flush(): Promise<void> {
    while (this.#acquiring !== null) await this.#acquiring;
    await this.#last;
  }

  /** Give the stream back to its owner without closing it (the adapter decides how the process ends). */
  release(): void {
    this.#released.abort();
    this.#writer.releaseLock();
    if (this.#inStream === 0) this.#unhold();
  }

  #tryHold(): boolean {
    this.#holding = tryLockOutput(this.#lock as Int32Array, OUTPUT_SESSION);
    return this.#holding;
  }

  /** Wait for the output lock (a direct writer holds it for one short line), then write what waited. */
  async #acquire(): Promise<void> {
    const held = await lockOutput(this.#lock as Int32Array, OUTPUT_SESSION, this.#released.signal);
    this.#holding = held;
    this.#acquiring = null;
    const lines = this.#waiting;
    this.#waiting = [];
    if (this.#failed || !held) {
      for (const bytes of lines) this.#queuedBytes -= bytes.length;
      this.#wakeDrained();
    } else {
      for (const bytes of lines) this.#toStream(bytes);
    }
    if (this.#inStream === 0) this.#unhold();
  }

  #toStream(bytes: Uint8Array): void {
    this.#inStream++;
    this.#last = this.#writer.write(bytes).then(
      () => this.#written(bytes.length),
      (error) => {
        this.#written(bytes.length);
        this.#fail(error);
      },
    );
  }

  /** Let direct writers in again: nothing of this writer's is being written. */
  #unhold(): void {
    if (!this.#holding) return;
    this.#holding = false;
    unlockOutput(this.#lock as Int32Array, OUTPUT_SESSION);
  }

  #written(length: number): void {
    this.#queuedBytes -= length;
    // The stream has written every line it was given: the whole of each, every short write retried.
    if (--this.#inStream === 0) this.#unhold();
    this.#wakeDrained();
  }

  #wakeDrained(): void {
    if (this.#drainWaiters.length === 0) return;
    const still: DrainWaiter[] = [];
    for (const waiter of this.#drainWaiters) {
      if (this.#queuedBytes <= waiter.limit || this.#failed) waiter.wake();
      else still.push(waiter);
    }
    this.#drainWaiters = still;
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    for (const waiter of this.#drainWaiters) waiter.wake();
    this.#drainWaiters = [];
    this.#log(
      `output stream failed, dropping further messages: ${error instanceof Error ? error.message : error}`,
    );
  }
}
