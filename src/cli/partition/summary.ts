/**
 * The summary of a partitioned run: from the counters every piece reported, the same messages, counts,
 * findings and exit status a single bxp-cli run over the same files prints (bxp's per-file warnings, the
 * template's `summary:` and detail lines, the overall line). Pure: messages go to a {@link Reporter}.
 *
 * @example
 * ```ts
 * import { summarize } from "./summary.ts";
 * import { exitCodeOf, newTally, planTemplate } from "../../engine/mod.ts";
 * import { loadConfig } from "../../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h] & '!'"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const template = config.templates[0];
 * const setup = { config, template, plan: planTemplate(template, config.maps), countedConfigWarnings: 0,
 *   configMessages: [] }; // what loadSetup gives
 * const piece = { records: 2, rows_written: 2, expr_errors: 0, unbalanced_quotes: 0,
 *   tally: { ...newTally(0), filled: [0] } }; // what --partition-convert printed for each piece
 * const file = { name: "a.csv", head_b64: btoa("h\n"), sample_b64: btoa("h\nx\ny\n"), output: "a.o",
 *   pieces: [piece, piece] };
 * const lines: string[] = [];
 * const reporter = { info: (t: string) => void lines.push(t), warning() {}, fatal() {}, debug() {} };
 * const request = { dir: ".", files: [file], combined: null };
 * const stats = summarize(setup, request, reporter, { strict: false, elapsedMs: 1234 });
 * assert.equal(exitCodeOf(stats), 0); // 0, 1 or 2
 * assert.equal(stats.rowsOut, 4);
 * assert.match(lines.join(""), /=== template: t ===/); // and bxp-cli's summary lines
 * ```
 * @module
 */

import { extractDateRange } from "../../engine/mod.ts";
import { fileFindings, findingWarning } from "../../engine/mod.ts";
import type { Reporter } from "../../engine/mod.ts";
import { detailLines, newStats, overallLine, type SectionStats, summaryLine } from "../../engine/mod.ts";
import { mergeTally, newTally, type RowTally } from "../../engine/mod.ts";
import { fileFacts, type PartitionSetup } from "./setup.ts";
import type { KeyWritesEntry } from "../../engine/mod.ts";
import { mergeWrites } from "./piece.ts";
import { isValidUtf8Prefix } from "../../util/utf8.ts";

/** One input file as the job saw it. */
export interface SummaryFile {
  name: string;
  /** The file's head (BOM, preamble, header line), base64. */
  head_b64: string;
  /** The file's first bytes (up to {@link UTF8_SAMPLE_BYTES}), base64: bxp-cli judges UTF-8 on its first chunk. */
  sample_b64: string;
  /** The output path to name in the summary. */
  output: string;
  /** The folder the input was read from, for messages (default: the request's `dir`). */
  dir?: string;
  /**
   * Each pre_pass piece's `writes` (who wrote each key), for the `prepass_key_collision` finding; absent:
   * the finding is not looked for.
   */
  prepass_writes?: KeyWritesEntry[][];
  /** Each piece's main-pass counters, in order. */
  pieces: {
    records: number;
    rows_written: number;
    expr_errors: number;
    unbalanced_quotes: number;
    tally: RowTally;
  }[];
}

/** The `--partition-summary` request (stdin, JSON). */
export interface SummaryRequest {
  /** The data folder as messages name it. */
  dir: string;
  files: SummaryFile[];
  /** The combined output's path, or null when the template has none. */
  combined: string | null;
  /** Names left out because they are this template's own outputs. */
  own_outputs?: string[];
}

/** The bytes of the first read chunk bxp-cli checks for valid UTF-8. */
export const UTF8_SAMPLE_BYTES = 256 * 1024;

function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function mentionsLookup(setup: PartitionSetup): boolean {
  const has = (s: string) => s.includes("LOOKUP(");
  const plan = setup.plan;
  return plan.inputVars.some((v) => has(v.source)) ||
    plan.rules.some((r) => has(r.whenSource) || r.rows.some((row) => row.some((o) => has(o.source))));
}

/** Options of the summary. */
export interface SummaryOptions {
  strict: boolean;
  /** Wall time of the whole job, for the summary lines. */
  elapsedMs: number;
}

