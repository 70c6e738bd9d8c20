/**
 * Did-you-mean suggestions by edit distance.
 *
 * @example
 * ```ts
 * import { suggestName } from "./suggest.ts";
 * import assert from "node:assert/strict";
 * assert.equal(suggestName("ABZ", ["ABS", "ROUND"]), "ABS");
 * ```
 * @module
 */

/** Levenshtein distance between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = new Array<number>(b.length + 1);
  let curr = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    curr[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      curr[j] = Math.min(prev[j] + 1, curr[j - 1] + 1, prev[j - 1] + cost);
    }
    [prev, curr] = [curr, prev];
  }
  return prev[b.length];
}

/**
 * The candidate closest to `name` (case-insensitive) when at most 2 edits away; the earliest
 * candidate wins a tie. `null` when nothing is close enough (or `name` itself is a candidate).
 */
export function suggestName(name: string, candidates: Iterable<string>): string | null {
  const wanted = name.toUpperCase();
  let best: string | null = null;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const d = editDistance(wanted, candidate.toUpperCase());
    if (d === 0) return null;
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
