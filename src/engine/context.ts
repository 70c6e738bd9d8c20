/**
 * The evaluation context of one input file: its columns, the template's maps and settings. Row fields and
 * the record number are set per record by the evaluators; lookups after pre_pass.
 *
 * Not run as a test: a fragment of a run: it needs the plan, context and sinks a conversion builds (tests/engine/ run it whole).
 *
 * @example
 * ```ts ignore
 * const ctx = newEvalContext(plan, new Map([["Date", 0]]), "statement");
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
