/**
 * Streaming CSV reader with bxp's dialect rules.
 *
 * The rules, as bxp applies them (zig-libs `csvstream`, default mode):
 * - A `\n` always ends a record, even inside an open quote: quoted fields never span lines. A trailing `\r`
 *   is dropped, so CRLF and LF files read the same.
 * - Lines that are empty (after dropping that `\r`) are skipped; they still count as physical lines.
 * - A quote opens a quoted field only at the start of a field. Inside it, a doubled quote is one quote, a
 *   quote followed by the delimiter or the end of the line closes it, and any other quote is literal
 *   ("lazy quotes"). A quote in the middle of an unquoted field is literal. An unclosed quoted field runs to
 *   the end of the line.
 * - A record whose quotes do not pair up is still emitted; it is counted in `unbalancedQuotes` so the
 *   caller can warn ("N row(s) in 'f' had an unbalanced quote").
 * - A trailing delimiter gives a final empty field (`a,b,` is three fields). Rows may have any width.
 * - A UTF-8 BOM at the very start of the input is skipped (whatever the declared encoding); offsets still
 *   count its three bytes, so they index the original file.
 * - Field values (and therefore header names) have leading and trailing spaces (U+0020 only, not tabs)
 *   trimmed.
 * - A record with no line break within {@link MAX_BUFFERED_RECORD_BYTES} of buffered input is refused.
 *
 * @example
 * ```ts
 * import { CsvParser } from "./csv_reader.ts";
 * import assert from "node:assert/strict";
 * const rows: string[][] = [];
 * const parser = new CsvParser({ delimiter: ",", quote: "double", encoding: "utf-8" }, (f) => rows.push(f));
 * parser.push(new TextEncoder().encode("a, b\r\n\"x,y\",z\n"));
 * parser.finish();
 * assert.deepEqual(rows, [["a", "b"], ["x,y", "z"]]);
 * ```
 * @module
 */

import { createDecoder, type EncodingName, isSingleByte, requireEncoding } from "./encoding.ts";
import { GrowableBytes } from "../util/bytes.ts";

/** How text fields are quoted (`csv_text_quote_in` / `csv_text_quote_out`). */
export type QuoteMode = "none" | "single" | "double";

/** The input side of a CSV dialect. `encoding` accepts any spelling {@link requireEncoding} knows. */
export interface CsvDialect {
  delimiter: string;
  quote: QuoteMode;
  encoding: string;
}

/** Receives one record: decoded, trimmed fields; byte offset of its first byte; 1-based physical line. */
export type CsvRecordHandler = (fields: string[], offset: number, line: number) => void;

/** Options for {@link CsvParser}. */
export interface CsvParserOptions {
  /** Name used in error messages (the input file name). */
  sourceName?: string;
  /** Memory guard: refuse a line still open after this many buffered bytes. Default 10 MiB. */
  maxRecordBytes?: number;
  /** Trim U+0020 from both ends of every field (bxp always does). Default true. */
  trim?: boolean;
  /**
   * Byte offset of the first pushed byte within the whole source: set when parsing a block cut from the
   * middle of a file, so record offsets still index the file. Default 0.
   */
  baseOffset?: number;
  /** Skip a UTF-8 BOM at the start of the pushed input. Default true; false for mid-file blocks. */
  skipBom?: boolean;
  /**
   * Lazy fields: `lazyFields[i]` is 1 when the handler reads field `i` as a string. Then an unquoted record
   * decodes only those fields (the others are "" in `fields`), one `fields` array is reused for every
   * record (the handler must not keep it), and {@link CsvParser.raw} tells where every field sits in the
   * decoded text (a quoted field: between its quotes). Records with a doubled quote are split the general
   * way, every field decoded.
   */
  lazyFields?: Uint8Array;
}

/**
 * Where the fields of the record being delivered sit in the decoded text (lazy mode). Read it inside the
 * record handler: it changes with every record.
 */
