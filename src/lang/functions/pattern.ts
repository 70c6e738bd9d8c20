/**
 * Regular-expression functions on a linear-time engine (re2js): no backtracking blow-up, no
 * backreferences or lookaround; `\d \w \s` are ASCII-only, `.` and classes work on code points.
 *
 * @module
 */

import { RE2JS } from "re2js";
import { ExprError } from "../errors.ts";
import { unmeteredStep } from "../budget.ts";
import type { EagerImpl } from "../spec.ts";

const CACHE_LIMIT = 512;
const cache = new Map<string, RE2JS>();

/** Compile (cached) or raise `BadRegexPattern`. */
export function compileRegex(pattern: string): RE2JS {
  // Matching costs the text's length times the pattern's size, more than the text's length alone.
  unmeteredStep("a regular expression");
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new ExprError("BadRegexPattern", `invalid regex pattern "${pattern}": ${why}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, re);
  return re;
}

/** Why `pattern` does not compile, or `null` when it does. */
export function regexProblem(pattern: string): string | null {
  try {
    compileRegex(pattern);
    return null;
  } catch (e) {
    return e instanceof ExprError ? e.detail : String(e);
  }
}

/** REGEX_MATCH(s, pattern): matches anywhere. */
export const regexMatchImpl: EagerImpl = (args) =>
  compileRegex(args[1] as string).matcher(args[0] as string).find();

/** REGEX_EXTRACT(s, pattern): first capture group if the pattern has one and it took part, else the match. */
export const regexExtractImpl: EagerImpl = (args) => {
  const m = compileRegex(args[1] as string).matcher(args[0] as string);
  if (!m.find()) return "";
  if (m.groupCount() > 0) {
    const g = m.group(1);
    if (g !== null && g !== undefined) return g;
  }
  return m.group(0) ?? "";
};
