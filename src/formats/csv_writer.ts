/**
 * CSV output with bxp's exact value rules.
 *
 * Per value (bxp `writeSafeValue`), after transcoding:
 * 1. Decimal separator: when `decimalSeparator` is not `.` and the value is a plain decimal
 *    (`-?digits(.digits*)?`, at most 64 characters), its `.` becomes the separator.
 * 2. With a quote character (`quote` single/double):
 *    - a value containing the delimiter, the quote, CR or LF is wrapped in quotes, every quote inside
 *      doubled. Quotes at both ends of a value are data like any other: `"x"` is written `"""x"""`
 *      (bxp dropped its old "already quoted, pass through" special case);
 *    - anything else is written bare. Quoting is only ever "when needed", never "always".
 * 3. Without quoting applied, LF is written as the two characters `\n` and CR is dropped.
 * 4. Spreadsheet-formula guard: a value starting with `=`, TAB or CR, or starting with `+`, `-` or `@` and
 *    containing a call (`IDENT(`) or a DDE link (`|` then `!`), gets a leading `'` (inside the quotes when
 *    quoted).
 *
 * The header line is written verbatim (transcoded only: no quoting, no guard). Lines end with LF and every
 * line, the last included, is terminated.
 *
 * @example
 * ```ts
 * import { formatCsvValue } from "./csv_writer.ts";
 * import assert from "node:assert/strict";
 * const out = { delimiter: ",", quote: "double", encoding: "utf-8", decimalSeparator: "," } as const;
 * // the new separator is the delimiter, so it is quoted
 * assert.equal(formatCsvValue("12.5", out), "\"12,5\"");
 * assert.equal(formatCsvValue("a\"b", out), "\"a\"\"b\"");
 * ```
 * @module
 */

import { encodeSingleByteInto, type EncodingName, requireEncoding } from "./encoding.ts";
import { quoteChar, type QuoteMode, requireDelimiter } from "./csv_reader.ts";
import { HandedOverBuffer } from "../util/bytes.ts";

/** The output side of a CSV dialect (`csv_delimiter_out`, `csv_text_quote_out`, ...). */
export interface CsvOutputDialect {
  delimiter: string;
  quote: QuoteMode;
  encoding: string;
  decimalSeparator: string;
}

/** Receives a filled chunk of output bytes. */
export type ByteSink = (chunk: Uint8Array) => void;

/** Options for {@link CsvWriter}. */
export interface CsvWriterOptions {
  /** Size of the output buffer handed to the sink when full. Default 64 KiB. */
  bufferSize?: number;
  /**
   * Reuse one buffer for every chunk. Then the sink must consume (write or copy) the chunk before it
   * returns. Default false: each chunk handed over is the sink's to keep.
   */
  reuseBuffer?: boolean;
  /**
   * The first buffer to fill (a recycled one); its size then wins over `bufferSize` for that buffer. Later
   * buffers (after a full flush) are `bufferSize` fresh arrays.
   */
  initialBuffer?: Uint8Array;
}

// bxp only rewrites decimal separators of values that fit its 64-byte scratch buffer.
const MAX_DECIMAL_REWRITE_LENGTH = 64;

/** True for a plain decimal as bxp's output stage sees one: optional `-`, digits, optional `.digits*`. */
export function isPlainDecimal(value: string): boolean {
  const n = value.length;
  let i = 0;
  if (i < n && value.charCodeAt(i) === 45) i++;
  const digitsStart = i;
  while (i < n && isDigit(value.charCodeAt(i))) i++;
  if (i === digitsStart) return false;
  if (i < n && value.charCodeAt(i) === 46) {
    i++;
    while (i < n && isDigit(value.charCodeAt(i))) i++;
  }
  return i === n;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isIdentChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46;
}

function hasFormulaMachinery(value: string, from: number): boolean {
  let seenPipe = false;
  for (let i = from; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 40 /* ( */) {
      if (i > from && isIdentChar(value.charCodeAt(i - 1))) return true;
    } else if (c === 124 /* | */) {
      seenPipe = true;
    } else if (c === 33 /* ! */ && seenPipe) {
      return true;
    }
  }
  return false;
}

/**
 * True when a spreadsheet would evaluate `value` as a formula: it starts with `=`, TAB or CR, or with `+`,
 * `-` or `@` followed by a function call or a DDE link. Signed numbers, phone numbers and handles are data.
 */
