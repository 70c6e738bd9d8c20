/**
 * A worksheet part turned into bxp's intermediate CSV as it streams: bytes go in as they are inflated, CSV
 * text comes out row by row, so neither the sheet's XML nor its rows are ever whole in memory.
 *
 * bxp's rendering rules are listed in `../xlsx.ts`; this module applies them to rows as they complete.
 *
 * @example
 * ```ts
 * import { SheetCsv } from "./sheet.ts";
 * import assert from "node:assert/strict";
 * const sheet = new SheetCsv({ headerRow: 1, shared: [], dateStyles: new Set(), part: "xl/worksheets/sheet1.xml" });
 * let csv = sheet.push(new TextEncoder().encode('<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>'));
 * csv += sheet.finish();
 * assert.equal(csv, "x\n");
 * ```
 * @module
 */

import { xlsxNumberText } from "../number_text.ts";
import { decodeXmlEntities, oneCharAttrBounds, type RawXmlHandler, XmlScanner } from "./xml.ts";
import { utf16Refusal } from "./parts.ts";
import { concatBytes } from "../../util/bytes.ts";

/** 0-based column of a cell reference (`A1` -> 0, `AA7` -> 26); no letters gives 0, as bxp. */
export function columnIndex(ref: string): number {
  return columnIndexIn(ref, 0, ref.length);
}

/** {@link columnIndex} of the reference `src[start, end)`. */
function columnIndexIn(src: string, start: number, end: number): number {
  let col = 0;
  for (let i = start; i < end; i++) {
    const c = src.charCodeAt(i) | 0x20; // lower-case ASCII letters
    if (c < 97 || c > 122) break;
    col = col * 26 + (c - 96);
  }
  return col > 0 ? col - 1 : 0;
}

function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return [y, m, d];
}

/** "00" to "99": the two-digit fields of a date (a sheet of dates formats millions of them). */
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"));

const pad2 = (n: number) => n >= 0 && n < 100 ? TWO_DIGITS[n] : String(n).padStart(2, "0");

/** An Excel serial (1900 system; 25569 = 1970-01-01) as `YYYY-MM-DD HH:MM:SS`, seconds truncated. */
export function excelSerialToDateTime(serial: number): string {
  const whole = Math.floor(serial);
  const [y, m, d] = civilFromDays(whole - 25569);
  const secs = Math.floor((serial - whole) * 86400);
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs % 3600) / 60);
  const ss = secs % 60;
  return `${String(y).padStart(4, "0")}-${pad2(m)}-${pad2(d)} ${pad2(hh)}:${pad2(mm)}:${pad2(ss)}`;
}

const FLOAT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A cell's `t` attribute as the rendering tells types apart; anything else (`n`, none) is a number. */
const enum CellType {
  Number,
  Shared,
  Text,
  Bool,
  Error,
}

/** The {@link CellType} of the `t` value `src[start, end)` (start -1: no `t`). */
function cellTypeIn(src: string, start: number, end: number): CellType {
  const len = end - start;
  if (start < 0 || len === 0) return CellType.Number;
  if (len === 1) {
    const c = src.charCodeAt(start);
    return c === 115
      ? CellType.Shared
      : c === 98
      ? CellType.Bool
      : c === 101
      ? CellType.Error
      : CellType.Number;
  }
  if (len === 3 && src.startsWith("str", start)) return CellType.Text;
  return len === 9 && src.startsWith("inlineStr", start) ? CellType.Text : CellType.Number;
}

function resolveCell(
  raw: string,
  type: CellType,
  style: number,
  shared: readonly string[],
  dateStyles: ReadonlySet<number>,
): string {
  if (type === CellType.Shared) {
    const idx = parseUint(raw, -1);
    return idx >= 0 && idx < shared.length ? shared[idx] : "";
  }
  if (type === CellType.Text) return raw;
  if (type === CellType.Bool) return raw === "1" ? "TRUE" : "FALSE";
  if (type === CellType.Error || raw.length === 0) return "";
  if (dateStyles.has(style)) {
    if (!FLOAT_TEXT.test(raw)) return raw;
    return excelSerialToDateTime(Number(raw));
  }
  return xlsxNumberText(raw);
}

function parseUint(text: string, fallback: number): number {
  return parseUintIn(text, 0, text.length, fallback);
}