export class FieldBounds {
  /** The decoded text the record was cut from. */
  text = "";
  /** Fields of the record, or -1 when it was split the general way and only the fields array is valid. */
  count = -1;
  /**
   * True when every character of `text` is ASCII and stands for one input byte of the same value (UTF-8
   * input without a replacement character); false when unknown.
   */
  ascii = false;
  /**
   * With `ascii`: the input bytes `text` was decoded from, `text[i]` being `bytes[byteBase + i]`; valid only
   * while the record is being delivered (the parser reuses its buffers). Null when not ASCII.
   */
  bytes: Uint8Array | null = null;
  byteBase = 0;
  /** Field `i` is `text.substring(bounds[2 * i], bounds[2 * i + 1])` (already trimmed). */
  bounds: Int32Array = new Int32Array(128);
  /**
   * True when the record holds a quoted field: its bounds are the text between the quotes, which may hold
   * the delimiter (an unquoted field never does).
   */
  quoted = false;
}

/** One parsed record (the pull-style readers yield these). */
export interface CsvRecord {
  fields: string[];
  offset: number;
  line: number;
}

/** The memory guard of bxp's streaming reader: 10 MiB. */
export const MAX_BUFFERED_RECORD_BYTES = 10 * 1024 * 1024;

/** Thrown when no line break appears within the memory guard; the message names the source. */
export class CsvRecordTooLongError extends Error {
  /** The source name given to the parser ("" when none). */
  readonly sourceName: string;
  /** The guard that tripped, in bytes. */
  readonly limitBytes: number;
  constructor(sourceName: string, limitBytes: number) {
    const mb = Math.floor(limitBytes / (1024 * 1024));
    super(
      `'${sourceName}': no line break found in ${mb} MB of buffered input — the streaming reader will not keep ` +
        `buffering a single CSV record past that. Check the file really is CSV, and that it does not use bare CR ` +
        `(classic Mac) line endings`,
    );
    this.name = "CsvRecordTooLongError";
    this.sourceName = sourceName;
    this.limitBytes = limitBytes;
  }
}

/** The quote character for a mode: `"`, `'`, or "" for none. Throws on an unknown mode. */
export function quoteChar(mode: QuoteMode): string {
  switch (mode) {
    case "double":
      return '"';
    case "single":
      return "'";
    case "none":
      return "";
    default:
      throw new RangeError(`unknown quote mode '${mode as string}' (expected none, single or double)`);
  }
}

/** Validate a delimiter: exactly one character. */
export function requireDelimiter(delimiter: string): string {
  if (delimiter.length !== 1) {
    throw new RangeError(`CSV delimiter must be exactly one character, got '${delimiter}'`);
  }
  return delimiter;
}

const LF = 10;
const CR = 13;
const SPACE = 32;
/**
 * "No further occurrence": past any position of a JavaScript string (V8 caps their length below 2^29), and a
 * small integer, so the cached positions compared per field stay integers to the optimising compiler (a
 * double there made every comparison of the splitter a floating-point one).
 */
const NOT_FOUND = 0x3fffffff;

function sliceTrimmed(text: string, start: number, end: number): string {
  while (start < end && text.charCodeAt(start) === SPACE) start++;
  while (end > start && text.charCodeAt(end - 1) === SPACE) end--;
  return text.substring(start, end);
}

function trimSpaces(value: string): string {
  const n = value.length;
  if (n === 0 || (value.charCodeAt(0) !== SPACE && value.charCodeAt(n - 1) !== SPACE)) return value;
  return sliceTrimmed(value, 0, n);
}

/**
 * Split the line `text[start, end)` into raw (untrimmed) fields with bxp's quote rules; `quote` is "" for
 * none. Exposed for callers that hold a single line (drill-down re-reads a record at its offset).
 */
