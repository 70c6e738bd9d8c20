/**
 * The `bxp_simulate` report: record counts, the BXTB trace folded into per-category counts and samples,
 * the structured answer, its fitting into a byte budget, and the short text summary. Pure: counts,
 * frames and samples in, plain values out.
 *
 * @module
 */

import type { BxtbFrame } from "../../trace/bxtb.ts";
import { utf8Length } from "../../util/utf8.ts";

/** Samples kept per trace category; counts stay exact (a big run must not bloat the response). */
export const MAX_TRACE_SAMPLE = 200;

/**
 * Counts data records of a CSV byte stream fed in chunks, with {@link countDataRecords}'s rule: non-empty
 * physical lines (a lone CR counts as empty) minus the header line, never below zero.
 *
 * @example
 * ```ts
 * import { RecordCounter } from "./report.ts";
 * import assert from "node:assert/strict";
 * const counter = new RecordCounter();
 * counter.push(new TextEncoder().encode("h\n1\n"));
 * counter.push(new TextEncoder().encode("2"));
 * assert.equal(counter.records, 2);
 * ```
 */
export class RecordCounter {
  #lines = 0;
  #hasContent = false;

  /** Count the lines of the next chunk. */
  push(bytes: Uint8Array): void {
    let lines = this.#lines;
    let hasContent = this.#hasContent;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      if (c === 0x0a) {
        if (hasContent) lines++;
        hasContent = false;
      } else if (c !== 0x0d) {
        hasContent = true;
      }
    }
    this.#lines = lines;
    this.#hasContent = hasContent;
  }

  /** Data records so far (a last line without its newline included). */
  get records(): number {
    return Math.max(this.#lines + (this.#hasContent ? 1 : 0) - 1, 0);
  }
}

/**
 * Data records of a CSV text: non-empty physical lines (a lone CR counts as empty) minus the header line,
 * never below zero. bxp's CSV never lets a quoted field span lines, so a line is a record.
 *
 * @example
 * ```ts
 * import { countDataRecords } from "./report.ts";
 * import assert from "node:assert/strict";
 * assert.equal(countDataRecords("h1,h2\r\n1,2\r\n\r\n3,4"), 2);
 * assert.equal(countDataRecords(""), 0);
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
 * import { LineIndex } from "./report.ts";
 * import assert from "node:assert/strict";
 * const index = new LineIndex(new TextEncoder().encode("h\na\nb\n"));
 * assert.equal(index.lineAt(0), 1);
 * assert.equal(index.lineAt(2), 2);
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

function addSample<T>(category: TraceCategory<T>, limit: number, make: () => T): void {
  category.count++;
  if (category.sample.length < limit) category.sample.push(make());
}

/**
 * Folds BXTB frames, fed one at a time, into the report's trace summary: `file_end` counts summed over
 * files, exact counts per category and the first `sampleLimit` samples, each row resolved to its line in
 * the staged input through `lines`.
 */
export class TraceFolder {
  readonly #lines: LineIndex;
  readonly #limit: number;
  readonly summary = {
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

  /** A folder resolving offsets with `lines` and keeping `sampleLimit` samples per category. */
  constructor(lines: LineIndex, sampleLimit = MAX_TRACE_SAMPLE) {
    this.#lines = lines;
    this.#limit = sampleLimit;
  }

  /** Fold one frame. */
  add(frame: BxtbFrame): void {
    const summary = this.summary;
    const lines = this.#lines;
    switch (frame.type) {
      case "file_end":
        summary.source_rows += frame.sourceRows;
        summary.written_rows += frame.writtenRows;
        summary.errors += frame.errors;
        summary.warnings += frame.warnings;
        break;
      case "filtered_row":
        addSample(summary.filtered, this.#limit, () => ({
          input_row: lines.lineAt(frame.sourceLocator),
          source_offset: frame.sourceLocator,
          reason: frame.reason,
        }));
        break;
      case "error_row":
        addSample(summary.row_errors, this.#limit, () => ({
          input_row: lines.lineAt(frame.sourceLocator),
          source_offset: frame.sourceLocator,
          variable: frame.varName,
          kind: frame.errorKind,
          detail: frame.detail,
          origin: frame.origin,
        }));
        break;
      case "output_row":
        addSample(summary.output_rows, this.#limit, () => ({
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
}

