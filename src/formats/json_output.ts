/**
 * JSON output (`file_type_out: "json"`) in bxp's exact layout:
 *
 * ```text
 * [
 * {"h1":"v1","h2":"v2"},
 * {"h1":"v3","h2":"v4"}
 * ]
 * ```
 *
 * `[` and LF first; one compact object per row, rows separated by `,` LF; then LF `]` LF (an empty output is
 * `[\n\n]\n`). Every value is a string; keys follow the output_schema order. Escaping: `"` `\` LF CR TAB as
 * `\"` `\\` `\n` `\r` `\t`, other control characters below 0x20 as `\u00xx` (lowercase hex); everything else,
 * non-ASCII included, is written as is (UTF-8). No decimal-separator rewrite, no formula guard, no quoting.
 *
 * @example
 * ```ts
 * import { jsonObjectText } from "./json_output.ts";
 * import assert from "node:assert/strict";
 * assert.equal(jsonObjectText(["id", "note"], ["1", "a\"b"]), '{"id":"1","note":"a\\"b"}');
 * ```
 * @module
 */

import type { CopySource } from "./csv_writer.ts";
import { HandedOverBuffer } from "../util/bytes.ts";

/** Receives a filled chunk of output bytes. */
export type JsonByteSink = (chunk: Uint8Array) => void;

function needsEscape(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return true;
  }
  return false;
}

/** Escape `value` for the inside of a JSON string the way bxp does. */
export function escapeJsonString(value: string): string {
  if (!needsEscape(value)) return value;
  let out = "";
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let rep: string | null = null;
    if (c === 0x22) rep = '\\"';
    else if (c === 0x5c) rep = "\\\\";
    else if (c === 0x0a) rep = "\\n";
    else if (c === 0x0d) rep = "\\r";
    else if (c === 0x09) rep = "\\t";
    else if (c < 0x20) rep = "\\u" + c.toString(16).padStart(4, "0");
    if (rep !== null) {
      out += value.substring(from, i) + rep;
      from = i + 1;
    }
  }
  return out + value.substring(from);
}

/** One output row as bxp writes it: `{"k":"v",...}` (missing values are ""). */
export function jsonObjectText(headers: readonly string[], values: readonly string[]): string {
  let out = "{";
  for (let i = 0; i < headers.length; i++) {
    if (i > 0) out += ",";
    out += '"' + escapeJsonString(headers[i]) + '":"' + escapeJsonString(values[i] ?? "") + '"';
  }
  return out + "}";
}

const encoder = new TextEncoder();
const NO_BUFFER = new Uint8Array(0);
const HEX = new TextEncoder().encode("0123456789abcdef");
/** Most bytes one UTF-16 unit of a value can become: `\u00xx` for a control character. */
const MAX_BYTES_PER_UNIT = 6;
/** Byte ranges shorter than this are copied by a loop: a view for `set` costs more than copying 64 bytes. */
const LONG_COPY = 64;

/**
 * Rows as bxp's JSON objects (see the module doc), encoded straight into a byte buffer as UTF-8; full
 * buffers go to the sink. Each row after the first is preceded by `,\n`. The keys are escaped and encoded
 * once, and a value's ASCII characters are escaped as they are copied: building each row as text and
 * encoding the batch again cost most of a JSON run (the row strings, their concatenation and its copy).
 *
 * @example
 * ```ts
 * import { JsonRowEncoder } from "./json_output.ts";
 * import assert from "node:assert/strict";
 * const chunks: Uint8Array[] = [];
 * const rows = new JsonRowEncoder(["id", "note"], (c) => chunks.push(c));
 * rows.writeRow(["1", 'say "hi"']);
 * rows.writeRow(["2"]);
 * rows.flush();
 * assert.equal(
 *   new TextDecoder().decode(chunks[0]),
 *   '{"id":"1","note":"say \\"hi\\""},\n{"id":"2","note":""}',
 * );
 * ```
 */
export class JsonRowEncoder {
  /** Rows written so far (the next one is preceded by `,\n` when this is above 0). */
  rowsWritten = 0;

  readonly #sink: JsonByteSink;
  readonly #size: number;
  /** Per column, the bytes before its value: `{"key":"` for the first, `","key":"` for the others. */
  readonly #keys: Uint8Array[];
  #buffer: Uint8Array;
  #pos = 0;
  /** The last full-size buffer handed to the sink, until {@link JsonRowEncoder.reuse} takes it back. */
  readonly #handedOver = new HandedOverBuffer();