export function splitCsvLine(
  text: string,
  delimiter: string,
  quote: string,
  start = 0,
  end = text.length,
): string[] {
  const fields: string[] = [];
  const delim = delimiter.charCodeAt(0);
  const q = quote === "" ? -1 : quote.charCodeAt(0);
  const quoteChar = quote.charAt(0);
  let pos = start;
  let endedOnDelimiter = false;
  while (pos < end) {
    if (text.charCodeAt(pos) === q) {
      pos++;
      const fieldStart = pos;
      let escaped = false;
      for (;;) {
        pos = quotedFieldStop(text, pos, end, quoteChar, delim);
        if (pos + 1 < end && text.charCodeAt(pos + 1) === q) {
          escaped = true;
          pos += 2;
        } else {
          break;
        }
      }
      const raw = text.substring(fieldStart, pos);
      if (pos < end) pos++; // closing quote
      if (pos < end && text.charCodeAt(pos) === delim) {
        pos++;
        endedOnDelimiter = pos === end;
      }
      fields.push(escaped ? raw.replaceAll(quote + quote, quote) : raw);
    } else {
      let d = text.indexOf(delimiter, pos);
      if (d === -1 || d >= end) d = end;
      fields.push(text.substring(pos, d));
      if (d < end) {
        pos = d + 1;
        endedOnDelimiter = pos === end;
      } else {
        pos = end;
      }
    }
  }
  if (endedOnDelimiter) fields.push("");
  return fields;
}

/**
 * Inside a quoted field of the line ending at `end`, from `pos`: where the field's closing quote is (a quote
 * followed by the delimiter or by the end of the line), or a doubled quote, whichever comes first; `end` when
 * the field runs to the end of the line unterminated. A quote followed by anything else is a lazy quote,
 * literal, and passed over. Found with the native search: most quoted fields hold no quote, and a character
 * loop over every exported field (spreadsheets and CRMs quote them all) cost most of a line's split.
 */
function quotedFieldStop(text: string, pos: number, end: number, quote: string, delim: number): number {
  const q = quote.charCodeAt(0);
  passedLazyQuote = false;
  for (;;) {
    const next = text.indexOf(quote, pos);
    if (next === -1 || next >= end) return end;
    if (next + 1 === end) return next;
    const after = text.charCodeAt(next + 1);
    if (after === q || after === delim) return next;
    passedLazyQuote = true;
    pos = next + 1;
  }
}

/** Whether the last {@link quotedFieldStop} passed over a lazy quote (one it did not stop at). */
let passedLazyQuote = false;

/**
 * True when the quotes of `text[start, end)` do not pair up the way bxp counts them: every quote toggles,
 * except a doubled quote inside an open quote.
 */
export function hasUnbalancedQuote(text: string, quote: string, start = 0, end = text.length): boolean {
  if (quote === "") return false;
  const q = quote.charCodeAt(0);
  let open = false;
  let i = text.indexOf(quote, start);
  while (i !== -1 && i < end) {
    if (open && i + 1 < end && text.charCodeAt(i + 1) === q) {
      i = text.indexOf(quote, i + 2);
      continue;
    }
    open = !open;
    i = text.indexOf(quote, i + 1);
  }
  return open;
}

/**
 * Push parser: feed byte chunks split anywhere (inside a field, between CR and LF, inside a multi-byte
 * character), then call {@link CsvParser.finish}. Records are delivered synchronously to the handler.
 */
export class CsvParser {
  /** Records that ended with an open quote (counted, never dropped). */
  unbalancedQuotes = 0;
  /** Records delivered so far. */
  records = 0;
  /**
   * Whether the record being delivered (read it inside the handler) has an unbalanced quote. bxp counts
   * these for body records only, so a caller that skips a header can subtract it.
   */
  lastRecordUnbalanced = false;
  /** Field positions of the record being delivered, in lazy mode ({@link CsvParserOptions.lazyFields}); else null. */
  readonly raw: FieldBounds | null;