/**
 * Fold decoded BXTB frames into the report's trace summary. `file_end` counts are summed over files;
 * each row frame's `source_locator` is resolved to its line in `input` (the staged CSV bytes).
 *
 * @example
 * ```ts
 * import { foldTrace } from "./report.ts";
 * import assert from "node:assert/strict";
 * const bytes = new TextEncoder().encode("h\na\nb\n");
 * const trace = foldTrace([{ type: "filtered_row", chunkId: 0, sourceLocator: 2, reason: "rule_skip" }], bytes);
 * assert.equal(trace.available, true);
 * assert.deepEqual(
 *   trace.filtered,
 *   { count: 1, sample: [{ input_row: 2, source_offset: 2, reason: "rule_skip" }] },
 * );
 * ```
 */
export function foldTrace(frames: readonly BxtbFrame[], input: Uint8Array): TraceSummary {
  const folder = new TraceFolder(new LineIndex(input));
  for (const frame of frames) folder.add(frame);
  return folder.summary;
}

/** One produced file as read back: counts, size and hash over the whole file, and its first rows. */
export interface OutputSummary {
  file: string;
  /** Data records of the whole file (header excluded). */
  records: number;
  /** Size in bytes. */
  bytes: number;
  /** Hex SHA-256 of the whole file. */
  sha256: string;
  /** The header line and the first data lines, as text. */
  head: string;
  /** Whether {@link OutputSummary.head} is the whole file. */
  complete: boolean;
}

/** A produced file that could not be read back. */
export interface OutputFailure {
  file: string;
  error: string;
}

/** One finding of bxp-cli's `--findings-file` (`rule` is a 0-based row rule index; the rest are strings). */
export type Finding = Record<string, string | number>;

/** Everything a finished run contributes to the report. */
export interface RunFacts {
  template: string;
  exitCode: number;
  /**
   * The staged input's file name and size, and bxp-mcp's own count of it: `records` is its non-empty lines
   * after the first ({@link countDataRecords}, bxp's count), what bxp-cli reads as records only when the
   * first line is the header. The report sets it beside what bxp-cli read ({@link inputCounts}).
   */
  input: { file: string; bytes: number; records: number };
  outputs: readonly (OutputSummary | OutputFailure)[];
  /** A resource URI per output file name (absent when the run is not kept). */
  outputUris: ReadonlyMap<string, string>;
  /** bxp-cli's stdout. */
  summary: string;
  /** bxp-cli's stderr without progress lines. */
  diagnostics: string;
  findings: readonly Finding[];
  trace: TraceSummary;
  /** The trace's resource URI, when kept. */
  traceUri: string | null;
  /** The run id (the workspace folder's name). */
  workspace: string;
  /** Milliseconds the call waited for a free slot. */
  queuedMs: number;
  /** Whether the outputs stay readable through resources. */
  kept: boolean;
  /** The run's handle for `bxp_read_run` and how long it lives unused, when kept (absent in old callers). */
  run?: { handle: string; idleSeconds: number } | null;
  /** The limits the call ran under. */
  limits: Record<string, number>;
}

/** The report's `input` member: what bxp-cli read as records, beside the lines bxp-mcp counted. */
export interface InputCounts {
  file: string;
  bytes: number;
  /** Records bxp-cli read (the trace's source_rows); counted from the lines when there is no trace. */
  records: number;
  /** Where {@link InputCounts.records} comes from. */
  records_from: "trace" | "lines";
  /** Non-empty lines after the first line (blank lines are never records). */
  data_lines: number;
  /** Why records and data_lines differ; absent when they agree. */
  not_records?: string;
}

