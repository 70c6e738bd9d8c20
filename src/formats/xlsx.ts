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
 * The workbook is read by ranges: its central directory, then the small parts whole (workbook, relationships,
 * styles; shared strings are streamed into their table), and the sheet itself as a stream
 * ({@link SheetCsv}: inflated chunks in, CSV rows out), so a large sheet is never whole in memory.
 *
 * A workbook of three parts (zipped with fflate; inline strings, so no shared strings or styles) gives the
 * rows from its header row on:
 *
 * @example
 * ```ts
 * import { strToU8, zipSync } from "fflate";
 * import { extractSheetCsv } from "./xlsx.ts";
 * import assert from "node:assert/strict";
 * const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
 * const str = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
 * const rows = `<row r="1">${str("A1", "Bank report")}</row><row r="2">${str("A2", "Date")}${str("B2", "Amount")}` +
 *   `</row><row r="3">${str("A3", "2024-01-02")}<c r="B3"><v>12.50</v></c></row>`;
 * const workbookBytes = zipSync({
 *   "xl/workbook.xml": strToU8(`<workbook ${ns}><sheets><sheet name="CASH OPERATION 2024" r:id="s1"/></sheets></workbook>`),
 *   "xl/_rels/workbook.xml.rels": strToU8(
 *     `<Relationships><Relationship Id="s1" Type="/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
 *   ),
 *   "xl/worksheets/sheet1.xml": strToU8(`<worksheet ${ns}><sheetData>${rows}</sheetData></worksheet>`),
 * });
 * const sheet = await extractSheetCsv(workbookBytes, { name: "CASH OPERATION", headerRow: 2 });
 * assert.deepEqual(sheet, { sheetName: "CASH OPERATION 2024", csv: "Date,Amount\n2024-01-02,12.5\n" });
 * ```
 * @module
 */

import {
  bytesReader,
  memberDataOffset,
  type RangeReader,
  readZipEntries,
  type ZipEntry,
} from "./zip/archive.ts";
import { MemberInflater } from "./zip/member_inflater.ts";
import { readMemberWhole } from "./zip.ts";
import { parseDateStyles, parseWorkbook, SharedStrings, utf16Refusal, XlsxError } from "./xlsx/parts.ts";
import { XmlScanner } from "./xlsx/xml.ts";
import { csvLine, type SheetContext, SheetCsv } from "./xlsx/sheet.ts";

export { isBuiltinDateFormat, isDateFormatCode, XlsxError, type XlsxErrorKind } from "./xlsx/parts.ts";
export { decodeXmlEntities } from "./xlsx/xml.ts";
export { columnIndex, csvLine, excelSerialToDateTime, type SheetContext, SheetCsv } from "./xlsx/sheet.ts";

/** One sheet to extract (`xlsx_sheet` in the config). */
export interface XlsxSheetSpec {
  /** Prefix of the sheet name. */
  name: string;
  /** 1-based row holding the column headers. */
  headerRow: number;
}

/** The workbook, relationships and styles parts are read whole; larger ones are refused. */
export const SMALL_PART_MAX_BYTES = 64 * 1024 * 1024;
/**
 * Characters of shared strings a workbook may hold (the table stays in memory while the sheet streams:
 * about one byte per character for Latin-1 text, two otherwise, plus some 20 bytes per string).
 */
export const SHARED_STRINGS_MAX_CHARS = 64 * 1024 * 1024;
/** Compressed bytes read at a time from a streamed part. */
const PART_CHUNK = 256 * 1024;

const utf8 = new TextDecoder("utf-8");

function corrupt(err: unknown): XlsxError {
  if (err instanceof XlsxError) return err;
  return new XlsxError("XlsxCorrupt", `cannot read xlsx archive: ${(err as Error).message}`);
}

/**
 * Feeds a member's uncompressed bytes, inflated here chunk by chunk, to `onBytes` (the calling thread: used
 * for the shared strings and by {@link XlsxWorkbook.sheetRows}; the engine streams large sheets itself).
 */
export async function forEachMemberChunk(
  reader: RangeReader,
  entry: ZipEntry,
  onBytes: (bytes: Uint8Array) => void,
): Promise<void> {
  const inflater = await MemberInflater.open({ ...entry, name: entry.name });
  const start = await memberDataOffset(reader, entry);
  const end = start + entry.compressedSize;
  let at = start;
  do {
    const len = Math.min(PART_CHUNK, end - at);
    const chunk = await reader.read(at, len);
    at += len;
    for (const piece of inflater.push(chunk, at >= end)) onBytes(piece);
  } while (at < end);
}

/** An opened workbook: sheet names in workbook order, shared strings and date styles parsed once. */
export class XlsxWorkbook {
  /** Sheet names in workbook order. */
  readonly sheetNames: readonly string[];
  /** The archive. */
  readonly reader: RangeReader;
  readonly #entries: Map<string, ZipEntry>; // normalised path -> central directory record
  readonly #sheetPaths: Map<string, string>;
  readonly #shared: string[];
  readonly #dateStyles: Set<number>;

  private constructor(
    reader: RangeReader,
    entries: Map<string, ZipEntry>,
    names: string[],
    paths: Map<string, string>,
    shared: string[],
    dateStyles: Set<number>,
  ) {
    this.reader = reader;
    this.#entries = entries;
    this.sheetNames = names;
    this.#sheetPaths = paths;
    this.#shared = shared;
    this.#dateStyles = dateStyles;
  }

  /** Opens a workbook read through `reader` (the .xlsx file). Throws {@link XlsxError}. */
  static async open(reader: RangeReader): Promise<XlsxWorkbook> {
    const entries = new Map<string, ZipEntry>();
    const order = new Map<ZipEntry, number>();
    try {
      for (const [i, e] of (await readZipEntries(reader)).entries()) {
        entries.set(e.name.replaceAll("\\", "/"), e);
        order.set(e, i);
      }
    } catch (err) {
      throw corrupt(err);
    }
    const wanted = ["xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/sharedStrings.xml", "xl/styles.xml"]
      .filter((p) => entries.has(p))
      // Parts are checked in archive order, so the first UTF-16 part named is the first stored.
      .sort((a, b) => order.get(entries.get(a)!)! - order.get(entries.get(b)!)!);
    const texts = new Map<string, string>();
    let shared: string[] = [];
    try {
      for (const path of wanted) {
        const entry = entries.get(path)!;
        if (path === "xl/sharedStrings.xml") {
          shared = await readSharedStrings(reader, entry);
          continue;
        }
        if (entry.size > SMALL_PART_MAX_BYTES) {
          throw new XlsxError(
            "XlsxCorrupt",
            `xlsx part '${path}' is ${entry.size} bytes, more than the ${SMALL_PART_MAX_BYTES} read whole`,
          );
        }
        const bytes = await readMemberWhole(reader, entry);
        const refusal = utf16Refusal(bytes, path);
        if (refusal !== null) throw refusal;
        texts.set(path, utf8.decode(bytes));
      }
    } catch (err) {
      throw corrupt(err);
    }
    const [names, paths] = parseWorkbook(
      texts.get("xl/workbook.xml"),
      texts.get("xl/_rels/workbook.xml.rels"),
    );
    return new XlsxWorkbook(
      reader,
      entries,
      names,
      paths,
      shared,
      parseDateStyles(texts.get("xl/styles.xml")),
    );
  }

  /** The first sheet (workbook order) whose name starts with `prefix`, or null. */
  findSheet(prefix: string): string | null {
    return this.sheetNames.find((name) => name.startsWith(prefix)) ?? null;
  }

  /** The sheet's part: its path and central directory record. Throws {@link XlsxError} when missing. */
  sheetPart(sheetName: string): { path: string; entry: ZipEntry } {
    const path = this.#sheetPaths.get(sheetName);
    if (path === undefined) throw new XlsxError("XlsxMissingPart", `xlsx has no sheet named '${sheetName}'`);
    const entry = this.#entries.get(path);
    if (entry === undefined) {
      throw new XlsxError("XlsxMissingPart", `xlsx sheet '${sheetName}' points to missing part '${path}'`);
    }
    if (entry.method !== 0 && entry.method !== 8) {
      throw new XlsxError(
        "XlsxCorrupt",
        `cannot read xlsx archive: unknown compression type ${entry.method}`,
      );
    }
    return { path, entry };
  }

  /** What {@link SheetCsv} needs to render a sheet of this workbook. */
  sheetContext(path: string, headerRow: number): SheetContext {
    return { headerRow, shared: this.#shared, dateStyles: this.#dateStyles, part: path };
  }

  /**
   * Rows of a sheet as bxp shapes them: the header row first (leading empty cells dropped), then every
   * later row cut/padded to the header width. Empty when the header row is not in the sheet. The rows are
   * collected in memory: for tests and small sheets.
   */
  async sheetRows(sheetName: string, headerRow: number): Promise<string[][]> {
    const rows: string[][] = [];
    await this.#streamSheet(sheetName, headerRow, (row) => rows.push(row));
    return rows;
  }

  /** The sheet's intermediate CSV, whole (tests and small sheets; the engine streams it). */
  sheetCsvText(sheetName: string, headerRow: number): Promise<string> {
    return this.#streamSheet(sheetName, headerRow);
  }

  async #streamSheet(sheetName: string, headerRow: number, onRow?: (row: string[]) => void): Promise<string> {
    const { path, entry } = this.sheetPart(sheetName);
    const sheet = new SheetCsv(this.sheetContext(path, headerRow), onRow);
    let csv = "";
    try {
      await forEachMemberChunk(this.reader, entry, (bytes) => {
        csv += sheet.push(bytes);
      });
    } catch (err) {
      throw corrupt(err);
    }
    return csv + sheet.finish();
  }
}
async function readSharedStrings(reader: RangeReader, entry: ZipEntry): Promise<string[]> {
  const table = new SharedStrings(SHARED_STRINGS_MAX_CHARS);
  const scanner = new XmlScanner(table);
  const decoder = new TextDecoder("utf-8");
  let head: Uint8Array | null = new Uint8Array(0);
  await forEachMemberChunk(reader, entry, (bytes) => {
    if (head !== null) {
      const joined = new Uint8Array(head.length + bytes.length);
      joined.set(head);
      joined.set(bytes, head.length);
      if (joined.length < 2) {
        head = joined;
        return;
      }
      head = null;
      const refusal = utf16Refusal(joined, "xl/sharedStrings.xml");
      if (refusal !== null) throw refusal;
      bytes = joined;
    }
    scanner.push(decoder.decode(bytes, { stream: true }));
  });
  if (head !== null) scanner.push(decoder.decode(head, { stream: true }));
  scanner.push(decoder.decode());
  scanner.finish();
  return table.strings;
}

/** The intermediate CSV text for shaped sheet rows (comma, minimal double-quote quoting, LF endings). */
export function xlsxRowsToCsv(rows: readonly (readonly string[])[]): string {
  let out = "";
  for (const row of rows) out += csvLine(row);
  return out;
}

/**
 * Extract one sheet of a workbook as bxp's intermediate CSV, whole in memory (tests, small inputs). Returns
 * null when no sheet name starts with `spec.name` (bxp then writes nothing for it).
 */
export async function extractSheetCsv(
  bytes: Uint8Array,
  spec: XlsxSheetSpec,
): Promise<{ sheetName: string; csv: string } | null> {
  const workbook = await XlsxWorkbook.open(bytesReader(bytes));
  const sheetName = workbook.findSheet(spec.name);
  if (sheetName === null) return null;
  return { sheetName, csv: await workbook.sheetCsvText(sheetName, spec.headerRow) };
}

/** Intermediate CSV file name: the workbook file name without `.xlsx`, then `output_suffix`. */
export function intermediateCsvName(xlsxFileName: string, outputSuffix: string): string {
  const stem = xlsxFileName.endsWith(".xlsx") ? xlsxFileName.slice(0, -5) : xlsxFileName;
  return stem + outputSuffix;
}
