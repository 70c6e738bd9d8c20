/**
 * A small xlsx (OOXML) reader for bxp's `xlsx_sheet` pre-pass: pick a sheet by name prefix and turn it into
 * the intermediate CSV bxp writes as `<stem><output_suffix>` (output_suffix includes the extension, e.g.
 * `_cash.csv`).
 *
 * bxp's rendering rules:
 * - Rows before `header_row` (1-based, the row's `r` attribute) are ignored. In the header row, leading
 *   empty cells are dropped (a blank margin column A); the remaining header cells fix the column count.
 *   Every later row drops the same number of leading columns and is padded with "" or cut to that count.
 *   Rows with no cells in the XML produce no line; a row whose cells are all empty gives a line of commas.
 * - Cells are placed by their column letters (`r="C7"`), so gaps become "".
 * - Shared strings (`t="s"`, all `<t>` runs of the item joined), inline strings (`t="inlineStr"`) and
 *   formula strings (`t="str"`) are text; booleans (`t="b"`) are `TRUE`/`FALSE`; errors (`t="e"`) and empty
 *   values are "".
 * - A number whose cell style is a date/time format (built-in numFmtId 14-22, 45-47, or a custom format code
 *   containing d/y/h/m outside quotes and brackets) prints as `YYYY-MM-DD HH:MM:SS` (Excel 1900 serial,
 *   seconds truncated, not rounded). Other numbers: trailing fractional zeros trimmed (`1.0000` -> `1`),
 *   exponents expanded (`2.087960758E9` -> `2087960758`), see {@link xlsxNumberText}.
 * - XML entities `&amp; &lt; &gt; &quot; &apos; &#N; &#xN;` are decoded; unknown ones are kept verbatim.
 * - The CSV is comma-delimited, LF-terminated; a value containing `,` `"` CR or LF is wrapped in double
 *   quotes with inner quotes doubled.
 * - A part in UTF-16 (BOM FF FE / FE FF) is refused ({@link XlsxError} kind `Utf16XmlUnsupported`; bxp warns
 *   and skips the workbook).
 *
 * When several sheets start with the prefix, the first in workbook order is used.
 *
 * @example
 * ```ts
 * import { extractSheetCsv } from "./xlsx.ts";
 * declare const workbookBytes: Uint8Array;
 * const sheet = extractSheetCsv(workbookBytes, { name: "CASH OPERATION", headerRow: 11 });
 * // sheet?.csv is the intermediate CSV text, sheet?.sheetName the matched sheet
 * ```
 * @module
 */

import { unzipSync } from "fflate";
import { xlsxNumberText } from "./number_text.ts";

/** Why a workbook cannot be read. */
export type XlsxErrorKind = "Utf16XmlUnsupported" | "XlsxMissingPart" | "XlsxCorrupt";

/** A refused workbook; the message names the part. */
export class XlsxError extends Error {
  readonly kind: XlsxErrorKind;
  constructor(kind: XlsxErrorKind, message: string) {
    super(message);
    this.name = "XlsxError";
    this.kind = kind;
  }
}

/** One sheet to extract (`xlsx_sheet` in the config). */
export interface XlsxSheetSpec {
  /** Prefix of the sheet name. */
  name: string;
  /** 1-based row holding the column headers. */
  headerRow: number;
}

// ---------------------------------------------------------------------------
// Minimal XML scanning
// ---------------------------------------------------------------------------

type XmlToken =
  | { kind: "open"; name: string; attrs: string; selfClose: boolean }
  | { kind: "close"; name: string }
  | { kind: "text"; text: string };

