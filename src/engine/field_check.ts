/**
 * The per-file check of `[Field]` references against the actual header: a reference within a small edit
 * distance of a real column is almost surely a typo, and gets a warning; distant names are treated as
 * optional columns and stay silent.
 *
 * @example
 * ```ts
 * import { closestColumn } from "./field_check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(closestColumn("Amout", ["Date", "Amount"]), "Amount");
 * ```
 * @module
 */

import { expressionFacts } from "../lang/mod.ts";

/** Case-insensitive Levenshtein distance. */
export function levenshteinIgnoreCase(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[t.length];
}

/**
 * The header `name` most likely meant, or null. Short names tolerate one edit, longer ones two
 * (at four letters two edits turn `Time` into `Type`, another column rather than a typo).
 */
export function closestColumn(name: string, columns: Iterable<string>): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of columns) {
    const d = levenshteinIgnoreCase(name, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  const limit = name.length < 6 ? 1 : 2;
  return best !== null && bestDistance <= limit ? best : null;
}

/** The first field reference of `source` that is missing from `columns` but close to one of them. */
export function firstTypo(
  source: string,
  columns: ReadonlyMap<string, number>,
): { bad: string; suggest: string } | null {
  if (source === "") return null;
  let facts;
  try {
    facts = expressionFacts(source);
  } catch {
    return null;
  }
  for (const ref of facts.fieldRefs) {
    if (columns.has(ref.name)) continue;
    const suggest = closestColumn(ref.name, columns.keys());
    if (suggest !== null) return { bad: ref.name, suggest };
  }
  return null;
}
