/**
 * The CSV sniffer: reads the first bytes of an unknown export and says how bxp should read it — encoding,
 * delimiter, quote, decimal separator and thousands style, the header line after a preamble, trailing
 * footer lines, and each column's kind (with the bxp date format for date columns). Pure: bytes in, a
 * plain object out. Whatever it cannot settle goes into `notes` instead of a silent guess.
 *
 * @example
 * ```ts
 * import { sniffCsv } from "./sniff.ts";
 * const r = sniffCsv(new TextEncoder().encode("Date;Amount\n31.12.2024;1,5\n"));
 * r.delimiter;        // ";"
 * r.decimalSeparator; // ","
 * r.columns[0];       // { name: "Date", index: 0, kind: "date", format: "DD.MM.YYYY", ... }
 * ```
 * @module
 */

import { decodeBytes, type EncodingName, hasUtf8Bom, parseEncoding } from "../formats/encoding.ts";
import { CsvParser, type QuoteMode } from "../formats/csv_reader.ts";
import { inferDateFormat } from "./dates.ts";
import { numberShape } from "./numbers.ts";

/** A column's kind as the sniffer sees it. */
export type ColumnKind = "integer" | "decimal" | "date" | "datetime" | "boolean" | "text";

/** One sniffed column. */
export interface SniffedColumn {
  /** Header text (trimmed); `column_<n>` when the header cell is empty. */
  name: string;
  /** 0-based field index. */
  index: number;
  kind: ColumnKind;
  /** bxp date tokens for `date` / `datetime` columns. */
  format?: string;
  /** Decimal separator used by a `decimal` column. */
  decimalSeparator?: "." | ",";
  /** Thousands grouping seen in a number column ("" when none). */
  thousands?: string;
  /** The two spellings of a `boolean` column, true-ish first. */
  booleans?: [string, string];
  /** Data records (of those sampled) where the field is empty or missing. */
  empty: number;
}

/** Everything {@link sniffCsv} found. */
export interface SniffResult {
  encoding: EncodingName;
  /** True when the bytes start with a UTF-8 byte-order mark. */
  bom: boolean;
  delimiter: string;
  decimalSeparator: "." | ",";
  /** Thousands grouping seen in numbers ("" for none). */
  thousands: "" | "," | "." | " " | "'";
  quote: QuoteMode;
  /**
   * The header's position as bxp's `csv_header_line` counts it: 1-based among the non-empty lines
   * (bxp skips empty lines before counting).
   */
  headerLine: number;
  /** 1-based physical line of the header in the file. */
  headerPhysicalLine: number;
  /** Non-empty lines before the header (what `csv_header_line` skips). */
  preambleLines: number;
  /** Records at the end of the sample that are not data (totals, notes). Only counted when the whole file was read. */
  footerLines: number;
  /** 1-based physical lines of those footer records. */
  footerLineNumbers: number[];
  /** The first field of each footer record (what a rule can recognise them by). */
  footerFirstFields: string[];
  columns: SniffedColumn[];
  /**
   * The header's field count. Only the first `maxColumns` are described in `columns` (and kept in
   * `records`); a wider header is cut, with a note.
   */
  columnsTotal: number;
  /** The first data records (fields as read), at most `maxRecords`. */
  records: string[][];
  /** Data records in the sample (excluding header, preamble and footer). */
  dataRecords: number;
  /** True when the sample was cut at `maxBytes` (footers cannot be told from data then). */
  truncated: boolean;
  /** Ambiguities and choices a person should check. */
  notes: string[];
}

/** Options for {@link sniffCsv}. */
export interface SniffOptions {
  /** How many data records to return in `records`. Default 20. */
  maxRecords?: number;
  /** Bytes examined from the start. Default 1 MiB. */
  maxBytes?: number;
  /** Force an encoding (any spelling bxp accepts) instead of detecting it. */
  encoding?: string;
  /** Force a delimiter instead of detecting it. */
  delimiter?: string;
  /** Most columns described (and fields kept per record). Default {@link SNIFF_MAX_COLUMNS}. */
  maxColumns?: number;
  /** Most records examined; the rest of the sample is not parsed. Default {@link SNIFF_MAX_RECORDS}. */
  maxSampleRecords?: number;
}

