/**
 * The engine's two outputs besides messages: converted rows and trace events. Small interfaces so the
 * pipeline does not care whether rows become CSV or JSON bytes, or whether anyone listens to the trace.
 *
 * @example
 * ```ts
 * import { NULL_TRACE } from "./sinks.ts";
 * import assert from "node:assert/strict";
 * assert.equal(NULL_TRACE.filteredRow(0, "rule_skip"), undefined); // does nothing
 * ```
 * @module
 */

import type { CopySource } from "../formats/csv_writer.ts";

/** Serialises output rows into bytes that the engine drains and writes in large pieces. */
export interface RowWriter {
  writeHeader(columns: readonly string[]): void;
  writeRow(values: readonly string[]): void;
  /**
   * Optional: a row where column `i` is `source.text[starts[i], ends[i])` copied as is when `starts[i] >= 0`
   * (checked by the caller to need no output rule, see verbatim.ts), else `values[i]` (see
   * `CsvWriter.writeRowRaw`).
   */
  writeRowRaw?(values: readonly string[], starts: Int32Array, ends: Int32Array, source: CopySource): void;
  /**
   * Optional: for the last row written, the first column whose value held the delimiter, the quote
   * character, CR or LF as the CSV writer saw it (after its decimal separator rewrite), else -1.
   */
  readonly specialColumn?: number;
  /**
   * Appends rows already formatted elsewhere (a parallel block): CSV lines, or JSON objects joined by `,\n`.
   * `rows` is how many rows the bytes hold.
   */
  writeFragment(bytes: Uint8Array, rows: number): void;
  /** Writes the closing bytes (a JSON array's `]`). */
  finish(): void;
  /** Bytes produced since the last call, or null when there are none. */
  drain(): Uint8Array | null;
  /**
   * Optional: `bytes`, the last {@link RowWriter.drain} result, has been written (copied) and may hold the
   * next rows; a writer that did not make them ignores it.
   */
  reuse?(bytes: Uint8Array): void;
}

/** The BXTB events of a run, in bxp's frame order. */
export interface TraceSink {
  readonly enabled: boolean;
  fileStart(format: number, template: string, path: string, headers: readonly string[]): void;
  fileEnd(sourceRows: number, writtenRows: number, errors: number, warnings: number): void;
  outputRow(locator: number, outputIdx: number, ruleIdx: number, action: string): void;
  filteredRow(locator: number, reason: string): void;
  errorRow(locator: number, varName: string, kind: string, detail: string, origin: string): void;
  prepassEntry(name: string, key: string, field: string, value: string): void;
  done(exitCode: number): void;
  /**
   * Appends frames encoded elsewhere (a parallel block), after the ones written so far. The sink takes
   * `bytes` over (the CLI's sink frees its buffer once written): pass a buffer of your own and never use it
   * again.
   */
  appendFrames(bytes: Uint8Array): void;
  /** Hands buffered frames to the underlying stream. */
  flush(): Promise<void>;
}

/** A trace that records nothing. */
export const NULL_TRACE: TraceSink = {
  enabled: false,
  fileStart() {},
  fileEnd() {},
  outputRow() {},
  filteredRow() {},
  errorRow() {},
  prepassEntry() {},
  done() {},
  appendFrames() {},
  flush: () => Promise.resolve(),
};
