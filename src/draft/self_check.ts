/**
 * The draft proves itself: the drafted config is run by the real engine over its own sample, in memory (no
 * `Deno.*`: a small in-memory file system), and the run's counters are compared with what the drafter
 * expected — every data record written, every other record skipped by a rule that says why, no expression
 * error, no finding. What does not hold is listed in `problems`, never hidden.
 *
 * @example
 * ```ts
 * import { selfCheck } from "./self_check.ts";
 * import assert from "node:assert/strict";
 * const configText = `{conversion_templates: {bank: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".out.csv", input_schema: {$day: "[Day]", $amount: "[Amount]"},
 *   row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {day: "$day", amount: "$amount"}}}}`;
 * const sampleBytes = new TextEncoder().encode("Day,Amount\n2024-01-02,5\n2024-01-03,7\n2024-01-04,9\n");
 * const expected = { dataRecords: 3, skipped: {} }; // what the drafter's sniffer classified
 * const check = await selfCheck(configText, "bank", "bank.csv", sampleBytes, expected);
 * assert.deepEqual(check.problems, []);
 * assert.equal(check.ok, true);
 * assert.equal(check.rows_out, 3);
 * ```
 * @module
 */

import { loadConfig } from "../config/mod.ts";
import { MemoryFs } from "../engine/mod.ts";
import { runConversion } from "../engine/mod.ts";
import type { TraceSink } from "../engine/mod.ts";
import type { Draft } from "./draft.ts";

/** What running a draft on its own sample showed. */
export interface SelfCheck {
  /** True when every data record was written and nothing else went wrong. */
  ok: boolean;
  /** Records the engine read. */
  rows_in: number;
  /** Rows it wrote. */
  rows_out: number;
  /** The data records the drafter expected to be written. */
  rows_expected: number;
  /** Records skipped by a rule, by the rule's reason (as the drafter classified them). */
  skipped: Record<string, number>;
  /** Records no rule matched (always a problem: the pass-through rule matches everything else). */
  no_rule_match: number;
  /** input_schema expression failures, with the first few places. */
  expression_errors: number;
  expression_error_examples: string[];
  /** The run's findings (code and message), but for the expected ones. */
  findings: { code: string; message: string }[];
  /** Output columns empty on every row because the sample's column is (bxp says so; expected here). */
  empty_columns: number;
  /** Warnings every run of this config gives and the draft accounts for (a repeated header name). */
  warnings: string[];
  /** Everything that does not hold, as sentences. */
  problems: string[];
}

/** Runs `draft` over the part of `bytes` its sniffer examined, expecting what the sniffer classified. */
export function checkDraft(draft: Draft, bytes: Uint8Array, name = "sample.csv"): Promise<SelfCheck> {
  const s = draft.sniff;
  const skipped: Record<string, number> = {};
  for (const r of s.skips) skipped[r.reason] = (skipped[r.reason] ?? 0) + r.lines.length;
  const base = name.replace(/^.*[\\/]/, "");
  return selfCheck(draft.text, draft.templateId, base, bytes.subarray(0, s.sampleBytes), {
    dataRecords: s.dataRecords,
    skipped,
    emptyColumns: draft.columns.filter((_, i) => s.columns[i].empty === s.dataRecords).map((c) => c.output),
  });
}

/** What the drafter expects of the run. */
export interface SelfCheckExpectation {
  /** Data records (to be written, one row each). */
  dataRecords: number;
  /** Records a skip rule drops, by reason. */
  skipped: Record<string, number>;
  /** Output columns the sample leaves empty (their `empty_column` finding is expected). */
  emptyColumns?: readonly string[];
}