/**
 * The input's counts, made to agree with the trace: `records` is what bxp-cli read (the summary's "N records
 * in" and trace.source_rows), `data_lines` the non-empty lines after the first, and `not_records` says why
 * they differ (a preamble before a csv_header_line header, no header at all, a run that stopped early).
 *
 * @example
 * ```ts
 * import { inputCounts } from "./report.ts";
 * import assert from "node:assert/strict";
 * const counts = inputCounts({ file: "in.csv", bytes: 90, records: 16 }, 0, 13);
 * assert.equal(counts.records, 13);
 * assert.equal(counts.records_from, "trace");
 * assert.equal(counts.data_lines, 16);
 * assert.match(counts.not_records!, /^3 of the 16 non-empty lines after the first are not records: /);
 * ```
 */
export function inputCounts(
  input: RunFacts["input"],
  exitCode: number,
  sourceRows: number | null,
): InputCounts {
  const lines = input.records;
  const counts: InputCounts = {
    file: input.file,
    bytes: input.bytes,
    records: sourceRows ?? lines,
    records_from: sourceRows === null ? "lines" : "trace",
    data_lines: lines,
  };
  if (sourceRows === null || sourceRows === lines) return counts;
  if (statusOf(exitCode) === "error") {
    counts.not_records = `bxp-cli failed (exit ${exitCode}): records counts what it read before it stopped`;
  } else if (sourceRows < lines) {
    const n = lines - sourceRows;
    counts.not_records = `${n} of the ${lines} non-empty lines after the first ${n === 1 ? "is" : "are"} ` +
      `not records: the header line and the preamble before it (csv_header_line > 1); blank lines count ` +
      `in neither, and a footer line is a record (the rows no rule matched are in trace.filtered)`;
  } else {
    counts.not_records = `the first line is a record too: the template reads no header (csv_header_line 0)`;
  }
  return counts;
}

/** bxp-cli's exit code as the report's status word (0 ok, 2 warnings, anything else error). */
export function statusOf(exitCode: number): "ok" | "warnings" | "error" {
  return exitCode === 0 ? "ok" : exitCode === 2 ? "warnings" : "error";
}

/** The first `rows` data lines of a head text (header kept), and how many data records they hold. */
export function cutHead(head: string, rows: number): { text: string; records: number } {
  let at = 0;
  let seenHeader = false;
  let records = 0;
  while (at < head.length) {
    const nl = head.indexOf("\n", at);
    const end = nl === -1 ? head.length : nl + 1;
    const line = head.slice(at, end).replace(/\r?\n$/, "").replace(/\r/g, "");
    if (line !== "") {
      if (!seenHeader) seenHeader = true;
      else if (records === rows) break;
      else records++;
    }
    at = end;
  }
  return { text: head.slice(0, at), records };
}

/** A structured report (what `buildReport` returns, reshaped by `fitReport`). */
export type Report = Record<string, unknown>;

/** bxp-cli's advice to rerun with `--debug`, which no MCP client can do. */
const DEBUG_HINT = "(run with --debug to see details)";

/**
 * bxp-cli's diagnostics with its terminal advice turned into the place an agent can look: over MCP there is
 * no `--debug`, and the trace's `row_errors` names each failing row, expression and error.
 */
export function hintsForMcp(diagnostics: string): string {
  return diagnostics.replaceAll(
    DEBUG_HINT,
    "(the report's trace.row_errors lists the rows, expressions and errors)",
  );
}

/**
 * The structured answer of a run that happened (`ok: true`; the outcome is in exit_code/status/
 * diagnostics). Each output shows at most `sampleRows` data rows in `csv` (`complete` says whether that is
 * the whole file); trace samples are cut to `sampleRows` too.
 */
