/**
 * The single path to the output stream: every message becomes exactly one write of `json + "\n"`, queued
 * in call order, so concurrent tool results and progress notifications can never interleave.
 *
 * @module
 */

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

  /** Take the stream's writer lock until {@link SerialWriter.release}. */
  constructor(stream: WritableStream<Uint8Array>, log: (message: string) => void) {
    this.#writer = stream.getWriter();
    this.#log = log;
  }

  /** Whether the stream failed; nothing is written after that. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Queue one message: `json` must be a single line of JSON; the newline is added here. */
  writeLine(json: string): void {
    if (this.#failed) return;
    // One chunk per message: the stream keeps chunks whole and in order.
    this.#last = this.#writer.write(this.#encoder.encode(`${json}\n`)).catch((error) => this.#fail(error));
  }

  /** Resolve once every queued message has been handed to the stream. Never rejects. */
  flush(): Promise<void> {
    return this.#last;
  }

  /** Give the stream back to its owner without closing it (the adapter decides how the process ends). */
  release(): void {
    this.#writer.releaseLock();
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#log(
      `output stream failed, dropping further messages: ${error instanceof Error ? error.message : error}`,
    );
  }
}
