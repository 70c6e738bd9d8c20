/**
 * The CSV sniffer: reads the first bytes of an unknown export and says how bxp should read it — encoding,
 * delimiter, quote, decimal separator and thousands style, the header line after a preamble, trailing
 * footer lines, and each column's kind (with the bxp date format for date columns). Pure: bytes in, a
 * plain object out. Whatever it cannot settle goes into `notes` instead of a silent guess.
 *
 * @example
 * ```ts
 * import { sniffCsv } from "./sniff.ts";
 * import assert from "node:assert/strict";
 * const r = sniffCsv(new TextEncoder().encode("Date;Amount\n31.12.2024;1,5\n"));
 * assert.equal(r.delimiter, ";");
 * assert.equal(r.decimalSeparator, ",");
 * r.columns[0];       // { name: "Date", index: 0, kind: "date", format: "DD.MM.YYYY", ... }
 * ```
 * @module
 */

import { decodeBytes, type EncodingName, hasUtf8Bom, parseEncoding } from "../formats/encoding.ts";
import { CsvParser, type QuoteMode } from "../formats/csv_reader.ts";
import { type DateOrderHints, inferColumnDates, inferDateFormat, provenOrder } from "./dates.ts";
import { convertDate } from "../lang/mod.ts";
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
  /** `date` / `datetime`: every format the column needs (a column may mix shapes), `format` first. */
  formats?: string[];
  /** `date` / `datetime`: values that are no date at all (written as they are). */
  strays?: string[];
  /** `datetime`: the values carry a UTC offset (`ZZ`), applied with `TO_UTC`. */
  offset?: boolean;
  /** Number columns: some values carry their minus sign at the end (`12,50-`). */
  trailingMinus?: boolean;
  /** Numbers that are identifiers (ids, references, codes): kept exactly as written. */
  identifier?: boolean;
  /**
   * Text that bxp would rewrite if passed through plainly (`1111.0` is written `1111`): read with
   * `AS_TEXT` so it is written as it is.
   */
  asText?: boolean;
  /** Some value holds a comma, a double quote or a line break (the output must be quoted). */
  needsQuoting?: boolean;
  /** Data records (of those sampled) where the field is empty or missing. */
  empty: number;
}

/**
 * How a skip rule recognises the records it drops, by shape rather than by text where it can: a date
 * column that is not a date, key columns all empty, a label's leading words, and only as a last resort
 * the exact text (with a note).
 */
export type SkipPredicate =
  | { kind: "not_date"; column: number; format: string }
  | { kind: "empty"; columns: number[] }
  | { kind: "equals"; column: number; values: string[] }
  | { kind: "starts_with"; column: number; texts: string[] };

