/**
 * Per-file counters and observations a run keeps for its summary and its findings: rows filtered by reason,
 * which output columns ever held a value, the first unquoted value that breaks the output's columns, and how
 * each whole-expression `DATE_CONVERT` variable fared. Kept cheap (a few comparisons per row) and plain data,
 * so a parallel block's tally travels back from its worker and merges in block order.
 *
 * @example
 * ```ts
 * import { mergeTally, newTally } from "./tally.ts";
 * import assert from "node:assert/strict";
 * const tally = newTally(0); // one per file; 0: no DATE_CONVERT variables watched
 * const block = newTally(0); // what one block of the file saw
 * block.noRuleMatch = 2;
 * block.filled.push(1);
 * mergeTally(tally, block);
 * mergeTally(tally, block);
 * assert.equal(tally.noRuleMatch, 4);
 * assert.deepEqual(tally.filled, [1]);
 * ```
 * @module
 */

import { type CompiledExpr, compileExpression, expressionFacts } from "../lang/mod.ts";

/** A `$var: DATE_CONVERT(input, ...)` of input_schema, watched for a format that never matches. */
export interface DateCheck {
  /** Index of the variable in the plan's input vars. */
  readonly inputIndex: number;
  readonly name: string;
  /** The first argument (the date text being converted), evaluated only when the result is empty. */
  readonly input: CompiledExpr;
}

/** What one file (or one block of it) saw. */
export interface RowTally {
  /** Rows dropped because no row rule matched. */
  noRuleMatch: number;
  /** Records whose matching rule emitted no row. */
  ruleSkip: number;
  /** Rows dropped by the filename date filter. */
  dateFilter: number;
  /**
   * Output columns (by index, each at most once) in which some written row had a non-empty value. An
   * evaluator lists a column the first time it sees it filled, so a block's tally usually lists none (a
   * wide template's per-block array of flags was most of what a parallel run's main thread kept).
   */
  filled: number[];
  /** The first value holding the output delimiter or a line break while csv_text_quote_out is none. */
  unquoted: { column: number; record: number } | null;
  /** Per {@link DateCheck}, in plan order. */
  dates: { converted: number; emptied: number; sample: string }[];
}

/** A fresh tally for a plan with `dateChecks` watched variables. */
export function newTally(dateChecks: number): RowTally {
  return {
    noRuleMatch: 0,
    ruleSkip: 0,
    dateFilter: 0,
    filled: [],
    unquoted: null,
    dates: Array.from({ length: dateChecks }, () => ({ converted: 0, emptied: 0, sample: "" })),
  };
}

/** Adds `other` (a later part of the same file) into `into`. */
export function mergeTally(into: RowTally, other: RowTally): void {
  into.noRuleMatch += other.noRuleMatch;
  into.ruleSkip += other.ruleSkip;
  into.dateFilter += other.dateFilter;
  if (other.filled.length > 0) {
    const known = new Set(into.filled);
    for (const column of other.filled) if (!known.has(column)) into.filled.push(column);
  }
  into.unquoted ??= other.unquoted;
  into.dates.forEach((d, i) => {
    const o = other.dates[i];
    if (o === undefined) return;
    d.converted += o.converted;
    d.emptied += o.emptied;
    if (d.sample === "") d.sample = o.sample;
  });
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The input argument of `source` when the whole expression is one `DATE_CONVERT(input, from, to)` call, else
 * null. Only whole-expression calls are watched: inside an `IF` an empty result may be intended.
 *
 * @example
 * ```ts
 * import { dateConvertInput } from "./tally.ts";
 * import assert from "node:assert/strict";
 * assert.equal(dateConvertInput("DATE_CONVERT([Date], 'DD.MM.YYYY', 'YYYY-MM-DD')"), "[Date]");
 * assert.equal(dateConvertInput("IF([x], DATE_CONVERT([Date], 'DD.MM.YYYY', 'YYYY-MM-DD'), '')"), null);
 * ```
 */
export function dateConvertInput(source: string): string | null {
  let facts;
  try {
    facts = expressionFacts(source);
  } catch {
    return null;
  }
  if (facts.error !== null || facts.calls.length === 0) return null;
  const bytes = encoder.encode(source);
  const lead = encoder.encode(source.slice(0, source.length - source.trimStart().length)).length;
  const body = encoder.encode(source.trim()).length;
  const call = facts.calls.find((c) => c.off === lead);
  if (call === undefined || call.name.toUpperCase() !== "DATE_CONVERT" || call.len !== body) return null;
  const arg = call.args[0];
  if (arg === undefined || arg.literal !== undefined) return null;
  return decoder.decode(bytes.subarray(arg.off, arg.off + arg.len));
}

/** The watched `DATE_CONVERT` variables of an input_schema. */
export function planDateChecks(inputVars: readonly { name: string; source: string }[]): DateCheck[] {
  const checks: DateCheck[] = [];
  inputVars.forEach((v, inputIndex) => {
    const input = dateConvertInput(v.source);
    if (input === null) return;
    try {
      checks.push({ inputIndex, name: v.name, input: compileExpression(input) });
    } catch {
      // the whole expression compiled, so its argument does too; a failure only means no watch
    }
  });
  return checks;
}