export function buildReport(facts: RunFacts, sampleRows: number): Report {
  let outputRecords = 0;
  const outputs = facts.outputs.map((output) => {
    const uri = facts.outputUris.get(output.file);
    if ("error" in output) return { file: output.file, error: output.error };
    outputRecords += output.records;
    const shown = cutHead(output.head, sampleRows);
    return {
      file: output.file,
      records: output.records,
      bytes: output.bytes,
      sha256: output.sha256,
      rows_shown: shown.records,
      complete: output.complete && shown.text.length === output.head.length,
      csv: shown.text,
      ...(uri === undefined ? {} : { uri }),
    };
  });
  const trace = facts.trace.available
    ? {
      ...facts.trace,
      filtered: cutSample(facts.trace.filtered, sampleRows),
      row_errors: cutSample(facts.trace.row_errors, sampleRows),
      output_rows: cutSample(facts.trace.output_rows, sampleRows),
      ...(facts.traceUri === null ? {} : { uri: facts.traceUri }),
    }
    : facts.trace;
  return {
    ok: true,
    template: facts.template,
    exit_code: facts.exitCode,
    status: statusOf(facts.exitCode),
    input: inputCounts(facts.input, facts.exitCode, facts.trace.available ? facts.trace.source_rows : null),
    output_records: outputRecords,
    outputs,
    summary: facts.summary,
    diagnostics: hintsForMcp(facts.diagnostics),
    findings: facts.findings,
    trace,
    workspace: facts.workspace,
    queued_ms: facts.queuedMs,
    kept: facts.kept,
    ...(facts.run == null ? {} : { run: facts.run.handle, run_expires_after_idle_s: facts.run.idleSeconds }),
    limits: facts.limits,
    cut: [] as string[],
  };
}

function cutSample<T>(category: TraceCategory<T>, n: number): TraceCategory<T> {
  return { count: category.count, sample: category.sample.slice(0, n) };
}

/** Bytes of the answer: the structured JSON and the text summary. */
export function answerBytes(report: Report): number {
  return utf8Length(JSON.stringify(report)) + utf8Length(summaryText(report));
}

/** Cut `text` to about `bytes` UTF-8 bytes, marking the cut. */
function cutText(text: string, bytes: number): string {
  if (utf8Length(text) <= bytes) return text;
  const kept = new TextDecoder().decode(new TextEncoder().encode(text).subarray(0, bytes)).replace(
    /\uFFFD$/,
    "",
  );
  return `${kept}\n[bxp-mcp: cut to fit the answer's max_bytes]\n`;
}

/**
 * Trim `report` until its answer fits in `maxBytes`: trace samples first, then output rows, then bxp-cli's
 * stdout/stderr text, then findings, then the list of outputs; every cut is named in `cut`. Counts, sizes
 * and hashes are never cut. Returns the report (changed in place).
 */
export function fitReport(report: Report, maxBytes: number): Report {
  const cut = report.cut as string[];
  const fits = () => answerBytes(report) <= maxBytes;
  // deno-lint-ignore no-explicit-any
  const trace = report.trace as any;
  // deno-lint-ignore no-explicit-any
  const outputs = () => report.outputs as any[];
  const steps: (() => boolean)[] = [
    () => {
      if (!trace.available) return false;
      const longest = Math.max(
        trace.filtered.sample.length,
        trace.row_errors.sample.length,
        trace.output_rows.sample.length,
      );
      if (longest === 0) return false;
      const n = Math.floor(longest / 2);
      for (const key of ["filtered", "row_errors", "output_rows"]) {
        trace[key].sample = trace[key].sample.slice(0, n);
      }
      note(cut, "trace samples", `trace samples cut to ${n} per category`);
      return true;
    },
    () => {
      const shown = outputs().filter((o) => typeof o.csv === "string" && o.csv !== "");
      if (shown.length === 0) return false;
      const most = Math.max(...shown.map((o) => o.rows_shown as number));
      for (const o of shown) {
        if (most === 0) {
          o.csv = "";
        } else {
          const next = cutHead(o.csv, Math.floor(most / 2));
          o.csv = next.text;
          o.rows_shown = next.records;
        }
        o.complete = false;
      }
      note(
        cut,
        "output rows",
        most === 0 ? "output samples removed" : `output samples cut to ${Math.floor(most / 2)} rows`,
      );
      return true;
    },
    () => {
      const longest = Math.max(
        utf8Length(report.summary as string),
        utf8Length(report.diagnostics as string),
      );
      if (longest <= 256) return false;
      const to = Math.floor(longest / 2);
      report.summary = cutText(report.summary as string, to);
      report.diagnostics = cutText(report.diagnostics as string, to);
      note(cut, "bxp-cli text", `bxp-cli's summary and diagnostics cut to ${to} bytes each`);
      return true;
    },
    () => {
      const findings = report.findings as Finding[];
      if (findings.length === 0) return false;
      const total = (report.findings_total as number | undefined) ?? findings.length;
      report.findings = findings.slice(0, Math.floor(findings.length / 2));
      report.findings_total = total;
      note(cut, "findings", `findings cut to ${(report.findings as Finding[]).length} of ${total}`);
      return true;
    },
    () => {
      const listed = outputs();
      if (listed.length <= 1) return false;
      const total = (report.outputs_total as number | undefined) ?? listed.length;
      report.outputs = listed.slice(0, Math.floor(listed.length / 2));
      report.outputs_total = total;
      note(cut, "outputs", `outputs listed cut to ${(report.outputs as unknown[]).length} of ${total}`);
      return true;
    },
  ];
  for (const step of steps) {
    while (!fits()) {
      if (!step()) break;
    }
    if (fits()) break;
  }
  return report;
}

