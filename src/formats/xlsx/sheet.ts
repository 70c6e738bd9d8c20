/**
 * A worksheet part turned into bxp's intermediate CSV as it streams: bytes go in as they are inflated, CSV
 * text comes out row by row, so neither the sheet's XML nor its rows are ever whole in memory.
 *
 * bxp's rendering rules are listed in `../xlsx.ts`; this module applies them to rows as they complete.
 *
 * @example
 * ```ts
 * import { SheetCsv } from "./sheet.ts";
 * const sheet = new SheetCsv({ headerRow: 1, shared: [], dateStyles: new Set(), part: "xl/worksheets/sheet1.xml" });
 * let csv = sheet.push(new TextEncoder().encode('<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>'));
 * csv += sheet.finish(); // "x\n"
 * ```
 * @module
 */

import { xlsxNumberText } from "../number_text.ts";
import { attr, decodeXmlEntities, localName, XmlScanner } from "./xml.ts";
import { utf16Refusal } from "./parts.ts";

/** 0-based column of a cell reference (`A1` -> 0, `AA7` -> 26); no letters gives 0, as bxp. */
export function columnIndex(ref: string): number {
  let col = 0;
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower-case ASCII letters
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

const pad2 = (n: number) => String(n).padStart(2, "0");

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
const DIGITS = /^\d+$/;

function resolveCell(
  raw: string,
  type: string,
  style: number,
  shared: readonly string[],
  dateStyles: ReadonlySet<number>,
): string {
  if (type === "s") {
    const idx = DIGITS.test(raw) ? Number(raw) : -1;
    return idx >= 0 && idx < shared.length ? shared[idx] : "";
  }
  if (type === "inlineStr" || type === "str") return raw;
  if (type === "b") return raw === "1" ? "TRUE" : "FALSE";
  if (type === "e" || raw.length === 0) return "";
  if (dateStyles.has(style)) {
    if (!FLOAT_TEXT.test(raw)) return raw;
    return excelSerialToDateTime(Number(raw));
  }
  return xlsxNumberText(raw);
}

function parseUint(text: string | null, fallback: number): number {
  return text !== null && DIGITS.test(text) ? Number(text) : fallback;
}

const NEEDS_QUOTES = /[,"\n\r]/;

function csvField(value: string): string {
  if (!NEEDS_QUOTES.test(value)) return value;
  return '"' + value.replaceAll('"', '""') + '"';
}

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
export class SheetRows {
  readonly #headerRow: number;
  readonly #shared: readonly string[];
  readonly #dateStyles: ReadonlySet<number>;
  readonly #onRow: (row: string[]) => void;
  #cells: string[] = [];
  #colCount = 0;
  #skipCols = 0;
  #currentRow = 0;
  #inRow = false;
  #inCell = false;
  #inValue = false;
  #inInlineText = false;
  #cellCol = 0;
  #cellType = "";
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

  open(name: string, attrs: string): void {
    const tag = localName(name);
    if (tag === "row") {
      this.#inRow = true;
      this.#currentRow = parseUint(attr(attrs, "r"), 0);
      this.#cells = [];
    } else if (this.#inRow && tag === "c") {
      // A self-closing <c/> never sees its </c>: like bxp, it contributes no cell.
      this.#inCell = true;
      this.#value = "";
      this.#cellType = attr(attrs, "t") ?? "";
      this.#cellStyle = parseUint(attr(attrs, "s"), 0);
      this.#cellCol = columnIndex(attr(attrs, "r") ?? "");
    } else if (this.#inCell && tag === "v") {
      this.#inValue = true;
    } else if (this.#inCell && tag === "t") {
      this.#inInlineText = true;
    }
  }

  close(name: string): void {
    const tag = localName(name);
    if (tag === "v") this.#inValue = false;
    else if (tag === "t") this.#inInlineText = false;
    else if (tag === "c") {
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
    } else if (tag === "row") {
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

  text(text: string): void {
    if (this.#inValue || this.#inInlineText) this.#value += decodeXmlEntities(text);
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
    this.#scanner = new XmlScanner(rows);
  }

  /** Takes the next bytes of the part; answers the CSV of the rows they completed ("" when none). */
  push(bytes: Uint8Array): string {
    if (this.#head !== null) {
      const head = this.#head.length === 0 ? bytes : concat(this.#head, bytes);
      if (head.length < 2) {
        this.#head = head.slice();
        return "";
      }
      this.#head = null;
      this.#check(head);
      bytes = head;
    }
    this.#scanner.push(this.#decoder.decode(bytes, { stream: true }));
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

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
