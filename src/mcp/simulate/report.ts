/**
 * The `bxp_simulate` report: record counts, the BXTB trace folded into per-category counts and samples,
 * and the final JSON object. Pure: bytes and frames in, plain values out.
 *
 * @module
 */

import type { BxtbFrame } from "../../trace/bxtb.ts";

/** Samples kept per trace category; counts stay exact (a big run must not bloat the response). */
export const MAX_TRACE_SAMPLE = 200;

/**
 * Data records of a CSV text: non-empty physical lines (a lone CR counts as empty) minus the header line,
 * never below zero. bxp's CSV never lets a quoted field span lines, so a line is a record.
 *
 * @example
 * ```ts
 * countDataRecords("h1,h2\r\n1,2\r\n\r\n3,4"); // 2
 * countDataRecords(""); // 0
 * ```
 */
export function countDataRecords(text: string): number {
  let lines = 0;
  let hasContent = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      if (hasContent) lines++;
      hasContent = false;
    } else if (c !== 0x0d) {
      hasContent = true;
    }
  }
  if (hasContent) lines++;
  return Math.max(lines - 1, 0);
}

/**
 * Maps byte offsets of the staged input to 1-based line numbers (the header is line 1): one plus the
 * number of `\n` bytes strictly before the offset.
 *
 * @example
 * ```ts
 * const index = new LineIndex(new TextEncoder().encode("h\na\nb\n"));
 * index.lineAt(0); // 1
 * index.lineAt(2); // 2
 * ```
 */
export class LineIndex {
  readonly #newlines: number[] = [];

  /** Index the newline positions of `bytes` once. */
  constructor(bytes: Uint8Array) {
    for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) this.#newlines.push(i);
  }

  /** The 1-based line holding byte `offset`; offsets past the end count every newline. */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.#newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#newlines[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }
}

/** A `filtered_row` sample. */
export interface FilteredSample {
  input_row: number;
  source_offset: number;
  reason: string;
}

/** An `error_row` sample. */
export interface RowErrorSample {
  input_row: number;
  source_offset: number;
  variable: string;
  kind: string;
  detail: string;
  origin: string;
}

/** An `output_row` sample. */
export interface OutputRowSample {
  input_row: number;
  source_offset: number;
  output_idx: number;
  rule: number;
  action: string;
}

/** One trace category: the exact count and the first {@link MAX_TRACE_SAMPLE} entries. */
export interface TraceCategory<T> {
  count: number;
  sample: T[];
}

/** The report's `trace` member: `{available:false}` when no usable BXTB was produced. */
export type TraceSummary = { available: false } | {
  available: true;
  source_rows: number;
  written_rows: number;
  errors: number;
  warnings: number;
  filtered: TraceCategory<FilteredSample>;
  row_errors: TraceCategory<RowErrorSample>;
  output_rows: TraceCategory<OutputRowSample>;
  prepass_entries: number;
};

function addSample<T>(category: TraceCategory<T>, make: () => T): void {
  category.count++;
  if (category.sample.length < MAX_TRACE_SAMPLE) category.sample.push(make());
}

/**
 * Fold decoded BXTB frames into the report's trace summary. `file_end` counts are summed over files;
 * each row frame's `source_locator` is resolved to its line in `input` (the staged CSV bytes).
 *
 * @example
 * ```ts
 * foldTrace([{ type: "filtered_row", chunkId: 0, sourceLocator: 2, reason: "rule_skip" }], bytes);
 * // { available: true, ..., filtered: { count: 1, sample: [{ input_row: 2, source_offset: 2, reason: "rule_skip" }] } }
 * ```
 */
export function foldTrace(frames: readonly BxtbFrame[], input: Uint8Array): TraceSummary {
  const lines = new LineIndex(input);
  const summary = {
    available: true as const,
    source_rows: 0,
    written_rows: 0,
    errors: 0,
    warnings: 0,
    filtered: { count: 0, sample: [] as FilteredSample[] },
    row_errors: { count: 0, sample: [] as RowErrorSample[] },
    output_rows: { count: 0, sample: [] as OutputRowSample[] },
    prepass_entries: 0,
  };
  for (const frame of frames) {
    switch (frame.type) {
      case "file_end":
        summary.source_rows += frame.sourceRows;
        summary.written_rows += frame.writtenRows;
        summary.errors += frame.errors;
        summary.warnings += frame.warnings;
        break;
      case "filtered_row":
        addSample(summary.filtered, () => ({
          input_row: lines.lineAt(frame.sourceLocator),
          source_offset: frame.sourceLocator,
          reason: frame.reason,
        }));
        break;
      case "error_row":
        addSample(summary.row_errors, () => ({
          input_row: lines.lineAt(frame.sourceLocator),
          source_offset: frame.sourceLocator,
          variable: frame.varName,
          kind: frame.errorKind,
          detail: frame.detail,
          origin: frame.origin,
        }));
        break;
      case "output_row":
        addSample(summary.output_rows, () => ({
          input_row: lines.lineAt(frame.sourceLocator),
          source_offset: frame.sourceLocator,
          output_idx: frame.outputIdx,
          rule: frame.ruleIdx,
          action: frame.action,
        }));
        break;
      case "prepass_entry":
        summary.prepass_entries++;
        break;
      default:
        break; // file_start and done carry nothing the report shows
    }
  }
  return summary;
}

/** One produced file as read back: its text, or why it could not be read. */
export type OutputFile = { file: string; csv: string } | { file: string; error: string };

/** Everything a finished run contributes to the report. */
export interface RunFacts {
  template: string;
  exitCode: number;
  inputCsv: string;
  outputs: readonly OutputFile[];
  /** bxp-cli's stdout. */
  summary: string;
  /** bxp-cli's stderr. */
  diagnostics: string;
  trace: TraceSummary;
  workspace: string;
}

/** bxp-cli's exit code as the report's status word (0 ok, 2 warnings, anything else error). */
export function statusOf(exitCode: number): "ok" | "warnings" | "error" {
  return exitCode === 0 ? "ok" : exitCode === 2 ? "warnings" : "error";
}

/**
 * The report object of a run that happened (`ok: true`; the outcome is in exit_code/status/diagnostics).
 * Key order follows bxp's report.
 */
export function buildReport(facts: RunFacts): Record<string, unknown> {
  let outputRecords = 0;
  const outputs = facts.outputs.map((output) => {
    if ("error" in output) return { file: output.file, error: output.error };
    const records = countDataRecords(output.csv);
    outputRecords += records;
    return { file: output.file, records, csv: output.csv };
  });
  return {
    ok: true,
    template: facts.template,
    exit_code: facts.exitCode,
    status: statusOf(facts.exitCode),
    input: { records: countDataRecords(facts.inputCsv), csv: facts.inputCsv },
    output_records: outputRecords,
    outputs,
    summary: facts.summary,
    diagnostics: facts.diagnostics,
    trace: facts.trace,
    workspace: facts.workspace,
  };
}

/**
 * bxp's answer for a run that could not happen: `{"ok":false,"error":<what>,"detail":<where>}`.
 *
 * @example
 * ```ts
 * refusal("template not found in config", "t1"); // { ok: false, error: "template not found in config", detail: "t1" }
 * ```
 */
export function refusal(error: string, detail: string): { ok: false; error: string; detail: string } {
  return { ok: false, error, detail };
}
