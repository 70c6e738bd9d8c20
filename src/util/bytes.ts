/**
 * Byte helpers shared across modules.
 *
 * @example
 * ```ts
 * import { concatBytes } from "./bytes.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])]), new Uint8Array([1, 2, 3]));
 * ```
 * @module
 */

/** The chunks as one array; a single chunk is returned as is (no copy). */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  let total = 0;
  for (const c of chunks) total += c.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * A byte array that grows (by doubling) as bytes are appended: the carry-over buffer of the streaming
 * readers. `data.subarray(0, length)` is the content.
 *
 * @example
 * ```ts
 * import { GrowableBytes } from "./bytes.ts";
 * import assert from "node:assert/strict";
 * const b = new GrowableBytes(4);
 * b.append(new Uint8Array([1, 2, 3, 4, 5]));
 * b.dropFront(2); // content is now [3, 4, 5]
 * assert.deepEqual(b.data.subarray(0, b.length), new Uint8Array([3, 4, 5]));
 * ```
 */
export class GrowableBytes {
  /** The storage; only the first `length` bytes are content. */
  data: Uint8Array;
  length = 0;

  constructor(capacity = 64 * 1024) {
    this.data = new Uint8Array(Math.max(1, capacity));
  }

  /** Appends `bytes`, growing the storage when needed. */
  append(bytes: Uint8Array): void {
    const need = this.length + bytes.length;
    if (need > this.data.length) {
      let size = this.data.length * 2;
      while (size < need) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    this.data.set(bytes, this.length);
    this.length = need;
  }

  /** Removes the first `n` bytes of the content. */
  dropFront(n: number): void {
    this.data.copyWithin(0, n, this.length);
    this.length -= n;
  }
}

/**
 * Remembers the buffer a writer last handed to its sink whole, so the sink may give it back once it has
 * copied it (a fresh buffer must be zeroed and mapped page by page by the system). Only that buffer, given
 * back once, is taken: anything else, or a chunk of a smaller recycled buffer, is refused.
 *
 * @example
 * ```ts
 * import { HandedOverBuffer } from "./bytes.ts";
 * import assert from "node:assert/strict";
 * const handed = new HandedOverBuffer();
 * const buffer = new Uint8Array(1024);
 * handed.handOver(buffer, 1024);
 * handed.takeBack(buffer.subarray(0, 10), 1024); // the whole 1024-byte buffer again
 * assert.equal(handed.takeBack(buffer.subarray(0, 10), 1024), null); // already taken back
 * ```
 */
export class HandedOverBuffer {
  #memory: ArrayBufferLike | null = null;

  /** `buffer` went to the sink; it is remembered when it is a whole buffer of `size` bytes. */
  handOver(buffer: Uint8Array, size: number): void {
    this.#memory = buffer.byteOffset === 0 && buffer.buffer.byteLength === size ? buffer.buffer : null;
  }

  /** The whole buffer `chunk` was cut from, when it is the one last handed over; else null. */
  takeBack(chunk: Uint8Array, size: number): Uint8Array | null {
    if (this.#memory === null || chunk.buffer !== this.#memory) return null;
    this.#memory = null;
    return new Uint8Array(chunk.buffer, 0, size);
  }
}
