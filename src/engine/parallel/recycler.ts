/**
 * Recycled byte buffers for the block pipeline. Every block of input lines used to be a fresh 1 MiB
 * allocation (and a fresh page-faulted piece of memory on machines that hand out memory slowly); freed ones
 * piled up in the allocator until a full collection released their wrappers. Blocks now borrow a buffer
 * here and give it back once evaluated (a worker transfers it back with its result), so the pipeline's
 * input memory is a handful of buffers however large the file.
 *
 * @example
 * ```ts
 * import { BufferRecycler } from "./recycler.ts";
 * const r = new BufferRecycler(1024, 4);
 * const view = r.take(100); // 100 bytes over a 1024-byte buffer
 * r.give(view); // the next take reuses it
 * ```
 * @module
 */

/** A small free list of equally sized (or larger) `ArrayBuffer`s. */
export class BufferRecycler {
  readonly #capacity: number;
  readonly #maxSpare: number;
  readonly #spare: ArrayBuffer[] = [];
  /** Buffers allocated so far (for tests and diagnostics). */
  allocated = 0;

  /** `capacity`: the least size of a buffer; `maxSpare`: how many idle buffers are kept. */
  constructor(capacity: number, maxSpare: number) {
    this.#capacity = capacity;
    this.#maxSpare = maxSpare;
  }

  /** The least size of a buffer it hands out. */
  get capacity(): number {
    return this.#capacity;
  }

  /** A view of exactly `size` bytes over a recycled (or new) buffer. Its content is unspecified. */
  take(size: number): Uint8Array {
    for (let i = this.#spare.length - 1; i >= 0; i--) {
      const buf = this.#spare[i];
      if (buf.byteLength >= size) {
        this.#spare.splice(i, 1);
        return new Uint8Array(buf, 0, size);
      }
    }
    this.allocated++;
    return new Uint8Array(new ArrayBuffer(Math.max(size, this.#capacity)), 0, size);
  }

  /** Returns a view's buffer for reuse; detached (transferred) or odd-sized buffers are dropped. */
  give(view: Uint8Array): void {
    const buf = view.buffer as ArrayBuffer;
    if (buf.byteLength < this.#capacity || this.#spare.length >= this.#maxSpare) return;
    if (this.#spare.includes(buf)) return;
    this.#spare.push(buf);
  }
}