function* xmlTokens(src: string): Generator<XmlToken> {
  let pos = 0;
  const n = src.length;
  while (pos < n) {
    if (src.charCodeAt(pos) !== 60 /* < */) {
      let lt = src.indexOf("<", pos);
      if (lt === -1) lt = n;
      yield { kind: "text", text: src.substring(pos, lt) };
      pos = lt;
      continue;
    }
    const next = src.charCodeAt(pos + 1);
    if (next === 63 /* ? */) {
      pos = skipPast(src, pos, "?>");
      continue;
    }
    if (next === 33 /* ! */) {
      pos = src.startsWith("<!--", pos) ? skipPast(src, pos + 4, "-->") : skipPast(src, pos, ">");
      continue;
    }
    if (next === 47 /* / */) {
      let gt = src.indexOf(">", pos);
      if (gt === -1) gt = n;
      yield { kind: "close", name: src.substring(pos + 2, gt).trimEnd() };
      pos = gt + 1;
      continue;
    }
    pos++;
    const nameStart = pos;
    while (pos < n) {
      const c = src.charCodeAt(pos);
      if (c === 62 || c === 47 || isXmlSpace(c)) break;
      pos++;
    }
    const name = src.substring(nameStart, pos);
    while (pos < n && isXmlSpace(src.charCodeAt(pos))) pos++;
    const attrStart = pos;
    let quote = 0;
    while (pos < n) {
      const c = src.charCodeAt(pos);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if (c === 34 || c === 39) {
        quote = c;
      } else if (c === 62 || c === 47) {
        break;
      }
      pos++;
    }
    const attrs = src.substring(attrStart, pos).trimEnd();
    let selfClose = false;
    if (src.charCodeAt(pos) === 47) {
      selfClose = true;
      pos++;
    }
    if (src.charCodeAt(pos) === 62) pos++;
    if (name.length > 0) yield { kind: "open", name, attrs, selfClose };
  }
}

function skipPast(src: string, from: number, needle: string): number {
  const at = src.indexOf(needle, from);
  return at === -1 ? src.length : at + needle.length;
}

function isXmlSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.substring(colon + 1);
}

/** Raw value of attribute `name` (also matched with any namespace prefix, `id` finds `r:id`). */
function attr(attrs: string, name: string): string | null {
  let pos = 0;
  const n = attrs.length;
  while (pos < n) {
    while (pos < n && isXmlSpace(attrs.charCodeAt(pos))) pos++;
    if (pos >= n) break;
    const eq = attrs.indexOf("=", pos);
    if (eq === -1) break;
    const rawName = attrs.substring(pos, eq).trim();
    pos = eq + 1;
    if (pos >= n) break;
    const q = attrs.charCodeAt(pos);
    if (q !== 34 && q !== 39) {
      while (pos < n && !isXmlSpace(attrs.charCodeAt(pos))) pos++;
      continue;
    }
    pos++;
    let end = attrs.indexOf(String.fromCharCode(q), pos);
    if (end === -1) end = n;
    const value = attrs.substring(pos, end);
    pos = end + 1;
    if (rawName === name || (!name.includes(":") && rawName.endsWith(":" + name))) return value;
  }
  return null;
}

/** Decode XML entity and character references (lenient, as bxp). */
export function decodeXmlEntities(raw: string): string {
  if (!raw.includes("&")) return raw;
  let out = "";
  let pos = 0;
  for (;;) {
    const amp = raw.indexOf("&", pos);
    if (amp === -1) return out + raw.substring(pos);
    out += raw.substring(pos, amp);
    const semi = raw.indexOf(";", amp + 1);
    if (semi === -1) {
      out += "&";
      pos = amp + 1;
      continue;
    }
    const entity = raw.substring(amp + 1, semi);
    pos = semi + 1;
    switch (entity) {
      case "amp":
        out += "&";
        continue;
      case "lt":
        out += "<";
        continue;
      case "gt":
        out += ">";
        continue;
      case "quot":
        out += '"';
        continue;
      case "apos":
        out += "'";
        continue;
    }
    if (entity.length > 1 && entity[0] === "#") {
      const hex = entity.length > 2 && entity[1] === "x";
      const digits = hex ? entity.substring(2) : entity.substring(1);
      const valid = hex ? /^[0-9a-fA-F]+$/.test(digits) : /^[0-9]+$/.test(digits);
      const cp = valid ? parseInt(digits, hex ? 16 : 10) : NaN;
      const ok = Number.isFinite(cp) && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
      out += String.fromCodePoint(ok ? cp : 0xfffd);
      continue;
    }
    out += "&" + entity + ";";
  }
}

function hasUtf16Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
}

