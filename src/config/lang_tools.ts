/**
 * The expression-language services validation uses ({@link ExprTools}), backed by `src/lang`.
 * @module
 */

import { expressionFacts, FUNCTIONS, memoBySource, suggestName, validateExpression } from "../lang/mod.ts";
import type { ExprFactsView, ExprTools } from "./check_exprs.ts";

const FUNCTION_NAMES = FUNCTIONS.map((f) => f.name);

/** Expression answers kept across validations (see `memoBySource`); answers are frozen data. */
const MEMO_ENTRIES = 2048;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function facts(src: string): ExprFactsView | null {
  const f = expressionFacts(src);
  if (f.error) return null;
  return {
    fields: f.fieldRefs.map((r) => r.name),
    calls: f.calls.map((c) => ({
      name: c.name.toUpperCase(),
      literals: c.args.map((a) => a.literal ?? null),
      off: c.off,
      len: c.len,
    })),
  };
}

/** Expression services for config validation, backed by the real language. */
export const langExprTools: ExprTools = {
  validate: memoBySource((src) => {
    const e = validateExpression(src);
    return deepFreeze(e ? { error: e.error, detail: e.detail, off: e.off, len: e.len } : null);
  }, MEMO_ENTRIES),
  facts: memoBySource((src) => deepFreeze(facts(src)), MEMO_ENTRIES),
  suggestFunction: (name) => suggestName(name, FUNCTION_NAMES),
};