  readonly #onRecord: CsvRecordHandler;
  readonly #delimiter: string;
  readonly #quote: string;
  readonly #decode: (bytes: Uint8Array) => string;
  readonly #singleByte: boolean;
  readonly #trim: boolean;
  readonly #maxRecordBytes: number;
  readonly #sourceName: string;
  readonly #lazy: Uint8Array | null;
  /** The fields array handed to every record in lazy mode. */
  readonly #lazyRow: string[] = [];

  // Small at first: a parser per block is common, and it usually carries one partial line at most.
  #carry = new GrowableBytes(4 * 1024);
  /** Absolute offset of the next byte not yet turned into lines (start of the carry). */
  #offset = 0;
  #line = 1;
  #bomChecked = false;
  #finished = false;

  constructor(dialect: CsvDialect, onRecord: CsvRecordHandler, options: CsvParserOptions = {}) {
    const encoding: EncodingName = requireEncoding(dialect.encoding);
    this.#delimiter = requireDelimiter(dialect.delimiter);
    this.#quote = quoteChar(dialect.quote);
    this.#decode = createDecoder(encoding);
    this.#singleByte = isSingleByte(encoding);
    this.#onRecord = onRecord;
    this.#trim = options.trim ?? true;
    this.#maxRecordBytes = options.maxRecordBytes ?? MAX_BUFFERED_RECORD_BYTES;
    this.#sourceName = options.sourceName ?? "";
    this.#offset = options.baseOffset ?? 0;
    this.#bomChecked = options.skipBom === false;
    this.#lazy = options.lazyFields ?? null;
    this.raw = this.#lazy === null ? null : new FieldBounds();
  }

