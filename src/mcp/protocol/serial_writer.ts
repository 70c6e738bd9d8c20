/**
 * The single path to the output stream: every message becomes exactly one write of `json + "\n"`, queued
 * in call order, so concurrent tool results and progress notifications can never interleave. It also
 * counts the bytes handed over but not yet written, so the reader can stop taking requests while a client
 * is not reading its answers.
 *
 * @module
 */

interface DrainWaiter {
  readonly limit: number;
  readonly wake: () => void;
}

/**
 * Owns the output stream's writer for the whole session. Writes are fire-and-forget for callers; a
 * failed stream is reported once to `log` and later messages are dropped (the peer is gone).
 *
 * @example
 * ```ts
 * const out = new SerialWriter(stream, console.error);
 * out.writeLine('{"jsonrpc":"2.0","id":1,"result":{}}');
 * await out.flush();
 * out.release();
 * ```
 */
export class SerialWriter {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #log: (message: string) => void;
  readonly #encoder = new TextEncoder();
  #last: Promise<void> = Promise.resolve();
  #failed = false;
  #queuedBytes = 0;
  #drainWaiters: DrainWaiter[] = [];

  /** Take the stream's writer lock until {@link SerialWriter.release}. */
  constructor(stream: WritableStream<Uint8Array>, log: (message: string) => void) {
    this.#writer = stream.getWriter();
    this.#log = log;
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
    this.#last = this.#writer.write(bytes).then(
      () => this.#written(bytes.length),
      (error) => {
        this.#written(bytes.length);
        this.#fail(error);
      },
    );
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
  flush(): Promise<void> {
    return this.#last;
  }

  /** Give the stream back to its owner without closing it (the adapter decides how the process ends). */
  release(): void {
    this.#writer.releaseLock();
  }

  #written(length: number): void {
    this.#queuedBytes -= length;
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
