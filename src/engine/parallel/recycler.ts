/**
 * Recycled byte buffers for the block pipeline. Every block of input lines used to be a fresh 1 MiB
 * allocation (and a fresh page-faulted piece of memory on machines that hand out memory slowly); freed ones
 * piled up in the allocator until a full collection released their wrappers. Blocks now borrow a buffer
 * here and give it back once evaluated (a worker hands it back with its result), so the pipeline's input
 * memory is a handful of buffers however large the file.
 *
 * A pool with worker threads takes `shared` buffers (`SharedArrayBuffer`): a message to or from a worker
 * then shares a block's bytes instead of transferring them. A transfer detaches the sender's buffer, and
 * the detach of a buffer that ever had a second view (a recycled buffer gets a new view per block) makes
 * V8 drop a guarantee its optimised typed-array code relies on (the ArrayBufferDetaching protector), in
 * that thread for the rest of the run: every hot function was compiled again, and blocks took 6-9% longer
 * in the worker and on the main thread alike (measured with two workers taking turns on the same blocks,
 * one after such a detach). Shared blocks cost about 3% per block (the input is copied a slice at a time,
 * rows are written into shared memory), so the trade gains a few percent of CPU.
 *
 * @example
 * ```ts
 * import { BufferRecycler } from "./recycler.ts";
 * const r = new BufferRecycler(1024, 4);
 * import assert from "node:assert/strict";
 * const view = r.take(100); // 100 bytes over a 1024-byte buffer
 * assert.equal(view.length, 100);
 * assert.equal(view.buffer.byteLength, 1024);
 * r.give(view); // the next take reuses it
 * assert.equal(r.take(10).buffer, view.buffer);
 * ```
 * @module
 */

/** A small free list of equally sized (or larger) buffers. */
export class BufferRecycler {
  readonly #capacity: number;
  readonly #maxSpare: number;
  readonly #shared: boolean;
  readonly #spare: ArrayBufferLike[] = [];
  /** Buffers allocated so far (for tests and diagnostics). */
  allocated = 0;

  /**
   * `capacity`: the least size of a buffer; `maxSpare`: how many idle buffers are kept; `shared`: allocate
   * `SharedArrayBuffer`s (see the module doc).
   */
  constructor(capacity: number, maxSpare: number, shared = false) {
    this.#capacity = capacity;
    this.#maxSpare = maxSpare;
    this.#shared = shared;
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
    const bytes = Math.max(size, this.#capacity);
    return new Uint8Array(this.#shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes), 0, size);
  }

  /**
   * Returns a view's buffer for reuse; detached (transferred) or odd-sized buffers are dropped. A shared
   * buffer handed back by a worker arrives as another object over the same memory: each block gives its
   * buffer back once, so the memory is kept once.
   */
  give(view: Uint8Array): void {
    const buf = view.buffer;
    if (this.#shared && !(buf instanceof SharedArrayBuffer)) return; // rows past a block's buffer
    if (buf.byteLength < this.#capacity || this.#spare.length >= this.#maxSpare) return;
    if (this.#spare.includes(buf)) return;
    this.#spare.push(buf);
  }
}
