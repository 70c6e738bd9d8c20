/**
 * Findings: what a run did that is legal but almost surely not what the config's author meant — a non-empty
 * input that wrote no row, an output column empty on every row, a `[Column]` no header has, a value that breaks
 * an unquoted output, a `DATE_CONVERT` whose format never matched. Always computed (from the per-file
 * {@link RowTally}); reported as informational lines, written by `--findings-file`, and errors under `--strict`.
 *
 * @example
 * ```ts
 * import { fileFindings } from "./findings.ts";
 * import { planTemplate } from "./plan.ts";
 * import { newTally } from "./tally.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "[h] = 'x'", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps);
 * const tally = { ...newTally(0), noRuleMatch: 10 };
 * const found = fileFindings({ plan, dateChecks: [], file: "a.csv", header: ["h"], records: 10, rowsWritten: 0, tally });
 * assert.equal(found[0].code, "zero_rows");
 * ```
 * @module
 */

import { expressionFacts } from "../lang/mod.ts";
import type { TemplatePlan } from "./plan.ts";
import type { PrePassWrites } from "./prepass.ts";
import type { DateCheck, RowTally } from "./tally.ts";

/** The kinds of finding (stable names: `--findings-file` and `--debug=json` carry them). */
export type FindingCode =
  | "zero_rows"
  | "empty_column"
  | "unknown_column"
  | "unquoted_delimiter"
  | "date_format_mismatch"
  | "prepass_key_collision";

/** One finding; `file`, `column` and `rule` are present when they apply. */
export interface Finding {
  code: FindingCode;
  template: string;
  file?: string;
  column?: string;
  /** The row rule (0-based index in row_rules) the finding is about. */
  rule?: number;
  /** The 1-based record (RECORD_NUM) the finding is about: for `unquoted_delimiter`, the first one. */
  record?: number;
  /** `prepass_key_collision`: the pre_pass block (`_default` for the legacy one). */
  block?: string;
  /** `prepass_key_collision`: the first key written twice (the one whose second write came first). */
  key?: string;
  /** `prepass_key_collision`: how many records wrote that key. */
  writes?: number;
  /** `prepass_key_collision`: the first two records that wrote it. */
  records?: [number, number];
  /** `prepass_key_collision`: how many keys of the block were written by more than one record. */
  keys?: number;
  message: string;
}

/** What one converted file left for the findings. */
export interface FileOutcome {
  readonly plan: TemplatePlan;
  readonly dateChecks: readonly DateCheck[];
  readonly file: string;
  /** The file's header names (after bxp's trimming). */
  readonly header: readonly string[];
  readonly records: number;
  readonly rowsWritten: number;
  readonly tally: RowTally;
  /** Who wrote each pre_pass key (blocks with last-wins fields only); absent: nothing to report. */
  readonly prepassWrites?: PrePassWrites;
}

/** What an unquoted delimiter or line break does to the written row (the writer drops CR, writes LF as `\n`). */
const UNQUOTED_EFFECT =
  "the written row gains columns, or its line break is rewritten (CR dropped, LF as \\n)";

const EMPTY_LITERAL = /^\s*(""|'')?\s*$/;

/** Output columns every source of which is the empty literal: empty by design, never a finding. */
function emptyByDesign(plan: TemplatePlan): boolean[] {
  return plan.outputVars.map((name) => {
    const sources: string[] = [];
    for (const v of plan.inputVars) if (v.name === name) sources.push(v.source);
    for (const r of plan.rules) {
      for (const row of r.rows) for (const o of row) if (o.name === name) sources.push(o.source);
    }
    return sources.length > 0 && sources.every((s) => EMPTY_LITERAL.test(s));
  });
}

/** Every expression with the place it sits, as a config path, and its rule index when in row_rules. */
function* placedSources(plan: TemplatePlan): Generator<{ where: string; source: string; rule?: number }> {
  for (const v of plan.inputVars) yield { where: `input_schema.${v.name}`, source: v.source };
  for (let i = 0; i < plan.rules.length; i++) {
    const r = plan.rules[i];
    yield { where: `row_rules.${i}.when`, source: r.whenSource, rule: i };
    for (let j = 0; j < r.rows.length; j++) {
      for (const o of r.rows[j]) {
        yield { where: `row_rules.${i}.rows.${j}.${o.name}`, source: o.source, rule: i };
      }
    }
  }
  for (const p of plan.prePass) {
    yield { where: `pre_pass.${p.name}.when`, source: p.whenSource };
    yield { where: `pre_pass.${p.name}.key`, source: p.keySource };
    for (const v of p.values) yield { where: `pre_pass.${p.name}.values.${v.name}`, source: v.source };
  }
}

function unknownColumns(o: FileOutcome, template: string): Finding[] {
  const header = new Set(o.header);
  const out: Finding[] = [];
  const seen = new Set<string>();
  if (o.header.length > 0) {
    for (const name of o.plan.template.fillDown) {
      if (header.has(name) || seen.has(name)) continue;
      seen.add(name);
      out.push({
        code: "unknown_column",
        template,
        file: o.file,
        column: name,
        message:
          `template '${template}': fill_down names '${name}', which matches no column of '${o.file}' ` +
          `(nothing is filled there)`,
      });
    }
  }
  for (const { where, source, rule } of placedSources(o.plan)) {
    let refs;
    try {
      refs = expressionFacts(source).fieldRefs;
    } catch {
      continue;
    }
    for (const ref of refs) {
      if (header.has(ref.name) || seen.has(ref.name)) continue;
      seen.add(ref.name);
      const f: Finding = {
        code: "unknown_column",
        template,
        file: o.file,
        column: ref.name,
        message: `template '${template}': [${ref.name}] in ${where} matches no column of '${o.file}' ` +
          `(it reads "" on every row)`,
      };
      if (rule !== undefined) f.rule = rule;
      out.push(f);
    }
  }
  return out;
}

