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
 */
export class BlockSplitter {
  readonly #blockSize: number;
  readonly #maxLineBytes: number;
  readonly #onLineTooLong: () => never;
  readonly #buf: GrowableBytes;
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
    this.#buf = new GrowableBytes(blockSize * 2);
    this.#alloc = alloc;
  }

  #take(end: number): Uint8Array {
    const block = this.#alloc(end);
    block.set(this.#buf.data.subarray(0, end));
    return block;
  }

  /** Adds bytes; returns the blocks now complete (each ends with `\n`). */
  push(chunk: Uint8Array): Uint8Array[] {
    this.#buf.append(chunk);
    const out: Uint8Array[] = [];
    while (this.#buf.length >= this.#blockSize) {
      const content = this.#buf.data.subarray(0, this.#buf.length);
      // The last line end within two block sizes, else the first one after (a block never splits a line).
      let cut = content.lastIndexOf(LF, Math.min(content.length, this.#blockSize * 2) - 1);
      if (cut < 0) cut = content.indexOf(LF, this.#blockSize * 2);
      if (cut < 0) {
        if (content.length > this.#maxLineBytes) this.#onLineTooLong();
        break;
      }
      out.push(this.#take(cut + 1));
      this.#buf.dropFront(cut + 1);
    }
    return out;
  }

  /** The rest (may lack a final `\n`), or null when nothing is left. */
  finish(): Uint8Array | null {
    if (this.#buf.length === 0) return null;
    const rest = this.#take(this.#buf.length);
    this.#buf.length = 0;
    return rest;
  }
}
