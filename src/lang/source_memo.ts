/**
 * Answers per expression text, kept across calls: validation asks several times about the same
 * expression, agents validate the same config again and again, and try one expression on row after row.
 *
 * @example
 * ```ts
 * import { memoBySource } from "./source_memo.ts";
 * import assert from "node:assert/strict";
 * const length = memoBySource((src) => src.length, 256);
 * assert.equal(length("[A] & [B]"), 9); // computed; a second call takes it from the memo
 * ```
 * @module
 */

import { spendLimitHit } from "./budget.ts";

/**
 * `compute` with its answers kept by source text. Bounded: once `entries` are kept the memo starts afresh,
 * and a source longer than `maxSourceChars` is computed at each call. Not kept: a computation that threw,
 * and one made under a spend limit that was hit (its answer may be that limit's error, not the
 * expression's; see `withinSpendLimit`). Answers are shared, so they must not be changed by their users.
 */
export function memoBySource<T>(
  compute: (src: string) => T,
  entries: number,
  maxSourceChars = Infinity,
): (src: string) => T {
  const cache = new Map<string, T>();
  return (src) => {
    const known = cache.get(src);
    if (known !== undefined || cache.has(src)) return known as T;
    const value = compute(src);
    if (src.length > maxSourceChars || spendLimitHit()) return value;
    if (cache.size >= entries) cache.clear();
    cache.set(src, value);
    return value;
  };
}