export function looksLikeFormula(value: string): boolean {
  if (value.length === 0) return false;
  switch (value.charCodeAt(0)) {
    case 61: // =
    case 9:
    case 13:
      return true;
    case 43: // +
    case 45: // -
    case 64: // @
      return hasFormulaMachinery(value, 1);
    default:
      return false;
  }
}

/** Resolved output settings, computed once per writer. */
interface OutputRules {
  delimiter: string;
  quote: string;
  decimalSeparator: string;
  /** Matches any character that sends a value down the slow path (delimiter, quote, CR, LF). */
  special: RegExp;
  /**
   * The same characters as a table of ASCII codes (1: special), for writers that copy a value and look at
   * its characters in one loop; null when a `.` may be rewritten (the decimal separator), which that loop
   * does not do.
   */
  plainAscii: Uint8Array | null;
}

const escapeForClass = (c: string) => c.replace(/[\\\]^-]/g, "\\$&");

function resolveRules(dialect: CsvOutputDialect): OutputRules {
  const decimalSeparator = dialect.decimalSeparator === "" ? "." : dialect.decimalSeparator;
  const delimiter = requireDelimiter(dialect.delimiter);
  const quote = quoteChar(dialect.quote);
  return {
    delimiter,
    quote,
    decimalSeparator,
    special: new RegExp(`[${escapeForClass(delimiter)}${escapeForClass(quote)}\r\n]`),
    plainAscii: decimalSeparator === "." ? specialAsciiTable(delimiter + quote + "\r\n") : null,
  };
}

/** A table of 128 flags, 1 for each ASCII character of `chars` (others cannot occur in an ASCII value). */
function specialAsciiTable(chars: string): Uint8Array {
  const table = new Uint8Array(0x80);
  for (let i = 0; i < chars.length; i++) {
    const c = chars.charCodeAt(i);
    if (c < 0x80) table[c] = 1;
  }
  return table;
}

/** First characters that may open a spreadsheet formula (`=`, TAB, CR, `+`, `-`, `@`). */
function mayLookLikeFormula(c0: number): boolean {
  return c0 === 61 || c0 === 9 || c0 === 13 || c0 === 43 || c0 === 45 || c0 === 64;
}

function needsQuoting(value: string, delimiter: string, quote: string): boolean {
  return value.includes(delimiter) || value.includes(quote) || value.includes("\n") ||
    value.includes("\r");
}

/** Whether the last value {@link applyRules} saw held a special character (delimiter, quote, CR, LF). */
let lastSpecial = false;

function applyRules(value: string, rules: OutputRules): string {
  let s = value;
  if (
    rules.decimalSeparator !== "." && s.length <= MAX_DECIMAL_REWRITE_LENGTH && isPlainDecimal(s)
  ) {
    s = s.replace(".", rules.decimalSeparator);
  }
  // Most values need nothing: no special character and no formula-like first character.
  lastSpecial = s.length !== 0 && rules.special.test(s);
  if (!lastSpecial && !mayLookLikeFormula(s.charCodeAt(0))) return s;
  const q = rules.quote;
  if (q !== "" && needsQuoting(s, rules.delimiter, q)) {
    return q + (looksLikeFormula(s) ? "'" : "") + s.replaceAll(q, q + q) + q;
  }
  const guarded = looksLikeFormula(s) ? "'" + s : s;
  if (guarded.includes("\n") || guarded.includes("\r")) {
    return guarded.replaceAll("\r", "").replaceAll("\n", "\\n");
  }
  return guarded;
}

/**
 * One output value as bxp writes it (before encoding): decimal separator, quoting, newline handling and the
 * formula guard. Pure string function, handy for previews.
 */
export function formatCsvValue(value: string, dialect: CsvOutputDialect): string {
  return applyRules(value, resolveRules(dialect));
}

/** The text of one data line, terminator included. */
export function formatCsvRow(values: readonly string[], dialect: CsvOutputDialect): string {
  const rules = resolveRules(dialect);
  return values.map((v) => applyRules(v, rules)).join(rules.delimiter) + "\n";
}

/** The header line exactly as bxp writes it: names joined by the delimiter, no quoting, LF-terminated. */
export function formatCsvHeader(headers: readonly string[], dialect: CsvOutputDialect): string {
  return headers.join(requireDelimiter(dialect.delimiter)) + "\n";
}

