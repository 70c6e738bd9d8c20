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
 * jsonObjectText(["id", "note"], ["1", "a\"b"]); // '{"id":"1","note":"a\\"b"}'
 * ```
 * @module
 */

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

/**
 * Streams a JSON array output: {@link JsonArrayWriter.writeRow} per row (possibly across several input files
 * for a combined output), then {@link JsonArrayWriter.finish}. Text is batched and handed to the sink as UTF-8.
 */
export class JsonArrayWriter {
  /** Rows written so far. */
  rowsWritten = 0;

  readonly #headers: readonly string[];
  readonly #sink: JsonByteSink;
  readonly #batchChars: number;
  #pending = "[\n";
  #finished = false;

  constructor(headers: readonly string[], sink: JsonByteSink, options: { batchChars?: number } = {}) {
    this.#headers = headers;
    this.#sink = sink;
    this.#batchChars = options.batchChars ?? 32 * 1024;
  }

  /** Append one row (values in header order). */
  writeRow(values: readonly string[]): void {
    if (this.#finished) throw new Error("JsonArrayWriter.writeRow called after finish()");
    if (this.rowsWritten > 0) this.#pending += ",\n";
    this.#pending += jsonObjectText(this.#headers, values);
    this.rowsWritten++;
    if (this.#pending.length >= this.#batchChars) this.flush();
  }

  /** Hand buffered text to the sink. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const text = this.#pending;
    this.#pending = "";
    this.#sink(encoder.encode(text));
  }

  /** Close the array and flush. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#pending += "\n]\n";
    this.flush();
  }
}

/** A whole JSON output document for `rows` (convenience for small outputs and tests). */
export function formatJsonArray(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  return "[\n" + rows.map((row) => jsonObjectText(headers, row)).join(",\n") + "\n]\n";
}