/** Prints the run's messages and returns the overall counters (exit status: `exitCodeOf`). */
export function summarize(
  setup: PartitionSetup,
  req: SummaryRequest,
  reporter: Reporter,
  opts: SummaryOptions,
): SectionStats {
  const t = setup.template;
  const plan = setup.plan;
  const overall = newStats();
  for (const m of setup.configMessages) m.warning ? reporter.warning(m.text) : reporter.info(m.text);
  overall.warnings += setup.countedConfigWarnings;
  const stats = newStats();
  reporter.info(`\n=== template: ${t.id} ===\n`);
  if (plan.prePass.length === 0 && mentionsLookup(setup)) {
    reporter.warning(
      `warning: template '${t.id}' uses LOOKUP() but has no pre_pass blocks defined; LOOKUP calls will silently return ""\n`,
    );
    stats.warnings++;
  }
  for (const n of req.own_outputs ?? []) {
    reporter.warning(`note: skipping '${n}': it is an output of template '${t.id}', not an input\n`);
  }
  if (req.files.length === 0) reporter.info(`No input files for template '${t.id}' in '${req.dir}'\n`);

  for (const file of req.files) {
    const name = file.name;
    const facts = fileFacts(setup, name, fromBase64(file.head_b64));
    const warn = (text: string) => {
      reporter.warning(text);
      stats.warnings++;
    };
    const range = t.dateFilterFromFilename ? extractDateRange(facts.stem) : { kind: "none" as const };
    if (range.kind === "valid") {
      reporter.info(`processing '${name}' with date range from ${range.min} to ${range.max}\n`);
    } else {
      if (range.kind === "invalid") {
        warn(
          `warning: '${name}' has a malformed YYYY-MM-DD_YYYY-MM-DD range (min > max or bad component); ` +
            `processing all rows\n`,
        );
      } else if (t.dateFilterFromFilename) {
        warn(
          `warning: '${name}' has no YYYY-MM-DD_YYYY-MM-DD range in filename; date_filter_from_filename is ` +
            `enabled but no rows will be filtered\n`,
        );
      }
      reporter.info(`processing '${name}'\n`);
    }
    const utf8 = t.csvInputEncoding.toLowerCase().replace("_", "-") === "utf-8";
    const sample = fromBase64(file.sample_b64);
    if (utf8 && sample.length > 0 && !isValidUtf8Prefix(sample)) {
      stats.warnings++;
      reporter.warning(`warning: '${name}' is not valid UTF-8; non-ASCII characters may be garbled\n`);
    }
    for (const w of facts.headerWarnings) {
      stats.warnings++;
      reporter.warning(w);
    }
    for (const w of facts.typos) reporter.warning(w);
    if (facts.typos.length > 0) stats.warnings++;

    const tally = newTally(plan.dateChecks.length);
    let records = 0;
    let rowsWritten = 0;
    let exprErrors = 0;
    let unbalanced = 0;
    for (const p of file.pieces) {
      records += p.records;
      rowsWritten += p.rows_written;
      exprErrors += p.expr_errors;
      unbalanced += p.unbalanced_quotes;
      mergeTally(tally, p.tally);
    }
    const found = fileFindings({
      plan,
      dateChecks: plan.dateChecks,
      file: name,
      header: facts.names,
      records,
      rowsWritten,
      tally,
      prepassWrites: file.prepass_writes === undefined ? undefined : mergeWrites(plan, file.prepass_writes),
    });
    stats.findings.push(...found);
    if (opts.strict && found.length > 0) {
      for (const f of found) reporter.fatal(`error: --strict: ${f.message}\n`);
      reporter.fatal(`error: --strict: no output written for '${name}' (template: ${t.id})\n`);
      stats.hasFatal = true;
    } else {
      stats.outputs.push(file.output);
    }
    if (records === 0) {
      stats.warnings++;
      reporter.warning(
        `warning: no rows in '${name}' (template: ${t.id}, file: ${file.dir ?? req.dir}/${name})\n`,
      );
    }
    if (exprErrors > 0) {
      stats.warnings++;
      reporter.warning(
        `warning: ${exprErrors} input_schema expression error(s) in '${name}' (run with --debug to see details)\n`,
      );
    }
    if (unbalanced > 0) {
      warn(
        `warning: ${unbalanced} row(s) in '${name}' had an unbalanced quote — treated as literal ` +
          `text (set csv_text_quote_in:"none" if the file is not quoted)\n`,
      );
    }
    // As a bxp-cli run: a finding that means a broken output is a warning too (under --strict it is an error).
    for (const f of opts.strict ? [] : found) {
      const warning = findingWarning(f, t.csvDelimiterOut, file.dir ?? req.dir);
      if (warning !== null) warn(warning);
    }
    stats.files++;
    stats.rowsIn += records;
    stats.rowsOut += rowsWritten;
    stats.exprErrors += exprErrors;
    stats.filteredNoRuleMatch += tally.noRuleMatch;
    stats.filteredRuleSkip += tally.ruleSkip;
    stats.filteredDate += tally.dateFilter;
  }
  if (req.combined !== null && req.files.length > 0) {
    if (opts.strict && stats.findings.length > 0) {
      reporter.fatal(`error: --strict: combined output '${req.combined}' not written (template: ${t.id})\n`);
      stats.hasFatal = true;
    } else {
      stats.outputs.push(req.combined);
    }
  }
  if (stats.hasFatal && stats.outputs.length > 0) {
    // A partitioned run commits all of its outputs or none (bxp-cli would keep the files that passed).
    reporter.fatal(`error: partitioned run: no output written (it writes all of its outputs or none)\n`);
    stats.outputs = [];
  }
  stats.timeMs = opts.elapsedMs;
  reporter.info(summaryLine(stats) + "\n");
  reporter.info(detailLines(stats, false).map((l) => l + "\n").join(""));
  for (const f of stats.findings) {
    if (!opts.strict) reporter.info(`  finding (${f.code}): ${f.message}\n`);
  }
  overall.warnings += stats.warnings;
  overall.hasFatal ||= stats.hasFatal;
  overall.files += stats.files;
  overall.rowsIn += stats.rowsIn;
  overall.rowsOut += stats.rowsOut;
  overall.outputs.push(...stats.outputs);
  overall.findings.push(...stats.findings);
  overall.timeMs = opts.elapsedMs;
  reporter.info("\n=== overall summary ===\n");
  reporter.info(overallLine(overall) + "\n");
  return overall;
}