/** `src[start, end)` as an unsigned decimal integer, or `fallback` when empty (start -1: absent) or not digits. */
function parseUintIn(src: string, start: number, end: number, fallback: number): number {
  if (start < 0 || end <= start) return fallback;
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = src.charCodeAt(i);
    if (c < 48 || c > 57) return fallback;
    value = value * 10 + (c - 48);
  }
  // Up to 15 digits the sum is exact; longer ones are read as `Number` reads them (rounded the same way).
  return end - start <= 15 ? value : Number(src.substring(start, end));
}

/**
 * What makes a field quoted. A regular expression rather than a character loop: many values are built by
 * concatenation (dates), and the loop read them through V8's string ropes; the expression flattens each once
 * (measured on a 100 MB sheet: about a tenth of the sheet's scan).
 */
const NEEDS_QUOTES = /[,"\n\r]/;

function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? '"' + value.replaceAll('"', '""') + '"' : value;
}

/** Tags the sheet reader acts on, by local name (any namespace prefix ignored). */
const enum Tag {
  Other,
  Row,
  C,
  V,
  T,
}

/** The local name of `src[start, end)` (after the first `:`), as a {@link Tag}. */
function tagOf(src: string, start: number, end: number): Tag {
  // A bounded search: `src` is a whole chunk of the part.
  for (let i = start; i < end; i++) {
    if (src.charCodeAt(i) === 58 /* : */) {
      start = i + 1;
      break;
    }
  }
  const len = end - start;
  if (len === 1) {
    const c = src.charCodeAt(start);
    return c === 99 ? Tag.C : c === 118 ? Tag.V : c === 116 ? Tag.T : Tag.Other;
  }
  return len === 3 && src.startsWith("row", start) ? Tag.Row : Tag.Other;
}

const ROW_ATTRS = ["r"];
const CELL_ATTRS = ["t", "s", "r"];
const T = 0, S = 2, R = 4; // where each of CELL_ATTRS has its bounds

/** One CSV line (comma, minimal double-quote quoting, LF). */
export function csvLine(row: readonly string[]): string {
  let line = "";
  for (let i = 0; i < row.length; i++) line += (i === 0 ? "" : ",") + csvField(row[i]);
  return line + "\n";
}

/**
 * The shaping state machine: fed XML tokens, hands each finished row to `onRow` (the header row with its
 * leading empty cells dropped, later rows cut/padded to the header width).
 */
export class SheetRows implements RawXmlHandler {
  readonly #headerRow: number;
  readonly #shared: readonly string[];
  readonly #dateStyles: ReadonlySet<number>;
  readonly #onRow: (row: string[]) => void;
  readonly #attrs = new Int32Array(2 * CELL_ATTRS.length);
  #cells: string[] = [];
  #colCount = 0;
  #skipCols = 0;
  #currentRow = 0;
  #inRow = false;
  #inCell = false;
  #inValue = false;
  #inInlineText = false;
  #cellCol = 0;
  #cellType = CellType.Number;
  #cellStyle = 0;
  #value = "";

  constructor(
    headerRow: number,
    shared: readonly string[],
    dateStyles: ReadonlySet<number>,
    onRow: (row: string[]) => void,
  ) {
    this.#headerRow = headerRow;
    this.#shared = shared;
    this.#dateStyles = dateStyles;
    this.#onRow = onRow;
  }

  open(src: string, nameStart: number, nameEnd: number, attrStart: number, attrEnd: number): void {
    const tag = tagOf(src, nameStart, nameEnd);
    if (tag === Tag.Row) {
      this.#inRow = true;
      const a = this.#attrs;
      oneCharAttrBounds(src, attrStart, attrEnd, ROW_ATTRS, a);
      this.#currentRow = parseUintIn(src, a[0], a[1], 0);
      this.#cells = [];
    } else if (this.#inRow && tag === Tag.C) {
      // A self-closing <c/> never sees its </c>: like bxp, it contributes no cell.
      this.#inCell = true;
      this.#value = "";
      const a = this.#attrs;
      oneCharAttrBounds(src, attrStart, attrEnd, CELL_ATTRS, a);
      this.#cellType = cellTypeIn(src, a[T], a[T + 1]);
      this.#cellStyle = parseUintIn(src, a[S], a[S + 1], 0);
      this.#cellCol = a[R] < 0 ? 0 : columnIndexIn(src, a[R], a[R + 1]);
    } else if (this.#inCell && tag === Tag.V) {
      this.#inValue = true;
    } else if (this.#inCell && tag === Tag.T) {
      this.#inInlineText = true;
    }
  }