/**
 * One finding per pre_pass block in which some key was written by several records while a value keeps
 * bxp's last-wins: the earlier records' values are gone (two fee rows of one order: one fee). Identical
 * values are reported too: two fee rows of 1.20 each are 2.40, not 1.20. Naming the fields in the block's
 * `aggregate` (`"last"` included) says the combining is meant, and silences it.
 */
function collisionFindings(o: FileOutcome, template: string): Finding[] {
  const out: Finding[] = [];
  for (const [block, table] of o.prepassWrites ?? []) {
    let keys = 0;
    let firstKey = "";
    let first: { count: number; first: number; second: number } | null = null;
    for (const [key, w] of table) {
      if (w.count < 2) continue;
      keys++;
      if (first === null || w.second < first.second) {
        first = w;
        firstKey = key;
      }
    }
    if (first === null) continue;
    const where = block === "_default" ? "pre_pass" : `pre_pass block '${block}'`;
    const others = keys > 1 ? `, and ${keys - 1} other key(s) by several records too` : "";
    out.push({
      code: "prepass_key_collision",
      template,
      file: o.file,
      block,
      key: firstKey,
      writes: first.count,
      records: [first.first, first.second],
      keys,
      message:
        `template '${template}': ${where} key '${firstKey}' was written by ${first.count} records of ` +
        `'${o.file}' (first ${first.first} and ${first.second})${others}; the last record's values won ` +
        `(bxp's rule): name the fields in its aggregate (sum, count, first or last) to combine them`,
    });
  }
  return out;
}

/** The findings of one converted file, in a stable order. */
export function fileFindings(o: FileOutcome): Finding[] {
  const t = o.plan.template;
  const template = t.id;
  const out: Finding[] = [];
  const tally = o.tally;
  if (o.records > 0 && o.rowsWritten === 0) {
    out.push({
      code: "zero_rows",
      template,
      file: o.file,
      message: `template '${template}': '${o.file}' has ${o.records} record(s) but wrote 0 rows ` +
        `(${tally.noRuleMatch} no_rule_match, ${tally.ruleSkip} rule_skip, ${tally.dateFilter} date_filter)`,
    });
  }
  if (o.rowsWritten > 0) {
    const designed = emptyByDesign(o.plan);
    const filled = new Set(tally.filled);
    o.plan.outputHeaders.forEach((header, i) => {
      if (filled.has(i) || designed[i]) return;
      out.push({
        code: "empty_column",
        template,
        file: o.file,
        column: header,
        message: `template '${template}': output column '${header}' (${
          o.plan.outputVars[i]
        }) is empty on all ${o.rowsWritten} row(s) written from '${o.file}'`,
      });
    });
  }
  out.push(...unknownColumns(o, template));
  if (tally.unquoted !== null) {
    const header = o.plan.outputHeaders[tally.unquoted.column];
    out.push({
      code: "unquoted_delimiter",
      template,
      file: o.file,
      column: header,
      record: tally.unquoted.record,
      message: `template '${template}': output column '${header}' of record ${tally.unquoted.record} of ` +
        `'${o.file}' holds the output delimiter '${t.csvDelimiterOut}' or a line break while ` +
        `csv_text_quote_out is "none": ${UNQUOTED_EFFECT}`,
    });
  }
  o.dateChecks.forEach((check, i) => {
    const d = tally.dates[i];
    if (d === undefined || d.converted > 0 || d.emptied === 0) return;
    out.push({
      code: "date_format_mismatch",
      template,
      file: o.file,
      column: check.name,
      message: `template '${template}': ${check.name} (DATE_CONVERT) returned "" for all ${d.emptied} ` +
        `non-empty input(s) of '${o.file}' (first: '${d.sample}'): the date format does not match the data`,
    });
  });
  out.push(...collisionFindings(o, template));
  return out;
}

/**
 * The warning a finding is also counted as, or null when it is a finding only. An `unquoted_delimiter` output
 * does not read back as the rows that were written (a row gains columns or lines), so a run that wrote one is
 * never "ok": it is a warning (exit 2) naming the file, the first record, the column and the setting to change.
 * A line break does not break the row (the writer rewrites it) but changes the value: a warning too.
 *
 * @example
 * ```ts
 * import { findingWarning } from "./findings.ts";
 * import assert from "node:assert/strict";
 * const finding = { code: "unquoted_delimiter", template: "t", file: "a.csv", column: "name", record: 1, message: "" } as const;
 * assert.match(findingWarning(finding, ",", "in")!, /^warning: 'in\/a.csv' record 1: output column 'name' holds/);
 * assert.equal(findingWarning({ ...finding, code: "zero_rows" }, ",", "in"), null); // a finding only
 * ```
 */
export function findingWarning(f: Finding, delimiter: string, dir: string): string | null {
  if (f.code !== "unquoted_delimiter") return null;
  const where = f.record === undefined ? `'${dir}/${f.file}'` : `'${dir}/${f.file}' record ${f.record}`;
  return `warning: ${where}: output column '${f.column}' holds the output delimiter '${
    JSON.stringify(delimiter).slice(1, -1)
  }' or a line break and csv_text_quote_out is "none": ${UNQUOTED_EFFECT}; set csv_text_quote_out: ` +
    `"double" (template: ${f.template})\n`;
}