  /** Feed the next chunk of the source. */
  push(chunk: Uint8Array): void {
    if (this.#finished) throw new Error("CsvParser.push called after finish()");
    if (chunk.length === 0) return;
    if (!this.#bomChecked) {
      this.#appendCarry(chunk);
      if (this.#carry.length < 3) return;
      const head = this.#takeCarry();
      this.#pushData(this.#skipBom(head));
      return;
    }
    this.#pushData(chunk);
  }

  /** End of input: the last line (without a trailing newline) is delivered here. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    // Input shorter than a BOM is still held whole: pass it through the line splitter first, so its
    // complete lines are delivered without their newline, as longer input's are.
    if (!this.#bomChecked) this.#pushData(this.#skipBom(this.#takeCarry()));
    const tail = this.#takeCarry();
    if (tail.length === 0) return;
    const text = this.#decode(tail);
    let end = text.length;
    if (end > 0 && text.charCodeAt(end - 1) === CR) end--;
    if (end > 0) this.#emitLast(text, end, this.#offset);
    this.#offset += tail.length;
  }

  #skipBom(data: Uint8Array): Uint8Array {
    this.#bomChecked = true;
    if (data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
      this.#offset += 3;
      return data.subarray(3);
    }
    return data;
  }

  #pushData(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.#carry.length === 0) {
      const last = chunk.lastIndexOf(LF);
      if (last < 0) {
        this.#appendCarry(chunk);
        this.#guard();
        return;
      }
      this.#processLines(chunk, 0, last + 1);
      if (last + 1 < chunk.length) this.#appendCarry(chunk.subarray(last + 1));
      this.#guard();
      return;
    }
    const first = chunk.indexOf(LF);
    if (first < 0) {
      this.#appendCarry(chunk);
      this.#guard();
      return;
    }
    this.#appendCarry(chunk.subarray(0, first + 1));
    const joined = this.#carry.data.subarray(0, this.#carry.length);
    this.#processLines(joined, 0, joined.length);
    this.#carry.length = 0;
    const last = chunk.lastIndexOf(LF);
    if (last > first) this.#processLines(chunk, first + 1, last + 1);
    if (last + 1 < chunk.length) this.#appendCarry(chunk.subarray(last + 1));
    this.#guard();
  }

  #guard(): void {
    if (this.#carry.length >= this.#maxRecordBytes) {
      throw new CsvRecordTooLongError(this.#sourceName, this.#maxRecordBytes);
    }
  }

  #appendCarry(bytes: Uint8Array): void {
    this.#carry.append(bytes);
  }

  #takeCarry(): Uint8Array {
    const out = this.#carry.data.slice(0, this.#carry.length);
    this.#carry.length = 0;
    return out;
  }

  /** `bytes[start, end)` is a run of complete lines: it ends with LF. */
  #processLines(bytes: Uint8Array, start: number, end: number): void {
    const text = this.#decode(bytes.subarray(start, end));
    // When every character is one byte, string offsets are byte offsets; otherwise walk the LFs of the
    // bytes in step with the LFs of the text (LF is never part of a multi-byte sequence).
    const byteAligned = this.#singleByte || text.length === end - start;
    // As many characters as bytes and no replacement character: every byte was an ASCII character.
    if (this.raw !== null) {
      this.raw.ascii = !this.#singleByte && text.length === end - start && text.indexOf("\uFFFD") === -1;
      this.raw.bytes = this.raw.ascii ? bytes : null;
      this.raw.byteBase = start;
    }
    const base = this.#offset;
    const delimiter = this.#delimiter;
    const quote = this.#quote;
    const trim = this.#trim;
    const onRecord = this.#onRecord;
    // Next delimiter / quote at or after the scan position, cached so lines without one do not rescan the
    // rest of the block (keeps the whole scan linear).
    let nextDelim = -1;
    let nextQuote = quote === "" ? NOT_FOUND : -1;
    // Likewise the next space: trimming looks at each field's ends only on a line that holds one.
    let nextSpace = trim ? -1 : NOT_FOUND;
    let line = this.#line;
    let pos = 0;
    let bytePos = start;
    const n = text.length;
    while (pos < n) {
      let nl = text.indexOf("\n", pos);
      if (nl === -1) nl = n; // cannot happen for a block ending in LF; kept for safety
      let lineEnd = nl;
      if (lineEnd > pos && text.charCodeAt(lineEnd - 1) === CR) lineEnd--;
      if (lineEnd > pos) {
        const offset = byteAligned ? base + pos : base + (bytePos - start);
        if (nextQuote < pos) {
          const found = text.indexOf(quote, pos);
          nextQuote = found === -1 ? NOT_FOUND : found;
        }
        if (nextSpace < pos) {
          const found = text.indexOf(" ", pos);
          nextSpace = found === -1 ? NOT_FOUND : found;
        }
        const trimLine = nextSpace < lineEnd;
        let fields: string[];
        if (nextQuote >= lineEnd && this.#lazy !== null) {
          this.lastRecordUnbalanced = false;
          fields = this.#lazyFields(text, pos, lineEnd, nextDelim, trimLine);
          nextDelim = this.#nextDelim;
        } else if (nextQuote >= lineEnd) {
          this.lastRecordUnbalanced = false;
          fields = [];
          let p = pos;
          for (;;) {
            if (nextDelim < p) {
              const found = text.indexOf(delimiter, p);
              nextDelim = found === -1 ? NOT_FOUND : found;
            }
            const stop = nextDelim < lineEnd ? nextDelim : lineEnd;
            fields.push(trimLine ? sliceTrimmed(text, p, stop) : text.substring(p, stop));
            if (stop === lineEnd) break;
            p = stop + 1;
          }
        } else if (this.#lazy !== null) {
          fields = this.#lazyQuotedFields(text, pos, lineEnd);
        } else {
          fields = this.#quotedRecord(text, pos, lineEnd);
        }
        this.records++;
        onRecord(fields, offset, line);
      }
      line++;
      if (!byteAligned) bytePos = bytes.indexOf(LF, bytePos) + 1;
      pos = nl + 1;
    }
    this.#line = line;
    this.#offset += end - start;
  }

  /** Delimiter search state handed back by {@link CsvParser.#lazyFields}. */
  #nextDelim = -1;

  /**
   * Splits an unquoted line in lazy mode: bounds for every field, strings for the wanted ones. `trim`: the
   * dialect trims and the line holds a space.
   */
  #lazyFields(text: string, start: number, lineEnd: number, nextDelim: number, trim: boolean): string[] {
    const raw = this.raw!;
    const fields = this.#lazyRow;
    const delimiter = this.#delimiter;
    const wanted = this.#lazy!;
    // #putField's work, inline with its lookups hoisted: this runs once per field of every row, and a shared
    // helper taking the hoisted state measured 1-3% slower per block (bench:ab, pass-through config).
    let bounds = raw.bounds;
    let k = 0;
    let p = start;
    for (;;) {
      if (nextDelim < p) {
        const found = text.indexOf(delimiter, p);
        nextDelim = found === -1 ? NOT_FOUND : found;
      }
      const stop = nextDelim < lineEnd ? nextDelim : lineEnd;
      let a = p;
      let b = stop;
      if (trim) {
        while (a < b && text.charCodeAt(a) === SPACE) a++;
        while (b > a && text.charCodeAt(b - 1) === SPACE) b--;
      }
      if (2 * k + 2 > bounds.length) bounds = this.#growBounds();
      bounds[2 * k] = a;
      bounds[2 * k + 1] = b;
      fields[k] = k < wanted.length && wanted[k] === 1 ? text.substring(a, b) : "";
      k++;
      if (stop === lineEnd) break;
      p = stop + 1;
    }
    if (fields.length !== k) fields.length = k;
    raw.text = text;
    raw.count = k;
    raw.quoted = false;
    this.#nextDelim = nextDelim;
    return fields;
  }