  close(src: string, start: number, end: number): void {
    const tag = tagOf(src, start, end);
    if (tag === Tag.V) this.#inValue = false;
    else if (tag === Tag.T) this.#inInlineText = false;
    else if (tag === Tag.C) {
      this.#inCell = false;
      this.#inValue = false;
      this.#inInlineText = false;
      if (this.#currentRow >= this.#headerRow) {
        const cells = this.#cells;
        while (cells.length <= this.#cellCol) cells.push("");
        cells[this.#cellCol] = resolveCell(
          this.#value,
          this.#cellType,
          this.#cellStyle,
          this.#shared,
          this.#dateStyles,
        );
      }
    } else if (tag === Tag.Row) {
      this.#inRow = false;
      const cells = this.#cells;
      if (this.#currentRow === this.#headerRow) {
        let skip = 0;
        while (skip < cells.length && cells[skip].length === 0) skip++;
        this.#skipCols = skip;
        const header = cells.slice(skip);
        this.#colCount = header.length;
        this.#onRow(header);
      } else if (this.#currentRow > this.#headerRow && this.#colCount > 0) {
        const start = Math.min(this.#skipCols, cells.length);
        const row = new Array<string>(this.#colCount);
        for (let i = 0; i < this.#colCount; i++) row[i] = cells[start + i] ?? "";
        this.#onRow(row);
      }
    }
  }

  text(src: string, start: number, end: number): void {
    if (this.#inValue || this.#inInlineText) this.#value += decodeXmlEntities(src.substring(start, end));
  }
}

/** What a sheet needs from its workbook. */
export interface SheetContext {
  headerRow: number;
  shared: readonly string[];
  dateStyles: ReadonlySet<number>;
  /** The part's path, for messages. */
  part: string;
}

/** Bytes decoded and scanned at a time. */
const DECODE_SLICE = 32 * 1024;

/** A worksheet part's bytes in, intermediate CSV text out (see the module notes). */
export class SheetCsv {
  readonly #scanner: XmlScanner;
  readonly #decoder = new TextDecoder("utf-8");
  readonly #part: string;
  /** The first bytes, held until two are known (a UTF-16 byte-order mark is refused). */
  #head: Uint8Array | null = new Uint8Array(0);
  #out = "";

  /** `onRow`: take the shaped rows instead of their CSV (then `push` and `finish` answer ""). */
  constructor(ctx: SheetContext, onRow?: (row: string[]) => void) {
    this.#part = ctx.part;
    const rows = new SheetRows(
      ctx.headerRow,
      ctx.shared,
      ctx.dateStyles,
      onRow ?? ((row) => {
        this.#out += csvLine(row);
      }),
    );
    this.#scanner = new XmlScanner(rows, true);
  }

  /** Takes the next bytes of the part; answers the CSV of the rows they completed ("" when none). */
  push(bytes: Uint8Array): string {
    if (this.#head !== null) {
      const head = this.#head.length === 0 ? bytes : concatBytes([this.#head, bytes]);
      if (head.length < 2) {
        this.#head = head.slice();
        return "";
      }
      this.#head = null;
      this.#check(head);
      bytes = head;
    }
    // Decoded in slices: strings stay small enough for the young generation, where garbage is cheap (a
    // large string goes straight to the old one and lingers until a full collection).
    for (let at = 0; at < bytes.length; at += DECODE_SLICE) {
      this.#scanner.push(this.#decoder.decode(bytes.subarray(at, at + DECODE_SLICE), { stream: true }));
    }
    return this.#take();
  }

  /** Ends the part; answers the CSV of the rows still open. */
  finish(): string {
    if (this.#head !== null) {
      const head = this.#head;
      this.#head = null;
      this.#check(head);
      this.#scanner.push(this.#decoder.decode(head, { stream: true }));
    }
    this.#scanner.push(this.#decoder.decode());
    this.#scanner.finish();
    return this.#take();
  }

  #check(head: Uint8Array): void {
    const refusal = utf16Refusal(head, this.#part);
    if (refusal !== null) throw refusal;
  }

  #take(): string {
    const out = this.#out;
    this.#out = "";
    return out;
  }
}
