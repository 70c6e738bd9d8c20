/**
 * The expression-language services validation uses ({@link ExprTools}), backed by `src/lang`.
 * @module
 */

import { expressionFacts, FUNCTIONS, suggestName, validateExpression } from "../lang/mod.ts";
import type { ExprFactsView, ExprTools } from "./check_exprs.ts";

const FUNCTION_NAMES = FUNCTIONS.map((f) => f.name);

function facts(src: string): ExprFactsView | null {
  const f = expressionFacts(src);
  if (f.error) return null;
  return {
    fields: f.fieldRefs.map((r) => r.name),
    vars: f.varRefs.map((r) => r.name),
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
  validate(src) {
    const e = validateExpression(src);
    return e ? { error: e.error, detail: e.detail, off: e.off, len: e.len } : null;
  },
  facts,
  suggestFunction: (name) => suggestName(name, FUNCTION_NAMES),
};
