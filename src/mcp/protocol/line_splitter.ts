/**
 * Incremental newline framing for byte streams, with a hard cap on line length that never buffers an
 * oversized line.
 *
 * @module
 */

import { concatBytes } from "../../util/bytes.ts";

/** Largest accepted line, in bytes, not counting its `\n` terminator: 16 MiB. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** One framing event: a complete line (without its `\n`), or a line that exceeded the cap. */
export type LineEvent =
  | { readonly kind: "line"; readonly bytes: Uint8Array }
  | { readonly kind: "oversized"; readonly limit: number };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into `\n`-terminated lines. A line longer than the cap is dropped as it streams by
 * (only its length is counted) and reported once its terminator arrives; an unterminated tail is
 * discarded at the end of input, since there is no complete message to answer.
 *
 * @example
 * ```ts
 * import { LineSplitter } from "./line_splitter.ts";
 * import assert from "node:assert/strict";
 * const bytes = (text: string) => new TextEncoder().encode(text);
 * const splitter = new LineSplitter();
 * assert.deepEqual(splitter.push(bytes('{"a":1}\n{"b"')), [{ kind: "line", bytes: bytes('{"a":1}') }]);
 * assert.deepEqual(splitter.push(bytes(":2}\n")), [{ kind: "line", bytes: bytes('{"b":2}') }]);
 * ```
 */
export class LineSplitter {
  readonly #maxLineBytes: number;
  #parts: Uint8Array[] = [];
  #length = 0;
  #skipping = false;

  /** Create a splitter refusing lines longer than `maxLineBytes` bytes. */
  constructor(maxLineBytes: number = MAX_LINE_BYTES) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Bytes currently held for the unfinished line (stays 0 while an oversized line streams past). */
  get bufferedBytes(): number {
    return this.#parts.reduce((total, part) => total + part.length, 0);
  }

  /** Feed the next chunk; returns the events it completes, in order. */
  push(chunk: Uint8Array): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#take(chunk.subarray(start, end));
      if (newline === -1) break;
      events.push(this.#finishLine());
      start = newline + 1;
    }
    return events;
  }

  /** Signal the end of input: the unterminated tail, if any, is discarded. Returns whether one was. */
  end(): boolean {
    const hadTail = this.#length > 0 || this.#skipping;
    this.#reset();
    return hadTail;
  }

  #take(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#length += piece.length;
    if (this.#skipping) return;
    if (this.#length > this.#maxLineBytes) {
      this.#skipping = true;
      this.#parts = [];
      return;
    }
    // The chunk's buffer may be reused by the producer, so keep a copy.
    this.#parts.push(piece.slice());
  }

  #finishLine(): LineEvent {
    const event: LineEvent = this.#skipping
      ? { kind: "oversized", limit: this.#maxLineBytes }
      : { kind: "line", bytes: concatBytes(this.#parts) };
    this.#reset();
    return event;
  }

  #reset(): void {
    this.#parts = [];
    this.#length = 0;
    this.#skipping = false;
  }
}