// ---------------------------------------------------------------------------
// Cell helpers
// ---------------------------------------------------------------------------

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

/** True for Excel's built-in date/time number formats. */
export function isBuiltinDateFormat(id: number): boolean {
  return (id >= 14 && id <= 22) || (id >= 45 && id <= 47);
}

/** True when a custom number format code shows a date or time (d/y/h/m outside quotes and brackets). */
export function isDateFormatCode(code: string): boolean {
  if (code.toLowerCase() === "general") return false;
  let inString = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (inString !== 0) {
      if (c === inString) inString = 0;
      continue;
    }
    if (c === 34 || c === 39) inString = c;
    else if (c === 91 /* [ */) {
      while (i < code.length && code.charCodeAt(i) !== 93) i++;
    } else if ("dDyYhHmM".includes(code[i])) return true;
  }
  return false;
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

function resolveCell(
  raw: string,
  type: string,
  style: number,
  shared: readonly string[],
  dateStyles: ReadonlySet<number>,
): string {
  if (type === "s") {
    const idx = /^\d+$/.test(raw) ? Number(raw) : -1;
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

// ---------------------------------------------------------------------------
// Workbook
// ---------------------------------------------------------------------------

const utf8 = new TextDecoder("utf-8");

function partText(bytes: Uint8Array, part: string): string {
  if (hasUtf16Bom(bytes)) {
    throw new XlsxError(
      "Utf16XmlUnsupported",
      `xlsx part '${part}' is UTF-16 encoded XML, which is not supported — re-save the workbook as a normal .xlsx`,
    );
  }
  return utf8.decode(bytes);
}

/** An opened workbook: sheet names in workbook order, shared strings and date styles parsed once. */
export class XlsxWorkbook {
  /** Sheet names in workbook order. */
  readonly sheetNames: readonly string[];
  readonly #zip: Uint8Array;
  readonly #entryNames: Map<string, string>; // normalised path -> raw name in the archive
  readonly #sheetPaths: Map<string, string>;
  readonly #shared: string[];
  readonly #dateStyles: Set<number>;

  /** Open workbook `bytes` (the .xlsx file). */
  constructor(bytes: Uint8Array) {
    this.#zip = bytes;
    this.#entryNames = new Map();
    try {
      unzipSync(bytes, {
        filter: (file) => {
          this.#entryNames.set(file.name.replaceAll("\\", "/"), file.name);
          return false;
        },
      });
    } catch (err) {
      throw new XlsxError("XlsxCorrupt", `cannot read xlsx archive: ${(err as Error).message}`);
    }
    const parts = this.#readParts([
      "xl/workbook.xml",
      "xl/_rels/workbook.xml.rels",
      "xl/sharedStrings.xml",
      "xl/styles.xml",
    ]);
    const [names, paths] = parseWorkbook(
      parts.get("xl/workbook.xml"),
      parts.get("xl/_rels/workbook.xml.rels"),
    );
    this.sheetNames = names;
    this.#sheetPaths = paths;
    this.#shared = parseSharedStrings(parts.get("xl/sharedStrings.xml"));
    this.#dateStyles = parseDateStyles(parts.get("xl/styles.xml"));
  }

  #readParts(paths: readonly string[]): Map<string, string> {
    const rawToPath = new Map<string, string>();
    for (const p of paths) {
      const raw = this.#entryNames.get(p);
      if (raw !== undefined) rawToPath.set(raw, p);
    }
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(this.#zip, { filter: (file) => rawToPath.has(file.name) });
    } catch (err) {
      throw new XlsxError("XlsxCorrupt", `cannot read xlsx archive: ${(err as Error).message}`);
    }
    const out = new Map<string, string>();
    for (const [raw, bytes] of Object.entries(files)) {
      const path = rawToPath.get(raw)!;
      out.set(path, partText(bytes, path));
    }
    return out;
  }

  /** The first sheet (workbook order) whose name starts with `prefix`, or null. */
  findSheet(prefix: string): string | null {
    return this.sheetNames.find((name) => name.startsWith(prefix)) ?? null;
  }

  /**
   * Rows of a sheet as bxp shapes them: the header row first (leading empty cells dropped), then every
   * later row cut/padded to the header width. Empty when the header row is not in the sheet.
   */
  sheetRows(sheetName: string, headerRow: number): string[][] {
    const path = this.#sheetPaths.get(sheetName);
    if (path === undefined) throw new XlsxError("XlsxMissingPart", `xlsx has no sheet named '${sheetName}'`);
    const text = this.#readParts([path]).get(path);
    if (text === undefined) {
      throw new XlsxError("XlsxMissingPart", `xlsx sheet '${sheetName}' points to missing part '${path}'`);
    }
    return readSheet(text, headerRow, this.#shared, this.#dateStyles);
  }
}