const BASE = "/sample";
/** A message cut to a readable length (a wide sample's warning lists thousands of columns). */
function short(text: string): string {
  return text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX - 1)}…` : text;
}
const MESSAGE_MAX = 240;
/** Most findings and problems listed. */
const LIST_MAX = 20;

/** Counts the engine's per-record events. */
class CountingTrace implements TraceSink {
  readonly enabled = true;
  ruleSkip = 0;
  noRuleMatch = 0;
  readonly errors: string[] = [];
  fileStart(): void {}
  fileEnd(): void {}
  outputRow(): void {}
  filteredRow(_locator: number, reason: string): void {
    if (reason === "rule_skip") this.ruleSkip++;
    else if (reason === "no_rule_match") this.noRuleMatch++;
  }
  errorRow(_locator: number, varName: string, kind: string, detail: string): void {
    this.errors.push(`${varName}: ${kind}${detail ? ` (${detail})` : ""}`);
  }
  prepassEntry(): void {}
  done(): void {}
  appendFrames(): void {}
  flush(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Runs `configText` (a draft whose `data_dir` is ".") over `bytes` named `name`, in memory, and compares
 * the outcome with `expected`.
 */
export async function selfCheck(
  configText: string,
  templateId: string,
  name: string,
  bytes: Uint8Array,
  expected: SelfCheckExpectation,
): Promise<SelfCheck> {
  const problems: string[] = [];
  const result: SelfCheck = {
    ok: false,
    rows_in: 0,
    rows_out: 0,
    rows_expected: expected.dataRecords,
    skipped: { ...expected.skipped },
    no_rule_match: 0,
    expression_errors: 0,
    expression_error_examples: [],
    findings: [],
    empty_columns: 0,
    warnings: [],
    problems,
  };
  const loaded = loadConfig(configText, "draft");
  for (const d of loaded.diagnostics) {
    if (d.severity === "error" || d.severity === "warning") {
      problems.push(`the draft's config: ${d.severity} ${d.code}: ${d.message}`);
    }
  }
  if (loaded.config === null) return result;
  const fs = new MemoryFs(BASE);
  fs.put(name, bytes);
  const trace = new CountingTrace();
  const messages: string[] = [];
  const run = await runConversion({
    config: loaded.config,
    templateId,
    dataOverride: ".",
    configLabel: "draft",
  }, {
    fs,
    reporter: {
      info: () => {},
      warning: (text) => messages.push(short(text.trim())),
      fatal: (text) => messages.push(short(text.trim())),
      debug: () => {},
    },
    trace,
    fresh: false,
    dryRun: false,
    debug: false,
    now: () => 0,
    parallel: null,
  });
  const o = run.overall;
  result.rows_in = o.rowsIn;
  result.rows_out = o.rowsOut;
  result.no_rule_match = o.filteredNoRuleMatch;
  result.expression_errors = o.exprErrors;
  result.expression_error_examples = trace.errors.slice(0, 5);
  const empty = new Set(expected.emptyColumns ?? []);
  for (const f of o.findings) {
    if (f.code === "empty_column" && f.column !== undefined && empty.has(f.column)) {
      result.empty_columns++;
    } else result.findings.push({ code: f.code, message: f.message });
  }
  if (o.hasFatal || run.aborted) problems.push(`the run failed: ${messages.join(" / ")}`);
  else {
    for (const m of messages) {
      // A repeated header name is warned about on every run; the draft reads those columns by position.
      if (/duplicate column header/.test(m)) result.warnings.push(m);
      else problems.push(`the run warned: ${m}`);
    }
  }
  if (o.rowsOut !== expected.dataRecords) {
    problems.push(`${o.rowsOut} row(s) written, ${expected.dataRecords} data record(s) expected`);
  }
  const skips = Object.values(expected.skipped).reduce((a, b) => a + b, 0);
  if (o.filteredRuleSkip !== skips) {
    problems.push(`${o.filteredRuleSkip} record(s) skipped by a rule, ${skips} expected`);
  }
  if (o.filteredNoRuleMatch > 0) problems.push(`${o.filteredNoRuleMatch} record(s) matched no rule`);
  if (o.exprErrors > 0) {
    problems.push(`${o.exprErrors} expression error(s), e.g. ${result.expression_error_examples.join("; ")}`);
  }
  for (const f of result.findings) problems.push(`finding ${f.code}: ${f.message}`);
  result.ok = problems.length === 0;
  // Bounded: a wide sample's answer must stay small (the lists keep their first entries and a count).
  for (const list of [result.findings, result.warnings, problems] as unknown[][]) {
    if (list.length > LIST_MAX) {
      const more = list.length - LIST_MAX;
      list.splice(LIST_MAX);
      if (list === problems) problems.push(`… and ${more} more`);
    }
  }
  return result;
}