/** Record one kind of cut, replacing an earlier note of the same kind. */
function note(cut: string[], kind: string, message: string): void {
  const at = cut.findIndex((c) => c.startsWith(`${kind}:`));
  const entry = `${kind}: ${message}`;
  if (at === -1) cut.push(entry);
  else cut[at] = entry;
}

/**
 * The answer's text: a few lines a person can read (the structured answer carries the detail).
 *
 * @example
 * ```ts
 * import { summaryText } from "./report.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   summaryText({ ok: false, error: "template not found in config", detail: "t9" }),
 *   "bxp_simulate could not run: template not found in config (t9)",
 * );
 * ```
 */
export function summaryText(report: Report): string {
  if (report.ok !== true) {
    return `bxp_simulate could not run: ${report.error} (${report.detail})`;
  }
  // deno-lint-ignore no-explicit-any
  const r = report as any;
  const lines = [
    `bxp_simulate ${r.template}: ${r.status} (exit ${r.exit_code}); ${r.input.records} input records in ` +
    `${r.input.file}${
      r.input.not_records === undefined ? "" : ` (of ${r.input.data_lines} non-empty lines after the first)`
    } -> ${r.output_records} output records in ${r.outputs_total ?? r.outputs.length} file(s).`,
  ];
  for (const o of (r.outputs as Record<string, unknown>[]).slice(0, 5)) {
    if ("error" in o) {
      lines.push(`  ${o.file}: not read back: ${o.error}`);
    } else {
      lines.push(
        `  ${o.file}: ${o.records} records, ${o.bytes} bytes, ${o.rows_shown} shown` +
          (o.complete ? " (complete)" : "") + (o.uri === undefined ? "" : `; full file: ${o.uri}`),
      );
    }
  }
  if (r.trace.available) {
    lines.push(
      `  trace: ${r.trace.written_rows} written, ${r.trace.filtered.count} filtered, ` +
        `${r.trace.row_errors.count} row errors, ${r.trace.warnings} warnings.`,
    );
  }
  if (r.findings.length > 0) lines.push(`  findings: ${r.findings_total ?? r.findings.length}.`);
  if (r.queued_ms > 0) lines.push(`  queued ${r.queued_ms} ms behind other simulations.`);
  if (typeof r.run === "string") {
    lines.push(
      `  run handle ${r.run}: read whole outputs, the trace or this report in pages with bxp_read_run ` +
        `{run, part: "output" | "trace" | "report", name?, offset?} (expires ${
          Math.round(r.run_expires_after_idle_s / 60)
        } min after its last use).`,
    );
  }
  if (r.cut.length > 0) lines.push(`  cut to fit max_bytes: ${r.cut.join("; ")}.`);
  lines.push("  The structured content holds the full report.");
  return lines.join("\n");
}

/**
 * bxp's answer for a run that could not happen: `{"ok":false,"error":<what>,"detail":<where>}`.
 *
 * @example
 * ```ts
 * import { refusal } from "./report.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   refusal("template not found in config", "t1"),
 *   { ok: false, error: "template not found in config", detail: "t1" },
 * );
 * ```
 */
export function refusal(error: string, detail: string): { ok: false; error: string; detail: string } {
  return { ok: false, error, detail };
}