function sheetPartPath(target: string): string {
  // bxp joins "xl/" + Target; a package-absolute Target ("/xl/...") is read from the package root.
  return target.startsWith("/") ? target.substring(1) : "xl/" + target;
}

function parseWorkbook(
  workbookXml: string | undefined,
  relsXml: string | undefined,
): [string[], Map<string, string>] {
  const ridToTarget = new Map<string, string>();
  if (relsXml !== undefined) {
    for (const tok of xmlTokens(relsXml)) {
      if (tok.kind !== "open" || localName(tok.name) !== "Relationship") continue;
      const type = attr(tok.attrs, "Type");
      const id = attr(tok.attrs, "Id");
      const target = attr(tok.attrs, "Target");
      if (type === null || !type.endsWith("/worksheet") || id === null || target === null) continue;
      ridToTarget.set(id, decodeXmlEntities(target));
    }
  }
  const names: string[] = [];
  const paths = new Map<string, string>();
  if (workbookXml === undefined) return [names, paths];
  for (const tok of xmlTokens(workbookXml)) {
    if (tok.kind !== "open" || localName(tok.name) !== "sheet") continue;
    const name = attr(tok.attrs, "name");
    const rid = attr(tok.attrs, "id");
    if (name === null || rid === null) continue;
    const target = ridToTarget.get(rid);
    if (target === undefined) continue;
    const decoded = decodeXmlEntities(name);
    if (!paths.has(decoded)) names.push(decoded);
    paths.set(decoded, sheetPartPath(target));
  }
  return [names, paths];
}

function parseSharedStrings(xml: string | undefined): string[] {
  const strings: string[] = [];
  if (xml === undefined) return strings;
  let inItem = false;
  let inText = false;
  let current = "";
  for (const tok of xmlTokens(xml)) {
    if (tok.kind === "open") {
      const tag = localName(tok.name);
      if (tag === "si") {
        inItem = true;
        current = "";
      } else if (inItem && tag === "t") {
        inText = true;
      }
    } else if (tok.kind === "close") {
      const tag = localName(tok.name);
      if (tag === "si") {
        inItem = false;
        inText = false;
        strings.push(current);
      } else if (tag === "t") {
        inText = false;
      }
    } else if (inText) {
      current += decodeXmlEntities(tok.text);
    }
  }
  return strings;
}

function parseDateStyles(xml: string | undefined): Set<number> {
  const dateXf = new Set<number>();
  if (xml === undefined) return dateXf;
  const customDate = new Set<number>();
  for (const tok of xmlTokens(xml)) {
    if (tok.kind !== "open" || localName(tok.name) !== "numFmt") continue;
    const id = attr(tok.attrs, "numFmtId");
    const code = attr(tok.attrs, "formatCode");
    if (id === null || code === null || !/^\d+$/.test(id)) continue;
    if (isDateFormatCode(decodeXmlEntities(code))) customDate.add(Number(id));
  }
  let inCellXfs = false;
  let index = 0;
  for (const tok of xmlTokens(xml)) {
    if (tok.kind === "open") {
      const tag = localName(tok.name);
      if (tag === "cellXfs") {
        inCellXfs = true;
      } else if (inCellXfs && tag === "xf") {
        const id = attr(tok.attrs, "numFmtId");
        if (id !== null && /^\d+$/.test(id)) {
          const n = Number(id);
          if (isBuiltinDateFormat(n) || customDate.has(n)) dateXf.add(index);
        }
        index++;
      }
    } else if (tok.kind === "close" && localName(tok.name) === "cellXfs") {
      inCellXfs = false;
      index = 0;
    }
  }
  return dateXf;
}