const utf8Encoder = new TextEncoder();
/** The buffer of a writer whose last buffer went to the sink (a real one is allocated on the next write). */
const NO_BUFFER = new Uint8Array(0);
const LF = 10;
/** Copied ranges at least this long go through the native encoder rather than a loop. */
const NATIVE_COPY = 24;
/** Most bytes one UTF-16 unit can take in any supported output encoding (UTF-8: 3; a pair: 4 for 2 units). */
const MAX_BYTES_PER_UNIT = 3;

/**
 * Where {@link CsvWriter.writeRowRaw} copies ranges from: the record's decoded text and, when known, the same
 * text as ASCII bytes (`text[i]` is `bytes[byteBase + i]`). The CSV parser's field bounds are one.
 */
export interface CopySource {
  readonly text: string;
  readonly bytes: Uint8Array | null;
  readonly byteBase: number;
}

/**
 * Buffered CSV writer: rows are encoded straight into a large byte buffer (ASCII by a plain copy loop, the
 * rest through the encoder), full buffers go to the sink. Call {@link CsvWriter.flush} at the end.
 */
export class CsvWriter {
  /** Bytes encoded so far (handed to the sink or in the buffer). */
  bytesWritten = 0;
  /** Data rows written (the header not counted). */
  rowsWritten = 0;
  /**
   * The first column of the last row whose value (after the decimal separator rewrite) held the delimiter,
   * the quote character, CR or LF; -1 when none did. Copied ranges never do.
   */
  specialColumn = -1;

  readonly #sink: ByteSink;
  readonly #rules: OutputRules;
  readonly #encoding: EncodingName;
  readonly #utf8: boolean;
  readonly #reuse: boolean;
  readonly #size: number;
  /** The delimiter's encoded bytes (one byte for every ASCII delimiter). */
  readonly #delimiterBytes: Uint8Array;
  /** The delimiter's code when it is one ASCII character (copied ranges may span it), else -1. */
  readonly #runDelimiter: number;
  #buffer: Uint8Array;
  #pos = 0;
  /** The last full-size buffer handed to the sink, until {@link CsvWriter.reuse} takes it back. */
  readonly #handedOver = new HandedOverBuffer();

