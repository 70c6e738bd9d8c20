/**
 * Output row writers for the engine: CSV or JSON bytes per the template's output dialect, buffered in
 * large pieces that the engine drains and writes between input chunks.
 *
 * @example
 * ```ts
 * import { createRowWriter } from "./row_writers.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const w = createRowWriter(config.templates[0], ["a", "b"]);
 * w.writeHeader(["a", "b"]);
 * w.writeRow(["1", "2"]);
 * assert.equal(new TextDecoder().decode(w.drain()!), "a,b\n1,2\n");
 * ```
 * @module
 */

import { type CopySource, CsvWriter } from "../formats/csv_writer.ts";
import { JsonArrayWriter } from "../formats/json_output.ts";
import type { TemplateConfig } from "../config/mod.ts";
import type { RowWriter } from "./sinks.ts";
import { concatBytes } from "../util/bytes.ts";

const ROW_SEPARATOR = new TextEncoder().encode(",\n");

/** Collects chunks handed over by a format writer until drained. */
class ChunkQueue {
  #chunks: Uint8Array[] = [];
  readonly push = (chunk: Uint8Array): void => {
    this.#chunks.push(chunk);
  };
  take(): Uint8Array | null {
    if (this.#chunks.length === 0) return null;
    const chunks = this.#chunks;
    this.#chunks = [];
    return concatBytes(chunks);
  }
}

class CsvRowWriter implements RowWriter {
  readonly #queue = new ChunkQueue();
  readonly #writer: CsvWriter;
  constructor(template: TemplateConfig) {
    this.#writer = new CsvWriter(
      {
        delimiter: template.csvDelimiterOut,
        quote: template.csvTextQuoteOut,
        encoding: template.csvOutputEncoding,
        decimalSeparator: template.csvDecimalSeparatorOut,
      },
      this.#queue.push,
      // Larger than what the rows of one 256 KiB input chunk usually become, so a drain is one piece
      // (several pieces were concatenated into a fresh array only to be copied again by the output).
      { bufferSize: 1024 * 1024 },
    );
  }
  writeHeader(columns: readonly string[]): void {
    this.#writer.writeHeader(columns);
  }
  writeRow(values: readonly string[]): void {
    this.#writer.writeRow(values);
  }
  writeRowRaw(values: readonly string[], starts: Int32Array, ends: Int32Array, source: CopySource): void {
    this.#writer.writeRowRaw(values, starts, ends, source);
  }
  get specialColumn(): number {
    return this.#writer.specialColumn;
  }
  writeFragment(bytes: Uint8Array): void {
    this.#writer.flush();
    if (bytes.length > 0) this.#queue.push(bytes);
  }
  finish(): void {}
  drain(): Uint8Array | null {
    this.#writer.flush();
    return this.#queue.take();
  }
  reuse(bytes: Uint8Array): void {
    this.#writer.reuse(bytes);
  }
}

class JsonRowWriter implements RowWriter {
  readonly #queue = new ChunkQueue();
  readonly #headers: readonly string[];
  #writer: JsonArrayWriter | null = null;
  constructor(headers: readonly string[]) {
    this.#headers = headers;
  }
  #open(): JsonArrayWriter {
    return this.#writer ??= new JsonArrayWriter(this.#headers, this.#queue.push, { batchChars: 1024 * 1024 });
  }
  writeHeader(): void {
    this.#open();
  }
  writeRow(values: readonly string[]): void {
    this.#open().writeRow(values);
  }
  writeRowRaw(values: readonly string[], starts: Int32Array, ends: Int32Array, source: CopySource): void {
    this.#open().writeRowRaw(values, starts, ends, source);
  }
  writeFragment(bytes: Uint8Array, rows: number): void {
    if (rows === 0) return;
    const w = this.#open();
    w.flush();
    if (w.rowsWritten > 0) this.#queue.push(ROW_SEPARATOR);
    this.#queue.push(bytes);
    w.rowsWritten += rows; // the next row written here gets its separator
  }
  finish(): void {
    this.#open().finish();
  }
  drain(): Uint8Array | null {
    this.#writer?.flush();
    return this.#queue.take();
  }
  reuse(bytes: Uint8Array): void {
    this.#writer?.reuse(bytes);
  }
}

/** A writer for the template's `file_type_out`, over its output headers. */
export function createRowWriter(template: TemplateConfig, headers: readonly string[]): RowWriter {
  return template.fileTypeOut === "json" ? new JsonRowWriter(headers) : new CsvRowWriter(template);
}
