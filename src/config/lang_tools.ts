/**
 * The expression-language services validation uses ({@link ExprTools}), backed by `src/lang`.
 * @module
 */

import { expressionFacts, FUNCTIONS, spendLimitHit, suggestName, validateExpression } from "../lang/mod.ts";
import type { ExprFactsView, ExprTools } from "./check_exprs.ts";

const FUNCTION_NAMES = FUNCTIONS.map((f) => f.name);

/**
 * Answers per expression text, shared across validations: one validation asks several times about the same
 * expression, and agents validate the same config again and again. Bounded; answers are frozen data. An
 * answer computed under a spend limit that was hit is not kept: it may be that limit's error, not the
 * expression's (see `withinSpendLimit`).
 */
function memo<T>(compute: (src: string) => T): (src: string) => T {
  const cache = new Map<string, T>();
  return (src) => {
    const known = cache.get(src);
    if (known !== undefined || cache.has(src)) return known as T;
    const value = compute(src);
    if (spendLimitHit()) return value;
    if (cache.size >= MEMO_ENTRIES) cache.clear();
    cache.set(src, value);
    return value;
  };
}

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
  validate: memo((src) => {
    const e = validateExpression(src);
    return deepFreeze(e ? { error: e.error, detail: e.detail, off: e.off, len: e.len } : null);
  }),
  facts: memo((src) => deepFreeze(facts(src))),
  suggestFunction: (name) => suggestName(name, FUNCTION_NAMES),
};