/**
 * Most columns the sniffer describes. Real exports have tens; a sample of 900 000 one-letter columns
 * must not become a 900 000-variable draft (an answer of ~90 MiB): the work is bounded up front.
 */
export const SNIFF_MAX_COLUMNS = 512;
/** Most records the sniffer keeps per candidate delimiter (each is parsed once per candidate). */
export const SNIFF_MAX_RECORDS = 10_000;
/**
 * Most field values the sniffer classifies (records examined times columns described): each costs a
 * number and a date test, a few microseconds. A wide sample examines fewer records.
 */
export const SNIFF_MAX_CELLS = 100_000;
/** Most notes kept: per-column notes of a wide sample are summed up past this many. */
export const SNIFF_MAX_NOTES = 40;

const DELIMITERS = [",", ";", "\t", "|"] as const;
const DEFAULT_MAX_BYTES = 1024 * 1024;
const FOOTER_WORDS = /^(total|totals|sum|summary|celkem|součet|summe|gesamt|suma|razem|totale|balance)\b/i;

const BOOLEAN_PAIRS: readonly [string, string][] = [
  ["true", "false"],
  ["yes", "no"],
  ["y", "n"],
  ["t", "f"],
  ["ano", "ne"],
  ["ja", "nein"],
  ["oui", "non"],
  ["si", "no"],
  ["tak", "nie"],
];

/** Bytes that are letters in windows-1250 but symbols, or rare letters, in windows-1252 (and back). */
const CENTRAL_BYTES = new Set([0xec, 0xf8, 0xf9, 0xc8, 0xcc, 0xd8, 0xd9, 0xef, 0xf2, 0x8d, 0x9d, 0xb9, 0xb3]);
const WESTERN_BYTES = new Set([0xe0, 0xe2, 0xe7, 0xea, 0xee, 0xf1, 0xf4, 0xe6, 0xe5, 0xc0, 0xc7, 0xd1]);
const C1_UNDEFINED_IN_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

