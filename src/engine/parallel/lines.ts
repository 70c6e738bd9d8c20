/**
 * Line arithmetic on raw CSV bytes for the parallel pipeline. In bxp's dialect every `\n` ends a record
 * (quoted fields never span lines), so a file can be cut at any `\n` and each piece parsed on its own; lines
 * that are empty once a trailing `\r` is dropped are not records.
 *
 * @example
 * ```ts
 * import { countRecords } from "./lines.ts";
 * import assert from "node:assert/strict";
 * assert.equal(countRecords(new TextEncoder().encode("a\n\r\nb\nc"), 0, 8), 3);
 * ```
 * @module
 */

const LF = 10;
const CR = 13;

function isRecordLine(bytes: Uint8Array, start: number, end: number): boolean {
  const len = end - start;
  return len > 1 || (len === 1 && bytes[start] !== CR);
}

/** Records in `bytes[start, end)`: non-empty lines, the last one possibly without a `\n`. */
export function countRecords(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  let pos = start;
  while (pos < end) {
    let nl = bytes.indexOf(LF, pos);
    if (nl < 0 || nl >= end) nl = end;
    if (isRecordLine(bytes, pos, nl)) n++;
    pos = nl + 1;
  }
  return n;
}

/**
 * The position just after the `count`-th record that starts at or after `pos`, or -1 when `bytes` ends first
 * (or the last of them has no `\n` yet).
 */
export function skipRecords(bytes: Uint8Array, pos: number, count: number): number {
  let seen = 0;
  while (seen < count) {
    const nl = bytes.indexOf(LF, pos);
    if (nl < 0) return -1;
    if (isRecordLine(bytes, pos, nl)) seen++;
    pos = nl + 1;
  }
  return pos;
}

/**
 * Cuts a byte stream into blocks of whole lines of about `blockSize` bytes. `onLineTooLong` is called (and
 * should throw) when `maxLineBytes` accumulate without a line break, so a newline-free input cannot be
 * buffered whole.
 *
 * The bytes not yet cut sit at the front of the next block's own storage. Once at least `blockSize` of them
 * are there, a block is cut at the last line end within two block sizes (else the first one after) and
 * keeps that storage; only what follows the cut (a partial line, as a rule) is copied into the next one.
 * A reader that reads into {@link BlockSplitter.room} fills the blocks in place: the input is then not
 * copied at all on the calling thread (with shared block buffers such a copy ran at a third of `memcpy`'s
 * speed, see recycler.ts). Other chunks are copied in, at most a block's size at a time, so a block's cut
 * is decided as if every piece had been read into place.
 */
export class BlockSplitter {
  readonly #blockSize: number;
  readonly #maxLineBytes: number;
  readonly #onLineTooLong: () => never;
  readonly #alloc: (size: number) => Uint8Array;
  /** The next block's storage (null before the first byte); its first `#length` bytes are content. */
  #next: Uint8Array | null = null;
  #length = 0;

  /**
   * `alloc` gives the storage of each block (a recycled buffer, see `recycler.ts`); by default every
   * block is a fresh array. A block is a view of the first bytes of its storage.
   */
  constructor(
    blockSize: number,
    maxLineBytes: number,
    onLineTooLong: () => never,
    alloc: (size: number) => Uint8Array = (size) => new Uint8Array(size),
  ) {
    this.#blockSize = blockSize;
    this.#maxLineBytes = maxLineBytes;
    this.#onLineTooLong = onLineTooLong;
    this.#alloc = alloc;
  }

  /**
   * Where the next bytes of the stream may be read: a view of `blockSize` bytes just after the content not
   * yet cut. A chunk {@link BlockSplitter.push}ed that is a prefix of this view is taken without a copy.
   */
  room(): Uint8Array {
    const next = this.#reserve(this.#blockSize);
    return next.subarray(this.#length, this.#length + this.#blockSize);
  }

  /** Adds bytes; returns the blocks now complete (each ends with `\n`). */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    const next = this.#next;
    if (
      next !== null && chunk.buffer === next.buffer && chunk.byteOffset === next.byteOffset + this.#length &&
      this.#length + chunk.length <= next.length
    ) {
      this.#length += chunk.length;
      this.#cut(out);
      return out;
    }
    for (let from = 0; from < chunk.length;) {
      const n = Math.min(chunk.length - from, this.#blockSize);
      const into = this.#reserve(n);
      into.set(chunk.subarray(from, from + n), this.#length);
      this.#length += n;
      from += n;
      this.#cut(out);
    }
    return out;
  }

  /** The rest (may lack a final `\n`), or null when nothing is left. */
  finish(): Uint8Array | null {
    if (this.#length === 0) return null;
    const rest = this.#next!.subarray(0, this.#length);
    this.#next = null;
    this.#length = 0;
    return rest;
  }

  /** The next block's storage with room for `n` more bytes (moved to larger storage when needed). */
  #reserve(n: number): Uint8Array {
    const next = this.#next;
    if (next !== null && next.length - this.#length >= n) return next;
    // Only a line longer than a block outgrows the storage: the content moves once per doubling.
    const grown = this.#alloc(Math.max(2 * this.#blockSize, 2 * this.#length, this.#length + n));
    if (next !== null) grown.set(next.subarray(0, this.#length));
    this.#next = grown;
    return grown;
  }

  /** Cuts the blocks the content holds now into `out`. */
  #cut(out: Uint8Array[]): void {
    const window = this.#blockSize * 2;
    while (this.#length >= this.#blockSize) {
      const next = this.#next!;
      const length = this.#length;
      const content = next.subarray(0, length);
      // The last line end within two block sizes, else the first one after (a block never splits a line).
      let cut = content.lastIndexOf(LF, Math.min(length, window) - 1);
      if (cut < 0 && length > window) cut = content.indexOf(LF, window);
      if (cut < 0) {
        if (length > this.#maxLineBytes) this.#onLineTooLong();
        return;
      }
      const size = cut + 1;
      // The block keeps this storage; the bytes after the cut start the next one.
      this.#next = null;
      this.#length = 0;
      if (size < length) {
        const rest = this.#reserve(length - size);
        rest.set(content.subarray(size));
        this.#length = length - size;
      }
      out.push(next.subarray(0, size));
    }
  }
}
