/**
 * The benchmark input: bxp's own workload shape (its `scripts/bench/gen.py`), produced as a stream of byte
 * chunks so that millions of rows never sit in memory.
 *
 * Columns are `id, name, date, amount`, then `col4 … col{C-1}` of random ASCII letters and digits. Row `i`
 * holds `i`, `name{i}`, a `DD.MM.2024` date cycling through days 1–28 and months 1–12, and an amount with
 * two decimals drawn uniformly from 10.00–1000.00. Same spec, same bytes.
 *
 * @example
 * ```ts
 * import { workloadChunks } from "./workload.ts";
 * import assert from "node:assert/strict";
 * let text = "";
 * for (const chunk of workloadChunks({ rows: 3, cols: 5 })) {
 *   text += new TextDecoder().decode(chunk); // consume each chunk before asking for the next: the buffer is reused
 * }
 * assert.equal(text.trimEnd().split("\n").length, 4); // the header and three rows
 * ```
 * @module
 */

import { SeededRandom } from "./random.ts";

/** What to generate. */
export interface WorkloadSpec {
  /** Data rows (the header is extra). */
  rows: number;
  /** Total columns, at least the four fixed ones. */
  cols: number;
  /** Characters in each filler cell (20 in bxp's bench). */
  cellWidth?: number;
  /** PRNG seed (42 unless given). */
  seed?: number;
  /**
   * Every field (header included) between double quotes, as spreadsheet and CRM exports write them. The
   * values are the same as unquoted, so is the converted output.
   */
  quoted?: boolean;
}

/** The four leading columns every workload has. */
export const FIXED_COLUMNS: readonly string[] = ["id", "name", "date", "amount"];

/** The default seed, as in bxp's generator. */
export const DEFAULT_SEED = 42;

/** The default filler cell width. */
export const DEFAULT_CELL_WIDTH = 20;

const ALPHABET = new TextEncoder().encode("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
const COMMA = 0x2c;
const QUOTE = 0x22;
const DOT = 0x2e;
const NEWLINE = 0x0a;
const ZERO = 0x30;
const NAME_PREFIX = new TextEncoder().encode("name");
const YEAR_SUFFIX = new TextEncoder().encode(".2024");
// Filler is the bulk of the bytes (2 GB at 1024 columns), so one 32-bit draw fills four characters through
// a table of character pairs indexed by 12 bits (a slight bias towards the first letters is harmless here).
const PAIR_INDEX_BITS = 12;
const PAIR_INDEX_MASK = (1 << PAIR_INDEX_BITS) - 1;
const CHAR_PAIRS = (() => {
  const pairs = new Uint8Array(2 << PAIR_INDEX_BITS);
  for (let i = 0; i <= PAIR_INDEX_MASK; i++) {
    pairs[2 * i] = ALPHABET[i % ALPHABET.length];
    pairs[2 * i + 1] = ALPHABET[Math.floor(i / ALPHABET.length) % ALPHABET.length];
  }
  return pairs;
})();

/** The header names for a workload of `cols` columns. Throws when `cols` is below the fixed four. */
export function workloadColumns(cols: number): string[] {
  if (!Number.isInteger(cols) || cols < FIXED_COLUMNS.length) {
    throw new RangeError(`a workload needs at least ${FIXED_COLUMNS.length} columns, got ${cols}`);
  }
  const names = [...FIXED_COLUMNS];
  for (let i = FIXED_COLUMNS.length; i < cols; i++) names.push(`col${i}`);
  return names;
}

/** Writes the decimal digits of a non-negative integer at `pos`; returns the position after them. */
function putDigits(buf: Uint8Array, pos: number, n: number): number {
  let len = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) len++;
  let end = pos + len;
  for (let rest = n; end > pos; rest = Math.floor(rest / 10)) buf[--end] = ZERO + (rest % 10);
  return pos + len;
}

function putTwoDigits(buf: Uint8Array, pos: number, n: number): number {
  buf[pos] = ZERO + Math.floor(n / 10);
  buf[pos + 1] = ZERO + (n % 10);
  return pos + 2;
}