  /** Doubles the bounds array of {@link CsvParser.raw}, keeping what it holds. */
  #growBounds(): Int32Array {
    const raw = this.raw!;
    const grown = new Int32Array(raw.bounds.length * 2);
    grown.set(raw.bounds);
    return raw.bounds = grown;
  }

  /**
   * Splits a line holding quotes in lazy mode, like {@link CsvParser.#lazyFields}: a quoted field's bounds
   * are the text between its quotes (a lazy quote inside is literal, so still part of it), which is exactly
   * its value unless it holds a doubled quote. Exports that quote every field then keep the pass-through
   * copy; a line with a doubled quote anywhere is split the general way.
   */
  #lazyQuotedFields(text: string, start: number, lineEnd: number): string[] {
    const raw = this.raw!;
    const fields = this.#lazyRow;
    const delimiter = this.#delimiter;
    const delim = delimiter.charCodeAt(0);
    const quote = this.#quote;
    const q = quote.charCodeAt(0);
    let k = 0;
    let pos = start;
    let endedOnDelimiter = false;
    // Every quote so far opened or closed a field (no lazy quote, none unterminated), so the quotes pair up.
    let paired = true;
    while (pos < lineEnd) {
      let a = pos;
      let b: number;
      if (text.charCodeAt(pos) === q) {
        a = ++pos;
        pos = quotedFieldStop(text, pos, lineEnd, quote, delim);
        // A doubled quote: the value is not a span of the text.
        if (pos + 1 < lineEnd && text.charCodeAt(pos + 1) === q) {
          return this.#quotedRecord(text, start, lineEnd);
        }
        if (passedLazyQuote || pos === lineEnd) paired = false;
        b = pos;
        if (pos < lineEnd) pos++; // closing quote
        if (pos < lineEnd && text.charCodeAt(pos) === delim) {
          pos++;
          endedOnDelimiter = pos === lineEnd;
        }
      } else {
        let d = text.indexOf(delimiter, pos);
        if (d === -1 || d >= lineEnd) d = lineEnd;
        if (paired) {
          const inner = text.indexOf(quote, pos);
          if (inner !== -1 && inner < d) paired = false;
        }
        b = d;
        if (d < lineEnd) {
          pos = d + 1;
          endedOnDelimiter = pos === lineEnd;
        } else {
          pos = lineEnd;
        }
      }
      this.#putField(text, k++, a, b);
    }
    if (endedOnDelimiter) this.#putField(text, k++, lineEnd, lineEnd);
    fields.length = k;
    raw.text = text;
    raw.count = k;
    raw.quoted = true;
    this.lastRecordUnbalanced = !paired && hasUnbalancedQuote(text, quote, start, lineEnd);
    if (this.lastRecordUnbalanced) this.unbalancedQuotes++;
    return fields;
  }

  /**
   * Lazy mode: field `k` is `text[a, b)`, trimmed of spaces when the dialect trims. Stores its bounds
   * (growing the array when full) and, when the handler reads it, its string; "" otherwise.
   */
  #putField(text: string, k: number, a: number, b: number): void {
    if (this.#trim) {
      while (a < b && text.charCodeAt(a) === SPACE) a++;
      while (b > a && text.charCodeAt(b - 1) === SPACE) b--;
    }
    let bounds = this.raw!.bounds;
    if (2 * k + 2 > bounds.length) bounds = this.#growBounds();
    bounds[2 * k] = a;
    bounds[2 * k + 1] = b;
    const wanted = this.#lazy!;
    this.#lazyRow[k] = k < wanted.length && wanted[k] === 1 ? text.substring(a, b) : "";
  }

  #quotedRecord(text: string, start: number, end: number): string[] {
    if (this.raw !== null) this.raw.count = -1;
    this.lastRecordUnbalanced = hasUnbalancedQuote(text, this.#quote, start, end);
    if (this.lastRecordUnbalanced) this.unbalancedQuotes++;
    const fields = splitCsvLine(text, this.#delimiter, this.#quote, start, end);
    if (this.#trim) {
      for (let i = 0; i < fields.length; i++) fields[i] = trimSpaces(fields[i]);
    }
    return fields;
  }

  /** The final line, without a line break (from {@link CsvParser.finish}). */
  #emitLast(text: string, end: number, offset: number): void {
    if (this.raw !== null) this.raw.count = -1;
    let fields: string[];
    if (this.#quote !== "" && text.lastIndexOf(this.#quote, end - 1) !== -1) {
      fields = this.#quotedRecord(text, 0, end);
    } else {
      this.lastRecordUnbalanced = false;
      fields = splitCsvLine(text, this.#delimiter, "", 0, end);
      if (this.#trim) {
        for (let i = 0; i < fields.length; i++) fields[i] = trimSpaces(fields[i]);
      }
    }
    this.records++;
    this.#onRecord(fields, offset, this.#line);
  }
}

