/**
 * Public API of the bxp expression language.
 *
 * @example
 * ```ts
 * import { compileExpression, emptyContext, validateExpression } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.equal(validateExpression("ABS(1, 2)")?.error, "WrongArgCount");
 * assert.equal(compileExpression("ROUND(2.5, 0)").evaluate(emptyContext()), "3");
 * ```
 * @module
 */

import { compileExpression } from "./compile.ts";
import { emptyContext } from "./context.ts";
import { staticCheck } from "./check.ts";
import { ExprError } from "./errors.ts";

export {
  type CompiledExpr,
  compileExpression,
  compileExpressionGeneral,
  compileWithReads,
} from "./compile.ts";
export { type CallTrace, emptyContext, type EvalContext, type LookupTables } from "./context.ts";
export {
  type ArgFact,
  type CallFact,
  type ExpressionFacts,
  expressionFacts,
  type RefFact,
  staticCheck,
  staticProblems,
} from "./check.ts";
export { DATA_ERRORS, ExprError, type ExprErrorName } from "./errors.ts";
export { type FieldReads, fieldReads } from "./field_reads.ts";
export {
  lastEvaluationWork,
  MAX_EVAL_WORK,
  MAX_VALUE_CHARS,
  spendLimitHit,
  withinSpendLimit,
} from "./budget.ts";
export { type FunctionDoc, type LanguageDocs, languageDocs } from "./docs.ts";
export { memoBySource } from "./source_memo.ts";
export { findFunction, FUNCTIONS } from "./registry.ts";
export type { ArgKind, ArgSpec, FunctionSpec } from "./spec.ts";
export { suggestName } from "./suggest.ts";
export { formatDecimal, parseDecimal } from "./decimal.ts";
export {
  canonicalNumericString,
  isTruthy,
  normalizeDecimalSeparator,
  toBool,
  toNumber,
  type Value,
  valueToString,
} from "./value.ts";

/**
 * The `bxp_validate_expr` check: parse, evaluate once against an empty row, then the static
 * checks. `null` when the expression is fine.
 */
export function validateExpression(src: string): ExprError | null {
  try {
    compileExpression(src).evaluate(emptyContext());
  } catch (e) {
    if (e instanceof ExprError) return e;
    throw e;
  }
  return staticCheck(src);
}

/** Format a raw decimal (value × 10^12) for output: up to 12 decimals, trailing zeros trimmed. */
export { formatDecimal as formatNumber } from "./decimal.ts";
/** Read text as a number the way arithmetic does (`""`/nan -> 0, `1,234.5` accepted); throws `NotANumber`. */
export { toNumber as parseNumber } from "./value.ts";
export { convertDate } from "./datetime/mod.ts";