function isUtf8(bytes: Uint8Array, truncated: boolean): boolean {
  // A cut sample may end inside a multi-byte sequence: drop up to three trailing continuation bytes.
  let end = bytes.length;
  if (truncated) {
    let back = 0;
    while (back < 3 && end > 0 && (bytes[end - 1] & 0xc0) === 0x80) {
      end--;
      back++;
    }
    if (end > 0 && bytes[end - 1] >= 0xc0) end--;
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

function detectEncoding(bytes: Uint8Array, truncated: boolean, notes: string[]): EncodingName {
  if (hasUtf8Bom(bytes) || isUtf8(bytes, truncated)) return "utf-8";
  let central = 0;
  let western = 0;
  let c1 = 0;
  let undefined1252 = 0;
  for (const b of bytes) {
    if (b < 0x80) continue;
    if (CENTRAL_BYTES.has(b)) central++;
    if (WESTERN_BYTES.has(b)) western++;
    if (b < 0xa0) c1++;
    if (C1_UNDEFINED_IN_1252.has(b)) undefined1252++;
  }
  if (central === 0 && western === 0) {
    notes.push(
      "encoding: not UTF-8 and no letters that tell Central from Western European code pages apart; " +
        "windows-1252 assumed",
    );
    return "windows-1252";
  }
  if (central > western || undefined1252 > 0) {
    // ISO-8859-2 has no printable characters at 0x80-0x9F; windows-1250 uses them (š ž ť Š Ž Ť).
    if (c1 === 0) {
      notes.push(
        "encoding: Central European text without bytes 0x80-0x9F: windows-1250 and iso-8859-2 read it " +
          "alike except for š/ž/ą (check accented names)",
      );
    }
    return "windows-1250";
  }
  if (central > 0) notes.push("encoding: letters of both Central and Western European code pages seen");
  return "windows-1252";
}

interface SampledRecord {
  /** The first `maxColumns` fields. */
  fields: string[];
  /** The record's real field count. */
  width: number;
  line: number;
}

interface Parsed {
  delimiter: string;
  records: SampledRecord[];
  /** Records parsed: more than `records` when the cap was reached (the sample may hold more still). */
  total: number;
  width: number;
  score: number;
}

/** The most frequent field count (above 1 when any record has more than one field). */
function modalWidth(records: readonly { width: number }[]): { width: number; count: number } {
  const counts = new Map<number, number>();
  for (const r of records) counts.set(r.width, (counts.get(r.width) ?? 0) + 1);
  let width = 1;
  let count = 0;
  for (const [w, c] of counts) {
    if (w > 1 && (c > count || (c === count && w > width))) {
      width = w;
      count = c;
    }
  }
  if (count === 0) return { width: 1, count: counts.get(1) ?? 0 };
  return { width, count };
}

function parseWith(
  text: Uint8Array,
  delimiter: string,
  encoding: EncodingName,
  maxColumns: number,
  maxRecords: number,
): Parsed {
  // Records past the cap are not kept, and no record keeps more than maxColumns fields: what
  // the sniffer holds stays small whatever the sample's shape (four candidates parse it each).
  const records: SampledRecord[] = [];
  let total = 0;
  const parser = new CsvParser({ delimiter, quote: "double", encoding }, (fields, _offset, line) => {
    total++;
    if (records.length >= maxRecords) return;
    const width = fields.length;
    records.push({ fields: width > maxColumns ? fields.slice(0, maxColumns) : fields, width, line });
  });
  parser.push(text);
  parser.finish();
  const { width, count } = modalWidth(records);
  // Prefer the delimiter that puts the most records at one width above 1, weighted by that width (a
  // decimal comma splits every line of a semicolon file in two, consistently, but only in two).
  return { delimiter, records, total, width, score: width > 1 ? count * (width - 1) : 0 };
}

function detectQuote(text: string, delimiter: string): { quote: QuoteMode; note: string | null } {
  const esc = delimiter === "|" ? "\\|" : delimiter === "\t" ? "\\t" : delimiter;
  const double = new RegExp(`(^|${esc})\\s*"`, "m").test(text);
  const single = new RegExp(`(^|${esc})\\s*'[^'\\n]*'\\s*(?=${esc}|$)`, "m").test(text);
  if (double) return { quote: "double", note: null };
  if (single) return { quote: "single", note: null };
  return { quote: "double", note: null };
}

function looksLikeHeader(fields: readonly string[]): boolean {
  const filled = fields.filter((f) => f !== "");
  if (filled.length === 0) return false;
  const numeric = filled.filter((f) => numberShape(f) !== null || inferDateFormat([f]) !== null).length;
  return numeric * 2 < filled.length;
}

function booleanPair(values: readonly string[]): [string, string] | null {
  const distinct = new Set(values.map((v) => v.toLowerCase()));
  for (const [t, f] of BOOLEAN_PAIRS) {
    if ([...distinct].every((v) => v === t || v === f)) {
      const spelled = (word: string) => values.find((v) => v.toLowerCase() === word) ?? word;
      return [spelled(t), spelled(f)];
    }
  }
  return null;
}

function classifyColumn(
  name: string,
  index: number,
  values: readonly string[],
  decimal: "." | ",",
  notes: string[],
): SniffedColumn {
  const present = values.filter((v) => v !== "");
  const col: SniffedColumn = { name, index, kind: "text", empty: values.length - present.length };
  if (present.length === 0) {
    notes.push(`column '${name}': empty in every sampled record; kept as text`);
    return col;
  }
  const date = inferDateFormat(present);
  if (date !== null) {
    col.kind = date.kind;
    col.format = date.format;
    if (date.ambiguous !== null) notes.push(`column '${name}': ${date.ambiguous}`);
    return col;
  }
  const shapes = present.map(numberShape);
  if (shapes.every((s) => s !== null)) {
    const fits = shapes.every((s) => s!.decimal === null || s!.decimal === decimal);
    if (fits) {
      const integer = shapes.every((s) => s!.integer || (s!.decimal === null && s!.thousands === null));
      const groups = new Set(shapes.map((s) => s!.thousands).filter((t) => t !== null && t !== ""));
      if (shapes.some((s) => s!.thousands === null)) groups.add(decimal === "." ? "," : ".");
      // Leading zeros (account numbers, postcodes) are identifiers, not numbers.
      if (!present.some((v) => /^[+-]?0\d/.test(v))) {
        col.kind = integer ? "integer" : "decimal";
        if (!integer) col.decimalSeparator = decimal;
        col.thousands = groups.size === 1 ? [...groups][0]! : "";
        return col;
      }
    }
  }
  const pair = booleanPair(present);
  if (pair !== null) {
    col.kind = "boolean";
    col.booleans = pair;
  }
  return col;
}

/**
 * Sniffs a CSV sample. Never throws on content: unreadable or odd input comes back as notes (an empty file
 * gives zero columns and a note).
 */
export function sniffCsv(bytes: Uint8Array, options: SniffOptions = {}): SniffResult {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRecords = options.maxRecords ?? 20;
  const maxColumns = Math.max(1, options.maxColumns ?? SNIFF_MAX_COLUMNS);
  const maxSampleRecords = Math.max(2, options.maxSampleRecords ?? SNIFF_MAX_RECORDS);
  const notes: string[] = [];
  let truncated = bytes.length > maxBytes;
  let sample = truncated ? bytes.subarray(0, maxBytes) : bytes;
  if (truncated) {
    // Cut at the last line break so no record is read half.
    const lf = sample.lastIndexOf(10);
    if (lf > 0) sample = sample.subarray(0, lf + 1);
    else truncated = true;
  }
  // No more lines than records are examined: the sample is cut after that many line breaks before
  // anything parses it (a quoted line break only makes the cut a little earlier).
  let cutRecords = false;
  for (let at = 0, lines = 0; at < sample.length; lines++) {
    const lf = sample.indexOf(10, at);
    if (lf === -1) break;
    if (lines + 1 >= maxSampleRecords && lf + 1 < sample.length) {
      sample = sample.subarray(0, lf + 1);
      cutRecords = truncated = true;
      break;
    }
    at = lf + 1;
  }
  const bom = hasUtf8Bom(sample);
  let encoding: EncodingName;
  if (options.encoding !== undefined) {
    const forced = parseEncoding(options.encoding);
    if (forced === null) throw new RangeError(`unsupported encoding '${options.encoding}'`);
    encoding = forced;
  } else {
    encoding = detectEncoding(sample, truncated, notes);
  }

  const candidates = options.delimiter !== undefined ? [options.delimiter] : DELIMITERS;
  const parsed = candidates.map((d) => parseWith(sample, d, encoding, maxColumns, maxSampleRecords))
    .sort((a, b) => b.score - a.score);
  const best = parsed[0];
  if (parsed.length > 1 && parsed[1].score > 0 && parsed[1].score >= best.score * 0.9) {
    notes.push(
      `delimiter: '${best.delimiter}' and '${parsed[1].delimiter}' split the sample almost equally well; ` +
        `'${best.delimiter}' chosen`,
    );
  }
  const { delimiter, records, width } = best;
  if (cutRecords || best.total > records.length) {
    // The rest of the sample is not examined: like a cut sample, its end cannot be told from data.
    truncated = true;
    notes.push(`only the first ${records.length} records of the sample were examined`);
  }
  const text = decodeBytes(bom ? sample.subarray(3) : sample, encoding);
  const { quote } = detectQuote(text, delimiter);

  const result: SniffResult = {
    encoding,
    bom,
    delimiter,
    decimalSeparator: ".",
    thousands: "",
    quote,
    headerLine: 1,
    headerPhysicalLine: 1,
    preambleLines: 0,
    footerLines: 0,
    footerLineNumbers: [],
    footerFirstFields: [],
    columns: [],
    columnsTotal: 0,
    records: [],
    dataRecords: 0,
    truncated,
    notes,
  };
  if (records.length === 0) {
    notes.push("the sample holds no records");
    return result;
  }
  if (width === 1) notes.push("every record has one field: no delimiter found (single-column file?)");

  // The header: the first record at the modal width that reads as names rather than values, provided the
  // records after it keep that width.
  // Exports with optional trailing columns (Trading 212) vary a little in width, so "near" the modal width.
  const nearWidth = (n: number) => n === width || (width > 2 && n >= Math.ceil(width * 0.75));
  let headerIdx = records.findIndex((r, i) =>
    nearWidth(r.width) && looksLikeHeader(r.fields) &&
    (i + 1 >= records.length || nearWidth(records[i + 1].width))
  );
  if (headerIdx === -1) {
    headerIdx = records.findIndex((r) => r.width === width);
    notes.push(
      `header: no line looks like column names; line ${records[headerIdx].line} taken as the header ` +
        "(set csv_header_line: 0 if the file has none)",
    );
  }
  const header = records[headerIdx];
  result.columnsTotal = header.width;
  if (header.width > maxColumns) {
    notes.push(
      `columns: the header has ${header.width} columns; only the first ${maxColumns} are described ` +
        "and drafted (the rest are cut)",
    );
  }
  result.headerLine = headerIdx + 1;
  result.headerPhysicalLine = header.line;
  result.preambleLines = headerIdx;
  if (result.preambleLines > 0) {
    notes.push(`preamble: ${result.preambleLines} line(s) before the header are skipped`);
  }

  let body = records.slice(headerIdx + 1);
  if (!truncated) {
    let end = body.length;
    while (end > 0) {
      const r = body[end - 1];
      const filled = r.fields.filter((f) => f !== "").length;
      const isFooter = !nearWidth(r.width) ||
        (FOOTER_WORDS.test(r.fields[0] ?? "") && filled <= Math.max(2, Math.floor(width / 2)));
      if (!isFooter) break;
      end--;
    }
    result.footerLineNumbers = body.slice(end).map((r) => r.line);
    result.footerFirstFields = body.slice(end).map((r) => r.fields[0] ?? "");
    result.footerLines = result.footerLineNumbers.length;
    if (result.footerLines > 0) {
      notes.push(
        `footer: ${result.footerLines} trailing line(s) (${
          result.footerLineNumbers.join(", ")
        }) are not data (totals or notes)`,
      );
    }
    body = body.slice(0, end);
  } else {
    notes.push("only the start of the file was read: footer lines (totals) could not be checked");
  }
  const odd = body.filter((r) => r.width !== header.width).length;
  if (odd > 0) {
    notes.push(`${odd} data record(s) have a field count other than the header's ${header.width}`);
  }
  // Counts cover the records examined (with a note when that is not the whole sample).
  result.dataRecords = body.length;
  result.records = body.slice(0, maxRecords).map((r) => r.fields);
  // The classification's cost is records times columns: a wide sample classifies fewer records.
  const cellRecords = Math.max(1, Math.floor(SNIFF_MAX_CELLS / Math.min(header.width, maxColumns)));
  if (body.length > cellRecords) {
    body = body.slice(0, cellRecords);
    notes.push(
      `kinds and separators: read from the first ${cellRecords} data records (at most ${SNIFF_MAX_CELLS} ` +
        "values are classified)",
    );
  }

  // Decimal separator: a vote over every value that proves one.
  let dot = 0;
  let comma = 0;
  const groups = new Map<string, number>();
  for (const r of body) {
    for (const f of r.fields) {
      const s = numberShape(f);
      if (s === null || inferDateFormat([f]) !== null) continue;
      if (s.decimal === ".") dot++;
      if (s.decimal === ",") comma++;
      if (s.thousands !== null && s.thousands !== "") {
        groups.set(s.thousands, (groups.get(s.thousands) ?? 0) + 1);
      }
    }
  }
  result.decimalSeparator = comma > dot ? "," : ".";
  if (comma > 0 && dot > 0) {
    notes.push(
      `decimal separator: ${dot} value(s) use '.' and ${comma} use ','; '${result.decimalSeparator}' chosen`,
    );
  }
  if (result.decimalSeparator === delimiter) {
    notes.push("decimal separator equals the delimiter: decimals must be quoted in this file");
  }
  let topGroup = "";
  let topCount = 0;
  for (const [g, c] of groups) {
    if (g !== result.decimalSeparator && c > topCount) {
      topGroup = g;
      topCount = c;
    }
  }
  result.thousands = topGroup as SniffResult["thousands"];

  const used = new Set<string>();
  result.columns = header.fields.map((raw, i) => {
    const name = raw === "" ? `column_${i + 1}` : raw;
    if (used.has(name)) notes.push(`header: the name '${name}' appears more than once`);
    used.add(name);
    const values = body.map((r) => r.fields[i] ?? "");
    return classifyColumn(name, i, values, result.decimalSeparator, notes);
  });
  if (notes.length > SNIFF_MAX_NOTES) {
    const more = notes.length - (SNIFF_MAX_NOTES - 1);
    notes.splice(SNIFF_MAX_NOTES - 1, more, `… and ${more} more notes of the same kinds`);
  }
  return result;
}
