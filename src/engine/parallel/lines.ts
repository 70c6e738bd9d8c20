/**
 * Line arithmetic on raw CSV bytes for the parallel pipeline. In bxp's dialect every `\n` ends a record
 * (quoted fields never span lines), so a file can be cut at any `\n` and each piece parsed on its own; lines
 * that are empty once a trailing `\r` is dropped are not records.
 *
 * @example
 * ```ts
 * import { countRecords } from "./lines.ts";
 * countRecords(new TextEncoder().encode("a\n\r\nb\nc"), 0, 8); // 3
 * ```
 * @module
 */

import { GrowableBytes } from "../../util/bytes.ts";

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
 * A block is cut from the bytes held back so far followed by the new chunk, at the last line end within
 * two block sizes (else the first one after). The chunk's bytes are copied straight into their block; only
 * what is left after the last cut is held back (a partial line, or a chunk smaller than a block). Reading
 * in chunks of `blockSize` bytes, each byte is thus copied about once, where appending every chunk to the
 * held bytes first copied the whole input twice on the calling thread.
 */
export class BlockSplitter {
  readonly #blockSize: number;
  readonly #maxLineBytes: number;
  readonly #onLineTooLong: () => never;
  /** Bytes held back: the start of the next block. */
  readonly #held: GrowableBytes;
  readonly #alloc: (size: number) => Uint8Array;

  /**
   * `alloc` gives the storage of each block (a recycled buffer, see `recycler.ts`); by default every
   * block is a fresh array.
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
    this.#held = new GrowableBytes(blockSize * 2);
    this.#alloc = alloc;
  }

  /** Adds bytes; returns the blocks now complete (each ends with `\n`). */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    const held = this.#held;
    const window = this.#blockSize * 2;
    // The content is held[0, held.length) followed by chunk[from, chunk.length).
    let from = 0;
    for (;;) {
      const kept = held.length;
      const total = kept + chunk.length - from;
      if (total < this.#blockSize) break;
      // The last line end within two block sizes, else the first one after (a block never splits a line).
      let cut = lastLineEnd(held.data, kept, chunk, from, Math.min(total, window) - 1);
      if (cut < 0) cut = firstLineEnd(held.data, kept, chunk, from, window);
      if (cut < 0) {
        if (total > this.#maxLineBytes) this.#onLineTooLong();
        break;
      }
      const size = cut + 1;
      if (size <= kept) {
        // Only when bytes were held back without a line end in reach (a long line): rare.
        out.push(this.#takeHeld(size));
        continue;
      }
      const block = this.#alloc(size);
      block.set(held.data.subarray(0, kept));
      block.set(chunk.subarray(from, from + size - kept), kept);
      from += size - kept;
      held.length = 0;
      out.push(block);
    }
    if (from < chunk.length) held.append(chunk.subarray(from));
    return out;
  }

  /** The rest (may lack a final `\n`), or null when nothing is left. */
  finish(): Uint8Array | null {
    return this.#held.length === 0 ? null : this.#takeHeld(this.#held.length);
  }

  /** The first `size` held bytes as a block of their own, dropped from the held bytes. */
  #takeHeld(size: number): Uint8Array {
    const block = this.#alloc(size);
    block.set(this.#held.data.subarray(0, size));
    this.#held.dropFront(size);
    return block;
  }
}

/**
 * The position of the last `\n` at or before `at` in `held[0, kept)` followed by `chunk[from, ...)`, or -1.
 */
function lastLineEnd(held: Uint8Array, kept: number, chunk: Uint8Array, from: number, at: number): number {
  if (at >= kept) {
    const inChunk = chunk.lastIndexOf(LF, from + at - kept);
    if (inChunk >= from) return kept + inChunk - from;
    at = kept - 1;
  }
  return at < 0 ? -1 : held.subarray(0, kept).lastIndexOf(LF, at);
}

/** The position of the first `\n` at or after `at` in `held[0, kept)` followed by `chunk[from, ...)`, or -1. */
function firstLineEnd(held: Uint8Array, kept: number, chunk: Uint8Array, from: number, at: number): number {
  if (at < kept) {
    const inHeld = held.subarray(0, kept).indexOf(LF, at);
    if (inHeld >= 0) return inHeld;
    at = kept;
  }
  const inChunk = chunk.indexOf(LF, from + at - kept);
  return inChunk < 0 ? -1 : kept + inChunk - from;
}
