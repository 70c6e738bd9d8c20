/**
 * Logic functions: IF, CASE, IFERROR (short-circuit), COALESCE, NULLIF, IN, ISEMPTY, IS_NUMERIC.
 *
 * @module
 */

import { DATA_ERRORS, ExprError } from "../errors.ts";
import { parseDecimal } from "../decimal.ts";
import type { EagerImpl, LazyImpl } from "../spec.ts";
import {
  isNonFiniteToken,
  parseGroupedNumber,
  toBool,
  tryToNumber,
  type Value,
  valuesEqual,
  valueToString,
} from "../value.ts";
import { trimWs } from "./shared.ts";

/** IF(cond, yes, no): only the chosen branch is evaluated. */
export const ifImpl: LazyImpl = (args, ctx) => toBool(args[0](ctx)) ? args[1](ctx) : args[2](ctx);

/** CASE(subject, m1, r1, ..., default?): first matching pair; only the chosen result is evaluated. */
export const caseImpl: LazyImpl = (args, ctx) => {
  const subject = args[0](ctx);
  const subjectNumber = tryToNumber(subject); // read once, not once per match value
  const n = args.length;
  let i = 1;
  for (; i + 1 < n; i += 2) {
    if (equalsParsed(subject, subjectNumber, args[i](ctx))) return args[i + 1](ctx);
  }
  return i < n ? args[i](ctx) : "";
};

/** IFERROR(expr, fallback): fallback only when `expr` raises a data error. */
export const iferrorImpl: LazyImpl = (args, ctx) => {
  try {
    return args[0](ctx);
  } catch (e) {
    if (e instanceof ExprError && DATA_ERRORS.has(e.error)) return args[1](ctx);
    throw e;
  }
};

/** COALESCE: first argument that is not blank text; the last one verbatim otherwise. */
export const coalesceImpl: EagerImpl = (args) => {
  const last = args.length - 1;
  for (let i = 0; i < last; i++) {
    const v = args[i];
    if (typeof v !== "string" || trimWs(v).length > 0) return v;
  }
  return args[last];
};

/** NULLIF(value, sentinel): "" when equal (as `=` compares), else value. */
export const nullifImpl: EagerImpl = (args) => valuesEqual(args[0], args[1]) ? "" : args[0];

/** IN(value, v1, ...): equal (as `=` compares) to any option. */
export const inImpl: EagerImpl = (args) => {
  const value = args[0];
  const valueNumber = tryToNumber(value); // read once, not once per option
  for (let i = 1; i < args.length; i++) if (equalsParsed(value, valueNumber, args[i])) return true;
  return false;
};

/** `valuesEqual(a, b)` with `a` already read as a number (`tryToNumber(a)`). */
function equalsParsed(a: Value, aNumber: bigint | null, b: Value): boolean {
  if (aNumber !== null) {
    const bNumber = tryToNumber(b);
    if (bNumber !== null) return aNumber === bNumber;
  }
  return valueToString(a) === valueToString(b);
}

/** ISEMPTY(x): blank text; numbers and booleans never are. */
export const isEmptyImpl: EagerImpl = (args) => {
  const v = args[0];
  return typeof v === "string" && trimWs(v).length === 0;
};

/** IS_NUMERIC(x): holds a real number ("" / nan / inf do not; grouping allowed; booleans do not). */
export const isNumericImpl: EagerImpl = (args) => {
  const v = args[0];
  if (typeof v === "bigint") return true;
  if (typeof v === "boolean") return false;
  if (v.length === 0 || isNonFiniteToken(v)) return false;
  if (typeof parseDecimal(v) === "bigint") return true;
  return parseGroupedNumber(v, ",", ".") !== null;
};