  /** `bufferSize`: bytes handed to the sink at a time (default 64 KiB); `initialBuffer`: a recycled first one. */
  constructor(
    headers: readonly string[],
    sink: JsonByteSink,
    options: { bufferSize?: number; initialBuffer?: Uint8Array } = {},
  ) {
    this.#sink = sink;
    this.#size = Math.max(16, options.bufferSize ?? 64 * 1024);
    this.#buffer = options.initialBuffer ?? NO_BUFFER;
    this.#keys = headers.map((h, i) => encoder.encode(`${i === 0 ? '{"' : '","'}${escapeJsonString(h)}":"`));
  }

  /** Appends one row (values in header order; a missing value is ""). */
  writeRow(values: readonly string[]): void {
    this.#row(values, null, null, null);
  }

  /**
   * Appends one row where column `i` is `source.text[starts[i], ends[i])` copied as it is when
   * `starts[i] >= 0`, else `values[i]`. The caller guarantees a copied range needs no escape: ASCII, no `"`,
   * `\\` or control character (see `engine/verbatim.ts`). Copies come from `source.bytes` when it has them.
   */
  writeRowRaw(values: readonly string[], starts: Int32Array, ends: Int32Array, source: CopySource): void {
    this.#row(values, starts, ends, source);
  }

  #row(
    values: readonly string[],
    starts: Int32Array | null,
    ends: Int32Array | null,
    source: CopySource | null,
  ): void {
    if (this.rowsWritten > 0) this.#putAscii(",\n");
    const keys = this.#keys;
    if (keys.length === 0) {
      this.#putAscii("{}");
    } else {
      for (let i = 0; i < keys.length; i++) {
        this.#putBytes(keys[i]);
        const a = starts === null ? -1 : starts[i];
        if (a < 0) this.#putValue(values[i] ?? "");
        else this.#putCopy(source!, a, ends![i]);
      }
      this.#putAscii('"}');
    }
    this.rowsWritten++;
  }

  /** Appends ASCII text as it is (the array's brackets). */
  writeAscii(text: string): void {
    this.#putAscii(text);
  }

  /** Hands everything buffered to the sink. */
  flush(): void {
    if (this.#pos === 0) return;
    const chunk = this.#buffer.subarray(0, this.#pos);
    this.#handedOver.handOver(this.#buffer, this.#size);
    this.#buffer = NO_BUFFER; // the next one is taken when something is written
    this.#pos = 0;
    this.#sink(chunk);
  }

  /**
   * Takes back the last chunk {@link JsonRowEncoder.flush} handed over, once the sink has copied it: the
   * next rows reuse its memory. Anything else, or a chunk given back after more was written, is ignored.
   */
  reuse(chunk: Uint8Array): void {
    const buffer = this.#handedOver.takeBack(chunk, this.#size);
    if (buffer !== null && this.#buffer === NO_BUFFER) this.#buffer = buffer;
  }

  /** Starts over on `buffer` (a recycled one) or a fresh one: no rows written, nothing buffered. */
  restart(buffer: Uint8Array | null): void {
    this.#buffer = buffer ?? NO_BUFFER;
    this.#pos = 0;
    this.rowsWritten = 0;
  }

  /** Makes room for `n` bytes (at most the buffer size), flushing first when they do not fit. */
  #room(n: number): void {
    if (this.#buffer.length - this.#pos >= n) return;
    this.flush();
    if (this.#buffer.length < n) this.#buffer = new Uint8Array(Math.max(n, this.#size));
  }

  #putAscii(text: string): void {
    const n = text.length;
    if (n > this.#size) {
      this.#putBytes(encoder.encode(text));
      return;
    }
    this.#room(n);
    const buf = this.#buffer;
    let pos = this.#pos;
    for (let i = 0; i < n; i++) buf[pos++] = text.charCodeAt(i);
    this.#pos = pos;
  }

  #putBytes(bytes: Uint8Array): void {
    const n = bytes.length;
    if (n > this.#size) {
      this.flush();
      this.#sink(bytes.slice()); // the sink keeps its chunks
      return;
    }
    this.#room(n);
    this.#putRange(bytes, 0, n);
  }

  /** `bytes[from, from + n)` into the buffer, which has room for them. */
  #putRange(bytes: Uint8Array, from: number, n: number): void {
    const buf = this.#buffer;
    let pos = this.#pos;
    if (n < LONG_COPY) {
      for (let i = 0; i < n; i++) buf[pos++] = bytes[from + i];
    } else {
      buf.set(n === bytes.length ? bytes : bytes.subarray(from, from + n), pos);
      pos += n;
    }
    this.#pos = pos;
  }

  /** The ASCII characters `source.text[a, b)`, needing no escape, as they are. */
  #putCopy(source: CopySource, a: number, b: number): void {
    const n = b - a;
    if (n === 0) return;
    if (n > this.#size) {
      this.flush();
      this.#sink(encoder.encode(source.text.substring(a, b)));
      return;
    }
    this.#room(n);
    if (source.bytes !== null) {
      this.#putRange(source.bytes, source.byteBase + a, n);
      return;
    }
    const buf = this.#buffer;
    let pos = this.#pos;
    const text = source.text;
    for (let i = a; i < b; i++) buf[pos++] = text.charCodeAt(i);
    this.#pos = pos;
  }

  /** A value, escaped: ASCII by a copy loop, the first other character onwards by the encoder. */
  #putValue(value: string): void {
    const n = value.length;
    if (n === 0) return;
    const worst = n * MAX_BYTES_PER_UNIT;
    if (worst > this.#size) {
      // Longer than a buffer could hold escaped: encoded on its own and handed over after what is buffered.
      const bytes = encoder.encode(escapeJsonString(value));
      if (bytes.length <= this.#size) {
        this.#putBytes(bytes);
      } else {
        this.flush();
        this.#sink(bytes);
      }
      return;
    }
    this.#room(worst);
    const buf = this.#buffer;
    let pos = this.#pos;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c) {
        buf[pos++] = c;
      } else if (c >= 0x80) {
        pos += encoder.encodeInto(escapeJsonString(value.substring(i)), buf.subarray(pos)).written;
        break;
      } else {
        buf[pos++] = 0x5c; // backslash
        if (c === 0x22 || c === 0x5c) buf[pos++] = c;
        else if (c === 0x0a) buf[pos++] = 0x6e; // n
        else if (c === 0x0d) buf[pos++] = 0x72; // r
        else if (c === 0x09) buf[pos++] = 0x74; // t
        else {
          buf[pos++] = 0x75; // u
          buf[pos++] = 0x30;
          buf[pos++] = 0x30;
          buf[pos++] = HEX[c >> 4];
          buf[pos++] = HEX[c & 15];
        }
      }
    }
    this.#pos = pos;
  }
}