/** The longest a row can be, so a chunk always has room for a whole one. */
function maxRowBytes(extraCols: number, cellWidth: number, quoted: boolean): number {
  const fixed = 16 + 1 + 4 + 16 + 1 + 10 + 1 + 7; // id, name{id}, date, amount with separators
  const quotes = quoted ? 2 * (extraCols + 4) : 0;
  return fixed + extraCols * (cellWidth + 1) + quotes + 1;
}

/**
 * The workload CSV as byte chunks of about `chunkBytes` (header first, LF line ends, no quoting needed; every
 * field quoted when `spec.quoted`).
 * Each yielded array is a view of one reused buffer: it is valid until the next chunk is requested.
 */
export function* workloadChunks(spec: WorkloadSpec, chunkBytes = 1 << 20): Generator<Uint8Array> {
  const columns = workloadColumns(spec.cols);
  const cellWidth = spec.cellWidth ?? DEFAULT_CELL_WIDTH;
  if (!Number.isInteger(spec.rows) || spec.rows < 0) throw new RangeError(`bad row count ${spec.rows}`);
  if (!Number.isInteger(cellWidth) || cellWidth < 1) throw new RangeError(`bad cell width ${cellWidth}`);
  const extraCols = columns.length - FIXED_COLUMNS.length;
  const quoted = spec.quoted === true;
  const rowMax = maxRowBytes(extraCols, cellWidth, quoted);
  const header = new TextEncoder().encode(
    (quoted ? columns.map((c) => `"${c}"`) : columns).join(",") + "\n",
  );
  const buf = new Uint8Array(Math.max(chunkBytes, rowMax, header.length) + rowMax);
  const rng = new SeededRandom(spec.seed ?? DEFAULT_SEED);
  // Puts a field's opening or closing quote: nothing unless quoted.
  const quote = quoted
    ? (pos: number) => {
      buf[pos] = QUOTE;
      return pos + 1;
    }
    : (pos: number) => pos;

  buf.set(header);
  let pos = header.length;
  for (let i = 0; i < spec.rows; i++) {
    if (pos + rowMax > buf.length) {
      yield buf.subarray(0, pos);
      pos = 0;
    }
    pos = quote(pos);
    pos = putDigits(buf, pos, i);
    pos = quote(pos);
    buf[pos++] = COMMA;
    pos = quote(pos);
    buf.set(NAME_PREFIX, pos);
    pos = putDigits(buf, pos + NAME_PREFIX.length, i);
    pos = quote(pos);
    buf[pos++] = COMMA;
    pos = quote(pos);
    pos = putTwoDigits(buf, pos, (i % 28) + 1);
    buf[pos++] = DOT;
    pos = putTwoDigits(buf, pos, (i % 12) + 1);
    buf.set(YEAR_SUFFIX, pos);
    pos += YEAR_SUFFIX.length;
    pos = quote(pos);
    buf[pos++] = COMMA;
    const cents = rng.intBetween(1000, 100000);
    pos = quote(pos);
    pos = putDigits(buf, pos, Math.floor(cents / 100));
    buf[pos++] = DOT;
    pos = putTwoDigits(buf, pos, cents % 100);
    pos = quote(pos);
    for (let c = 0; c < extraCols; c++) {
      buf[pos++] = COMMA;
      pos = quote(pos);
      let k = 0;
      for (; k + 4 <= cellWidth; k += 4) {
        const draw = rng.nextUint32();
        const lo = (draw & PAIR_INDEX_MASK) << 1;
        const hi = ((draw >>> PAIR_INDEX_BITS) & PAIR_INDEX_MASK) << 1;
        buf[pos] = CHAR_PAIRS[lo];
        buf[pos + 1] = CHAR_PAIRS[lo + 1];
        buf[pos + 2] = CHAR_PAIRS[hi];
        buf[pos + 3] = CHAR_PAIRS[hi + 1];
        pos += 4;
      }
      for (; k < cellWidth; k++) buf[pos++] = ALPHABET[rng.nextUint32() % ALPHABET.length];
      pos = quote(pos);
    }
    buf[pos++] = NEWLINE;
  }
  if (pos > 0) yield buf.subarray(0, pos);
}
