/**
 * The evaluation context of one input file: its columns, the template's maps and settings. Row fields and
 * the record number are set per record by the evaluators; lookups after pre_pass.
 *
 * @example
 * ```ts
 * import { newEvalContext } from "./context.ts";
 * import { planTemplate } from "./plan.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps);
 * const ctx = newEvalContext(plan, new Map([["Date", 0]]), "statement");
 * assert.equal(ctx.columns.get("Date"), 0);
 * assert.equal(ctx.filename, "statement");
 * ```
 * @module
 */

import type { EvalContext } from "../lang/mod.ts";
import type { TemplatePlan } from "./plan.ts";

const NO_VARS: ReadonlyMap<string, string> = new Map();

/** A context for the files of `plan` with the given header index and FILENAME() stem. */
export function newEvalContext(
  plan: TemplatePlan,
  columns: ReadonlyMap<string, number>,
  stem: string,
): EvalContext {
  const t = plan.template;
  return {
    columns,
    fields: [],
    vars: NO_VARS,
    maps: plan.maps,
    lookups: null,
    filename: stem,
    recordNum: 0,
    sheetName: t.xlsxSheet?.name ?? "",
    decimalSeparator: t.csvDecimalSeparatorIn,
    trace: null,
    quoteOut: t.csvTextQuoteOut === "double" ? '"' : t.csvTextQuoteOut === "single" ? "'" : "",
  };
}