/** Records that are not data and the rule that drops them. */
export interface SkipRule {
  /** Why, for the rule's comment and the self-check ("repeated header", "totals / notes"). */
  reason: string;
  /** 1-based physical lines of the records. */
  lines: number[];
  predicate: SkipPredicate;
  /** Why this predicate (for the comment). */
  how: string;
  /** The records' fields. */
  records: string[][];
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
  /** The first field of each footer record. */
  footerFirstFields: string[];
  /** Rules dropping the records that are not data (repeated headers, section lines, totals), in order. */
  skips: SkipRule[];
  /** True when some value a draft writes as it is holds a comma, a double quote or a line break. */
  needsQuoting: boolean;
  /** The day/month order used for dates the values do not settle, and why (null when none needed it). */
  dateOrder: string | null;
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
  /** Bytes of the sample examined (from the start; cut at a line break when the sample was cut). */
  sampleBytes: number;
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
/** Words of a summary line's label, anywhere in it ("Transactions Total", "Total mouvements: ..."). */
const FOOTER_WORDS =
  /(^|[^\p{L}])(total|totals|totaal|subtotal|sum|summary|celkem|součet|summe|gesamt|zwischensumme|suma|razem|totale|balance|saldo|end of|fin de|closing|opening)([^\p{L}]|$)/iu;
/** Header words of identifier columns: their numbers are kept exactly as written. */
const ID_WORDS =
  /(^|[^a-z])(id|ids|ref|refs|reference|number|no|nr|num|code|isin|iban|bic|swift|cusip|sedol|sku|ean|zip|postcode|phone|hash|txhash)([^a-z]|$)/i;
/** Header words of quantities, which stay numbers even beside an id word ("Number of shares"). */
const QUANTITY_WORDS =
  /(number of|no\. of|nr\. of|amount|qty|quantity|shares|price|total|balance|sum|fee|tax|count|value|rate|employees)/i;
/** Header words (or accented letters) of a continental European export, where dates are day-first. */
const EUROPEAN_HEADER =
  /[À-ÿĀ-ž]|(^|[^a-z])(datum|fecha|montant|betrag|bedrag|importe|valor|kwota|castka|omschrijving|beschrijving|buchungstag|umsatz|libelle|rekening|konto|waluta|munt|soort|aantal|koers|naam|hora|produto|mudanca|verrichting|valuta|operation|date d)/i;

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
  // Consistency counts too: a tab file whose texts hold commas splits at some width under ",", but
  // only some of its records; under "\t" all of them.
  const consistency = records.length === 0 ? 0 : count / records.length;
  return { delimiter, records, total, width, score: width > 1 ? count * (width - 1) * consistency : 0 };
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

/** Values bxp writes in another form when passed through plainly (the shortest numeric form). */
const REWRITTEN = /^[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)$/;

/** The number shape of `v`, also for a trailing minus (`12,50-`). */
function shapeWithMinus(
  v: string,
): { shape: NonNullable<ReturnType<typeof numberShape>>; minus: boolean } | null {
  const plain = numberShape(v);
  if (plain !== null) return { shape: plain, minus: false };
  if (v.length > 1 && v.endsWith("-") && !v.startsWith("-") && !v.startsWith("+")) {
    const s = numberShape(v.slice(0, -1));
    if (s !== null) return { shape: s, minus: true };
  }
  return null;
}

/** True when the numbers of a column are identifiers rather than quantities. */
function isIdentifier(name: string, present: readonly string[]): boolean {
  if (ID_WORDS.test(name) && !QUANTITY_WORDS.test(name)) return true;
  // Long unsigned integers all of one width (account numbers, order ids) carry no arithmetic meaning.
  const width = present[0].length;
  return present.length > 1 && width >= 8 && present.every((v) => /^\d+$/.test(v) && v.length === width);
}

function classifyColumn(
  name: string,
  index: number,
  values: readonly string[],
  decimal: "." | ",",
  hints: DateOrderHints,
  notes: string[],
): SniffedColumn {
  const present = values.filter((v) => v !== "");
  const col: SniffedColumn = { name, index, kind: "text", empty: values.length - present.length };
  if (present.some((v) => /[,"\r\n]/.test(v))) col.needsQuoting = true;
  if (present.length === 0) {
    notes.push(`column '${name}': empty in every sampled record; kept as text`);
    return col;
  }
  const date = inferColumnDates(present, hints);
  if (date !== null) {
    col.kind = date.kind;
    col.format = date.formats[0];
    col.formats = date.formats;
    col.strays = date.strays;
    if (date.offset) col.offset = true;
    // Only the stray values are written as they are: only they can need quoting.
    col.needsQuoting = date.strays.some((v) => /[,"\r\n]/.test(v));
    if (date.ambiguous !== null) notes.push(`column '${name}': ${date.ambiguous}`);
    if (date.formats.length > 1) {
      notes.push(
        `column '${name}': dates in ${date.formats.length} formats (${date.formats.join(", ")}); each read`,
      );
    }
    if (date.strays.length > 0) {
      notes.push(
        `column '${name}': ${date.strays.length} value(s) are not dates (${
          date.strays.map((v) => JSON.stringify(v)).join(", ")
        }); written as they are`,
      );
    }
    return col;
  }
  const shapes = present.map(shapeWithMinus);
  if (shapes.every((s) => s !== null)) {
    const fits = shapes.every((s) => s!.shape.decimal === null || s!.shape.decimal === decimal);
    if (fits) {
      // "4,981" is 4981 beside a decimal point but 4.981 in a file whose decimal mark is the comma.
      const integer = shapes.every((s, i) =>
        s!.shape.integer ||
        (s!.shape.decimal === null && s!.shape.thousands === null && !present[i].includes(decimal))
      );
      const groups = new Set(shapes.map((s) => s!.shape.thousands).filter((t) => t !== null && t !== ""));
      if (shapes.some((s, i) => s!.shape.thousands === null && !present[i].includes(decimal))) {
        groups.add(decimal === "." ? "," : ".");
      }
      // Leading zeros (account numbers, postcodes) and id-like headers are identifiers, not numbers.
      if (isIdentifier(name, present) || present.some((v) => /^0\d+$/.test(v))) {
        col.identifier = true;
        col.asText = true;
        return col;
      }
      col.kind = integer ? "integer" : "decimal";
      if (!integer) col.decimalSeparator = decimal;
      col.thousands = groups.size === 1 ? [...groups][0]! : "";
      if (shapes.some((s) => s!.minus)) col.trailingMinus = true;
      // Numbers are written plainly: nothing left to quote.
      col.needsQuoting = false;
      return col;
    }
  }
  const pair = booleanPair(present);
  if (pair !== null) {
    col.kind = "boolean";
    col.booleans = pair;
    col.needsQuoting = false;
    return col;
  }
  if (present.some((v) => REWRITTEN.test(v))) col.asText = true;
  return col;
}

/** How many fields of a record are filled. */
function filled(r: SampledRecord): number {
  let n = 0;
  for (const f of r.fields) if (f.trim() !== "") n++;
  return n;
}

/** The body split into data and the records that are not data. */
interface BodySplit {
  data: SampledRecord[];
  /** Repeats of the header line (multi-section statements). */
  headers: SampledRecord[];
  /** Section titles, subtotals and the trailing totals / notes. */
  summaries: SampledRecord[];
  /** The trailing ones among `summaries`. */
  footer: SampledRecord[];
}

/** The first column in which every one of `rows` holds a date of one format, with that format. */
function anchorColumn(
  rows: readonly SampledRecord[],
  width: number,
): { column: number; format: string } | null {
  if (rows.length === 0) return null;
  for (let i = 0; i < width; i++) {
    const values = rows.map((r) => (r.fields[i] ?? "").trim());
    if (values.some((v) => v === "")) continue;
    const d = inferDateFormat(values);
    if (d !== null) return { column: i, format: d.format };
  }
  return null;
}

const isDate = (v: string, format: string) => convertDate(v.trim(), format, "YYYY-MM-DD hh:mm:ss") !== "";

/**
 * Tells data from the records that are not, by shape: a repeat of the header; a section title (one filled
 * field on a short line); a summary line (few fields filled, a label where data has a date or where data
 * never writes, or a total/sum word) — at the end of the file (any number) or inside it (subtotals).
 */
function splitBody(
  all: readonly SampledRecord[],
  header: SampledRecord,
  width: number,
  nearWidth: (n: number) => boolean,
  truncated: boolean,
): BodySplit {
  const sameAsHeader = (r: SampledRecord) =>
    r.fields.length === header.fields.length &&
    r.fields.every((f, i) => f.trim() === header.fields[i].trim());
  const sparse = (r: SampledRecord) => filled(r) <= Math.max(2, Math.floor(width / 2));
  const wordy = (r: SampledRecord) =>
    r.fields.filter((f) => f.trim() !== "").slice(0, 2).some((f) =>
      FOOTER_WORDS.test(f) || /^\s*(\*{2,}|-{3,}|={3,})/.test(f)
    );
  const headers = all.filter(sameAsHeader);
  const title = (r: SampledRecord) => !nearWidth(r.width) && filled(r) <= 1;
  // The profile: records that surely are data (not sparse, not a title, not a header), or failing those,
  // every record but the last few sparse ones.
  let tailStart = all.length;
  while (
    tailStart > 0 && all.length - tailStart < 5 &&
    (sparse(all[tailStart - 1]) || !nearWidth(all[tailStart - 1].width))
  ) {
    tailStart--;
  }
  const profile = all.slice(0, tailStart).filter((r) => !sameAsHeader(r) && !title(r) && nearWidth(r.width));
  const anchor = anchorColumn(profile.filter((r) => !sparse(r) || !wordy(r)), width);
  const neverFilled = new Set<number>();
  if (profile.length > 0) {
    for (let i = 0; i < width; i++) {
      if (profile.every((r) => (r.fields[i] ?? "").trim() === "")) neverFilled.add(i);
    }
  }
  // Off the data's shape: no date where every data record has one, or (without such a column) a label
  // in a column data never fills.
  const offShape = (r: SampledRecord) => {
    if (anchor !== null) return !isDate(r.fields[anchor.column] ?? "", anchor.format);
    const label = r.fields.findIndex((f) => f.trim() !== "");
    return label >= 0 && neverFilled.has(label);
  };

  const footer: SampledRecord[] = [];
  if (!truncated) {
    for (let i = all.length - 1; i >= 0; i--) {
      const r = all[i];
      const isFooter = !nearWidth(r.width) || (sparse(r) && (wordy(r) || offShape(r)));
      if (!isFooter || sameAsHeader(r)) break;
      footer.unshift(r);
    }
  }
  const summaries: SampledRecord[] = [];
  const data: SampledRecord[] = [];
  for (const r of all) {
    if (footer.includes(r)) summaries.push(r);
    else if (sameAsHeader(r)) continue;
    else if (title(r) || (sparse(r) && wordy(r) && (anchor === null || offShape(r)))) summaries.push(r);
    else data.push(r);
  }
  return { data, headers, summaries, footer };
}

/** Whether `p` holds for a record's fields (mirrors the expression the draft writes for it). */
export function predicateHolds(p: SkipPredicate, fields: readonly string[]): boolean {
  switch (p.kind) {
    case "not_date":
      return !isDate(fields[p.column] ?? "", p.format);
    case "empty":
      return p.columns.every((c) => (fields[c] ?? "").trim() === "");
    case "equals":
      return p.values.includes(fields[p.column] ?? "");
    case "starts_with":
      return p.texts.some((t) => (fields[p.column] ?? "").startsWith(t));
  }
}

/**
 * The rules that drop the records that are not data: one for repeated headers, one for the summaries,
 * each recognising its records by shape where the sample allows (checked: it holds for every one of them
 * and for no data record), so next month's totals, with other numbers, are still recognised.
 */
function skipRules(
  split: BodySplit,
  columns: readonly SniffedColumn[],
  header: readonly string[],
  notes: string[],
): SkipRule[] {
  const rules: SkipRule[] = [];
  const data = split.data;
  const works = (p: SkipPredicate, targets: readonly SampledRecord[]) =>
    targets.every((r) => predicateHolds(p, r.fields)) && !data.some((r) => predicateHolds(p, r.fields));
  if (split.headers.length > 0 && columns.length > 0) {
    const p: SkipPredicate = { kind: "equals", column: 0, values: [header[0]] };
    if (works(p, split.headers)) {
      rules.push({
        reason: "repeated header",
        lines: split.headers.map((r) => r.line),
        records: split.headers.map((r) => r.fields),
        predicate: p,
        how: "the header line, repeated at the start of each section",
      });
    }
  }
  const targets = split.summaries;
  if (targets.length === 0 || columns.length === 0) return rules;
  const candidates: { p: SkipPredicate; how: string }[] = [];
  const anchor = columns.find((c) =>
    (c.kind === "date" || c.kind === "datetime") && c.empty === 0 && c.formats?.length === 1 &&
    (c.strays?.length ?? 0) === 0
  );
  if (anchor !== undefined) {
    candidates.push({
      p: { kind: "not_date", column: anchor.index, format: anchor.format! },
      how: `every data record has a date in '${anchor.name}'; these lines do not`,
    });
  }
  const keys = columns.filter((c) =>
    c.empty === 0 && targets.every((r) => (r.fields[c.index] ?? "").trim() === "")
  );
  if (keys.length > 0) {
    const picked = keys.slice(0, 3);
    candidates.push({
      p: { kind: "empty", columns: picked.map((c) => c.index) },
      how: `every data record fills ${picked.map((c) => `'${c.name}'`).join(", ")}; these lines leave ${
        picked.length === 1 ? "it" : "them"
      } empty`,
    });
  }
  // A label's leading words, without the numbers that change from one statement to the next.
  const labelColumn = targets[0].fields.findIndex((f) => f.trim() !== "");
  if (labelColumn >= 0) {
    const texts = [
      ...new Set(targets.map((r) => (r.fields[labelColumn] ?? "").replace(/[\s:="'(]*[-+$€£¥\d"'].*$/s, ""))),
    ];
    if (texts.every((t) => t.trim().length >= 3)) {
      candidates.push({
        p: { kind: "starts_with", column: labelColumn, texts },
        how: "their label's leading words (the figures after them change from one statement to the next)",
      });
    }
    candidates.push({
      p: {
        kind: "equals",
        column: labelColumn,
        values: [...new Set(targets.map((r) => r.fields[labelColumn] ?? ""))],
      },
      how: "their exact text (no shape tells them from data in this sample)",
    });
  }
  for (const c of candidates) {
    if (!works(c.p, targets)) continue;
    if (c.p.kind === "equals") {
      notes.push(
        "footer: the totals lines are recognised by their exact text only; a statement with other totals " +
          "will need the rule adjusted",
      );
    }
    rules.push({
      reason: split.footer.length === targets.length
        ? "totals / notes at the end"
        : "section titles and totals",
      lines: targets.map((r) => r.line),
      records: targets.map((r) => r.fields),
      predicate: c.p,
      how: c.how,
    });
    return rules;
  }
  notes.push(
    `footer: no rule tells lines ${targets.map((r) => r.line).join(", ")} from data; they are written`,
  );
  return rules;
}

/**
 * Day/month order hints by date separator, for columns whose values do not settle it: another column of
 * the same separator that does, else the file's locale signals (a ';' delimiter, a decimal comma,
 * headers in a continental language) for '/'; '-' and '.' dates are day-first outside the US.
 */
function orderHints(
  rows: readonly SampledRecord[],
  header: readonly string[],
  delimiter: string,
  decimal: "." | ",",
): DateOrderHints {
  const hints: Record<string, { dayFirst: boolean; why: string }> = {};
  for (let i = 0; i < header.length; i++) {
    const values = rows.map((r) => (r.fields[i] ?? "").trim()).filter((v) => v !== "");
    const order = provenOrder(values);
    const sep = /^\d{1,2}([./-])/.exec(values[0] ?? "")?.[1];
    if (sep === undefined || (order !== "day" && order !== "month") || hints[sep] !== undefined) continue;
    hints[sep] = {
      dayFirst: order === "day",
      why: `column '${header[i]}' of the same file has a ${order === "day" ? "day" : "month"} above 12 first`,
    };
  }
  const signals: string[] = [];
  if (delimiter === ";") signals.push("the delimiter is ';'");
  if (decimal === ",") signals.push("the decimal mark is ','");
  if (header.some((h) => EUROPEAN_HEADER.test(h))) signals.push("the headers are not English");
  hints["/"] ??= signals.length > 0
    ? { dayFirst: true, why: `${signals.join(", ")} (a continental European export)` }
    : {
      dayFirst: false,
      why: "the file shows no European sign (comma delimiter, decimal point, English headers)",
    };
  hints["-"] ??= { dayFirst: true, why: "dates with '-' are day-first outside the US" };
  hints["."] ??= { dayFirst: true, why: "dotted dates are day-first" };
  return hints;
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
    skips: [],
    sampleBytes: sample.length,
    needsQuoting: false,
    dateOrder: null,
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

  const all = records.slice(headerIdx + 1);
  const split = splitBody(all, header, width, nearWidth, truncated);
  let body = split.data;
  if (truncated) {
    notes.push("only the start of the file was read: footer lines (totals) could not be checked");
  }
  const footer = split.footer;
  result.footerLineNumbers = footer.map((r) => r.line);
  result.footerFirstFields = footer.map((r) => r.fields[0] ?? "");
  result.footerLines = footer.length;
  if (footer.length > 0) {
    notes.push(
      `footer: ${footer.length} trailing line(s) (${
        result.footerLineNumbers.join(", ")
      }) are not data (totals or notes)`,
    );
  }
  if (split.headers.length > 0) {
    notes.push(`sections: the header is repeated on line(s) ${split.headers.map((r) => r.line).join(", ")}`);
  }
  const inner = split.summaries.filter((r) => !footer.includes(r));
  if (inner.length > 0) {
    notes.push(
      `sections: line(s) ${
        inner.map((r) => r.line).join(", ")
      } inside the data are section titles or subtotals`,
    );
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

  const hints = orderHints(body, header.fields, delimiter, result.decimalSeparator);
  const used = new Set<string>();
  result.columns = header.fields.map((raw, i) => {
    const name = raw === "" ? `column_${i + 1}` : raw;
    if (used.has(name)) notes.push(`header: the name '${name}' appears more than once`);
    used.add(name);
    const values = body.map((r) => r.fields[i] ?? "");
    return classifyColumn(name, i, values, result.decimalSeparator, hints, notes);
  });
  result.needsQuoting = result.columns.some((c) => c.needsQuoting === true);
  const orders = result.columns.filter((c) =>
    c.format !== undefined && notes.some((n) => n.startsWith(`column '${c.name}': no day above 12`))
  );
  if (orders.length > 0) result.dateOrder = hints["/"]?.why ?? null;
  result.skips = skipRules(split, result.columns, header.fields, notes);
  if (notes.length > SNIFF_MAX_NOTES) {
    const more = notes.length - (SNIFF_MAX_NOTES - 1);
    notes.splice(SNIFF_MAX_NOTES - 1, more, `… and ${more} more notes of the same kinds`);
  }
  return result;
}