function parseUint(text: string | null, fallback: number): number {
  return text !== null && /^\d+$/.test(text) ? Number(text) : fallback;
}

function readSheet(
  xml: string,
  headerRow: number,
  shared: readonly string[],
  dateStyles: ReadonlySet<number>,
): string[][] {
  const rows: string[][] = [];
  let cells: string[] = [];
  let colCount = 0;
  let skipCols = 0;
  let currentRow = 0;
  let inRow = false;
  let inCell = false;
  let inValue = false;
  let inInlineText = false;
  let cellCol = 0;
  let cellType = "";
  let cellStyle = 0;
  let value = "";
  for (const tok of xmlTokens(xml)) {
    if (tok.kind === "open") {
      const tag = localName(tok.name);
      if (tag === "row") {
        inRow = true;
        currentRow = parseUint(attr(tok.attrs, "r"), 0);
        cells = [];
      } else if (inRow && tag === "c") {
        // A self-closing <c/> never sees its </c>: like bxp, it contributes no cell.
        inCell = true;
        value = "";
        cellType = attr(tok.attrs, "t") ?? "";
        cellStyle = parseUint(attr(tok.attrs, "s"), 0);
        cellCol = columnIndex(attr(tok.attrs, "r") ?? "");
      } else if (inCell && tag === "v") {
        inValue = true;
      } else if (inCell && tag === "t") {
        inInlineText = true;
      }
    } else if (tok.kind === "close") {
      const tag = localName(tok.name);
      if (tag === "v") inValue = false;
      else if (tag === "t") inInlineText = false;
      else if (tag === "c") {
        inCell = false;
        inValue = false;
        inInlineText = false;
        if (currentRow >= headerRow) {
          while (cells.length <= cellCol) cells.push("");
          cells[cellCol] = resolveCell(value, cellType, cellStyle, shared, dateStyles);
        }
      } else if (tag === "row") {
        inRow = false;
        if (currentRow === headerRow) {
          skipCols = 0;
          while (skipCols < cells.length && cells[skipCols].length === 0) skipCols++;
          const header = cells.slice(skipCols);
          colCount = header.length;
          rows.push(header);
        } else if (currentRow > headerRow && colCount > 0) {
          const start = Math.min(skipCols, cells.length);
          const row = new Array<string>(colCount);
          for (let i = 0; i < colCount; i++) row[i] = cells[start + i] ?? "";
          rows.push(row);
        }
      }
    } else if (inValue || inInlineText) {
      value += decodeXmlEntities(tok.text);
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------
// Intermediate CSV
// ---------------------------------------------------------------------------

function csvField(value: string): string {
  if (!/[,"\n\r]/.test(value)) return value;
  return '"' + value.replaceAll('"', '""') + '"';
}

/** The intermediate CSV text for shaped sheet rows (comma, minimal double-quote quoting, LF endings). */
export function xlsxRowsToCsv(rows: readonly (readonly string[])[]): string {
  let out = "";
  for (const row of rows) out += row.map(csvField).join(",") + "\n";
  return out;
}

/**
 * Extract one sheet of a workbook as bxp's intermediate CSV. Returns null when no sheet name starts with
 * `spec.name` (bxp then writes nothing for it).
 */
export function extractSheetCsv(
  bytes: Uint8Array,
  spec: XlsxSheetSpec,
): { sheetName: string; csv: string } | null {
  const workbook = new XlsxWorkbook(bytes);
  const sheetName = workbook.findSheet(spec.name);
  if (sheetName === null) return null;
  return { sheetName, csv: xlsxRowsToCsv(workbook.sheetRows(sheetName, spec.headerRow)) };
}

/** Intermediate CSV file name: the workbook file name without `.xlsx`, then `output_suffix`. */
export function intermediateCsvName(xlsxFileName: string, outputSuffix: string): string {
  const stem = xlsxFileName.endsWith(".xlsx") ? xlsxFileName.slice(0, -5) : xlsxFileName;
  return stem + outputSuffix;
}