/** Counts a pull reader returns when it is done. */
export interface CsvReadStats {
  records: number;
  unbalancedQuotes: number;
}

/**
 * Pull-style reader over byte chunks (a file stream, say): yields every record in order and returns the
 * counts when the input ends.
 */
export async function* readCsvRecords(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  dialect: CsvDialect,
  options: CsvParserOptions = {},
): AsyncGenerator<CsvRecord, CsvReadStats, undefined> {
  let queue: CsvRecord[] = [];
  const parser = new CsvParser(dialect, (fields, offset, line) => {
    queue.push({ fields, offset, line });
  }, options);
  for await (const chunk of chunks) {
    parser.push(chunk);
    if (queue.length > 0) {
      const ready = queue;
      queue = [];
      yield* ready;
    }
  }
  parser.finish();
  yield* queue;
  return { records: parser.records, unbalancedQuotes: parser.unbalancedQuotes };
}

/** Parse a whole in-memory CSV source at once. */
export function parseCsvBytes(
  bytes: Uint8Array,
  dialect: CsvDialect,
  options: CsvParserOptions = {},
): { records: CsvRecord[]; unbalancedQuotes: number } {
  const records: CsvRecord[] = [];
  const parser = new CsvParser(dialect, (fields, offset, line) => {
    records.push({ fields, offset, line });
  }, options);
  parser.push(bytes);
  parser.finish();
  return { records, unbalancedQuotes: parser.unbalancedQuotes };
}