/**
 * Streams a JSON array output: {@link JsonArrayWriter.writeRow} per row (possibly across several input files
 * for a combined output), then {@link JsonArrayWriter.finish}. Rows are encoded into a buffer of `batchChars`
 * bytes (see {@link JsonRowEncoder}), handed to the sink as UTF-8 when full or flushed.
 */
export class JsonArrayWriter {
  readonly #rows: JsonRowEncoder;
  #finished = false;

  constructor(headers: readonly string[], sink: JsonByteSink, options: { batchChars?: number } = {}) {
    this.#rows = new JsonRowEncoder(headers, sink, { bufferSize: options.batchChars ?? 32 * 1024 });
    this.#rows.writeAscii("[\n");
  }

  /** Rows written so far; a caller appending rows encoded elsewhere adds their count. */
  get rowsWritten(): number {
    return this.#rows.rowsWritten;
  }
  set rowsWritten(n: number) {
    this.#rows.rowsWritten = n;
  }

  /** Append one row (values in header order). */
  writeRow(values: readonly string[]): void {
    if (this.#finished) throw new Error("JsonArrayWriter.writeRow called after finish()");
    this.#rows.writeRow(values);
  }

  /** Append one row with copied values (see {@link JsonRowEncoder.writeRowRaw}). */
  writeRowRaw(values: readonly string[], starts: Int32Array, ends: Int32Array, source: CopySource): void {
    if (this.#finished) throw new Error("JsonArrayWriter.writeRowRaw called after finish()");
    this.#rows.writeRowRaw(values, starts, ends, source);
  }

  /** Hand buffered bytes to the sink. */
  flush(): void {
    this.#rows.flush();
  }

  /** Takes back the last flushed chunk once the sink has copied it (see {@link JsonRowEncoder.reuse}). */
  reuse(chunk: Uint8Array): void {
    this.#rows.reuse(chunk);
  }

  /** Close the array and flush. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#rows.writeAscii("\n]\n");
    this.flush();
  }
}

/** A whole JSON output document for `rows` (convenience for small outputs and tests). */
export function formatJsonArray(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  return "[\n" + rows.map((row) => jsonObjectText(headers, row)).join(",\n") + "\n]\n";
}