  constructor(dialect: CsvOutputDialect, sink: ByteSink, options: CsvWriterOptions = {}) {
    this.#rules = resolveRules(dialect);
    this.#encoding = requireEncoding(dialect.encoding);
    this.#utf8 = this.#encoding === "utf-8";
    this.#sink = sink;
    this.#reuse = options.reuseBuffer ?? false;
    this.#size = Math.max(1024, options.bufferSize ?? 64 * 1024);
    this.#buffer = options.initialBuffer ?? new Uint8Array(this.#size);
    const d = this.#rules.delimiter;
    this.#delimiterBytes = this.#utf8 ? utf8Encoder.encode(d) : new Uint8Array(1);
    if (!this.#utf8) encodeSingleByteInto(d, this.#encoding, this.#delimiterBytes, 0);
    this.#runDelimiter = d.charCodeAt(0) < 0x80 ? d.charCodeAt(0) : -1;
  }

  /**
   * Starts over on `buffer` (a fresh one of the configured size when null), as a new writer would: counters
   * zeroed, nothing buffered. Call it after {@link CsvWriter.flush}; the sink stays the same.
   */
  restart(buffer: Uint8Array | null): void {
    this.#buffer = buffer ?? new Uint8Array(this.#size);
    this.#pos = 0;
    this.bytesWritten = 0;
    this.rowsWritten = 0;
    this.specialColumn = -1;
  }

  /** Write the header line (verbatim names, transcoded). */
  writeHeader(headers: readonly string[]): void {
    this.writeText(headers.join(this.#rules.delimiter) + "\n");
  }

  /** Write one data row. */
  writeRow(values: readonly string[]): void {
    const rules = this.#rules;
    this.specialColumn = -1;
    for (let i = 0; i < values.length; i++) {
      if (i > 0) this.#putDelimiter();
      if (this.#putPlain(values[i])) continue;
      this.#put(applyRules(values[i], rules));
      if (lastSpecial && this.specialColumn < 0) this.specialColumn = i;
    }
    this.#putByte(LF);
    this.rowsWritten++;
  }

  /**
   * Write one data row where some values are copied verbatim from `source.text`: column `i` is
   * `text[starts[i], ends[i])` when `starts[i] >= 0`, else `values[i]` formatted as {@link writeRow} does.
   * The caller guarantees a copied range needs no output rule: every character is ASCII (below 0x80) and
   * {@link formatCsvValue} would return it unchanged. Copies are taken from `source.bytes` when it has them.
   */
  writeRowRaw(values: readonly string[], starts: Int32Array, ends: Int32Array, source: CopySource): void {
    const { text, bytes, byteBase } = source;
    const rules = this.#rules;
    this.specialColumn = -1;
    for (let i = 0; i < values.length; i++) {
      if (i > 0) this.#putDelimiter();
      const a = starts[i];
      if (a < 0) {
        if (this.#putPlain(values[i])) continue;
        this.#put(applyRules(values[i], rules));
        if (lastSpecial && this.specialColumn < 0) this.specialColumn = i;
        continue;
      }
      let b = ends[i];
      // Columns copying neighbouring fields that one delimiter separates are one range of the text.
      const d = this.#runDelimiter;
      while (i + 1 < values.length && starts[i + 1] === b + 1 && text.charCodeAt(b) === d) b = ends[++i];
      if (bytes !== null && b - a >= NATIVE_COPY) this.#copyBytes(bytes, byteBase + a, byteBase + b);
      else this.#copy(text, a, b);
    }
    this.#putByte(LF);
    this.rowsWritten++;
  }

  /** Writes `bytes[a, b)` (ASCII, so the same in every output encoding) as they are. */
  #copyBytes(bytes: Uint8Array, a: number, b: number): void {
    const n = b - a;
    if (n > this.#size) {
      this.flush();
      this.bytesWritten += n;
      this.#sink(bytes.slice(a, b)); // the caller's bytes are reused: the sink gets its own copy
      return;
    }
    if (this.#buffer.length - this.#pos < n) this.#makeRoom(n);
    this.#buffer.set(bytes.subarray(a, b), this.#pos);
    this.#pos += n;
    this.bytesWritten += n;
  }

  /** Writes the ASCII characters `text[a, b)` as bytes. */
  #copy(text: string, a: number, b: number): void {
    const n = b - a;
    if (n > this.#size) {
      this.#putLarge(text.substring(a, b));
      return;
    }
    if (this.#buffer.length - this.#pos < n) this.#makeRoom(n);
    const buf = this.#buffer;
    let pos = this.#pos;
    if (n >= NATIVE_COPY && this.#utf8) {
      // ASCII is its own UTF-8: the native encoder copies a long range faster than a loop.
      pos += utf8Encoder.encodeInto(text.substring(a, b), buf.subarray(pos)).written;
    } else {
      for (let j = a; j < b; j++) buf[pos++] = text.charCodeAt(j);
    }
    this.bytesWritten += pos - this.#pos;
    this.#pos = pos;
  }

  /** Append already-formatted text (encoded with the output encoding). */
  writeText(text: string): void {
    this.#put(text);
  }

  /** Flushes when fewer than `n` bytes are free (`n` is at most the buffer size). */
  #makeRoom(n: number): void {
    if (this.#buffer.length - this.#pos >= n) return;
    this.flush();
    // A smaller recycled first buffer is replaced by a standard one.
    if (this.#buffer.length < n) this.#buffer = new Uint8Array(Math.max(n, this.#size));
  }

  /** Text that may not fit the buffer: encoded piece by piece, flushing between pieces. */
  #putLarge(text: string): void {
    if (this.#buffer.length === 0) this.#buffer = new Uint8Array(this.#size);
    if (this.#utf8) {
      // encodeInto reports how much fitted; flush and continue with the rest (the buffer always holds at
      // least one whole character, so this always progresses).
      let rest = text;
      for (;;) {
        const { read, written } = utf8Encoder.encodeInto(rest, this.#buffer.subarray(this.#pos));
        this.#pos += written;
        this.bytesWritten += written;
        if (read === rest.length) return;
        rest = rest.substring(read);
        this.#flushKeepingBuffer();
      }
    }
    let end = encodeSingleByteInto(text, this.#encoding, this.#buffer, this.#pos);
    if (end < 0) {
      this.#flushKeepingBuffer();
      end = encodeSingleByteInto(text, this.#encoding, this.#buffer, 0);
      if (end < 0) {
        const big = new Uint8Array(text.length);
        const n = encodeSingleByteInto(text, this.#encoding, big, 0);
        this.bytesWritten += n;
        this.#sink(big.subarray(0, n)); // the buffer was just flushed, so order is kept
        return;
      }
    }
    this.bytesWritten += end - this.#pos;
    this.#pos = end;
  }

  /** Flushes and makes sure there is a buffer to write into. */
  #flushKeepingBuffer(): void {
    this.flush();
    if (this.#buffer.length === 0) this.#buffer = new Uint8Array(this.#size);
  }

  #putByte(b: number): void {
    if (this.#pos >= this.#buffer.length) this.#makeRoom(1);
    this.#buffer[this.#pos++] = b;
    this.bytesWritten++;
  }

  #putDelimiter(): void {
    const d = this.#delimiterBytes;
    if (d.length === 1) {
      this.#putByte(d[0]);
      return;
    }
    this.#makeRoom(d.length);
    this.#buffer.set(d, this.#pos);
    this.#pos += d.length;
    this.bytesWritten += d.length;
  }

  /**
   * Writes a value no output rule changes, in one loop that copies its characters and looks at each: ASCII,
   * none of the special characters, no formula-like first character. Returns false, having written
   * nothing, for any other value (the caller then applies the rules), which spares the common value the
   * special-character search of {@link applyRules} before its copy.
   */
  #putPlain(value: string): boolean {
    const special = this.#rules.plainAscii;
    const n = value.length;
    if (special === null || n === 0 || n > this.#size) return n === 0;
    if (mayLookLikeFormula(value.charCodeAt(0))) return false;
    if (this.#buffer.length - this.#pos < n) this.#makeRoom(n);
    const buf = this.#buffer;
    const start = this.#pos;
    let pos = start;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c >= 0x80 || special[c] === 1) return false; // the bytes past #pos are not kept
      buf[pos++] = c;
    }
    this.#pos = pos;
    this.bytesWritten += n;
    return true;
  }

  /** Encodes `text` into the buffer: ASCII by a copy loop, the first other character onwards by the encoder. */
  #put(text: string): void {
    const n = text.length;
    if (n === 0) return;
    const worst = n * MAX_BYTES_PER_UNIT;
    if (this.#buffer.length - this.#pos < worst) {
      if (worst > this.#size) {
        this.#putLarge(text);
        return;
      }
      this.#makeRoom(worst);
    }
    const buf = this.#buffer;
    const start = this.#pos;
    let pos = start;
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) break;
      buf[pos++] = c;
    }
    if (i < n) {
      const rest = i === 0 ? text : text.substring(i);
      if (this.#utf8) {
        pos += utf8Encoder.encodeInto(rest, buf.subarray(pos)).written;
      } else {
        pos = encodeSingleByteInto(rest, this.#encoding, buf, pos);
      }
    }
    this.bytesWritten += pos - start;
    this.#pos = pos;
  }

  /** Hand everything buffered to the sink. */
  flush(): void {
    if (this.#pos === 0) return;
    const chunk = this.#buffer.subarray(0, this.#pos);
    this.#pos = 0;
    if (this.#reuse && this.#buffer.length === this.#size) {
      this.#sink(chunk);
    } else {
      // The next buffer is allocated when something is written: a writer flushed at its end (a parallel
      // block's) should not leave a fresh, never used buffer behind.
      this.#handedOver.handOver(this.#buffer, this.#size);
      this.#buffer = NO_BUFFER;
      this.#sink(chunk);
    }
  }

  /**
   * Takes back `chunk`, the last chunk {@link CsvWriter.flush} handed to the sink, once the sink is done with
   * it (it wrote a copy): the next rows go into the same memory instead of a fresh buffer, which the system
   * must zero and map page by page (per flush, a few hundred page faults for 1 MiB). Anything else, or a
   * chunk given back after more rows were written, is ignored.
   *
   * @example
   * ```ts
   * import { CsvWriter } from "./csv_writer.ts";
   * import assert from "node:assert/strict";
   * const out: Uint8Array[] = [];
   * const dialect = { delimiter: ",", quote: "none", encoding: "utf-8", decimalSeparator: "." } as const;
   * const w = new CsvWriter(dialect, (c) => out.push(c));
   * w.writeRow(["a"]);
   * w.flush();
   * w.reuse(out[0]); // the next row is written where "a\n" was
   * w.writeRow(["b"]);
   * w.flush();
   * assert.equal(new TextDecoder().decode(out[1]), "b\n");
   * ```
   */
  reuse(chunk: Uint8Array): void {
    const buffer = this.#handedOver.takeBack(chunk, this.#size);
    if (buffer !== null && this.#buffer === NO_BUFFER) this.#buffer = buffer;
  }
}
