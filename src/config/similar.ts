/**
 * Case-insensitive edit distance and did-you-mean lookup for config keys and field names.
 * @module
 */

/** Levenshtein distance ignoring case (both sides lower-cased, then compared by UTF-16 unit). */
export function editDistance(a: string, b: string): number {
  return loweredEditDistance(a.toLowerCase(), b.toLowerCase());
}

/**
 * {@link editDistance} of two strings the caller has already lower-cased (compared as given), over one
 * reused row: validation asks for it many times per config.
 *
 * @example
 * ```ts
 * import { loweredEditDistance } from "./similar.ts";
 * import assert from "node:assert/strict";
 * assert.equal(loweredEditDistance("symbo", "symbol"), 1);
 * ```
 */
export function loweredEditDistance(x: string, y: string): number {
  const n = y.length;
  const row: number[] = new Array(n + 1);
  for (let j = 0; j <= n; j++) row[j] = j;
  for (let i = 0; i < x.length; i++) {
    const xc = x.charCodeAt(i);
    let diagonal = row[0]; // the previous row's value left of the cell being computed
    row[0] = i + 1;
    for (let j = 0; j < n; j++) {
      const above = row[j + 1];
      let best = diagonal + (xc === y.charCodeAt(j) ? 0 : 1);
      if (above + 1 < best) best = above + 1;
      if (row[j] + 1 < best) best = row[j] + 1;
      row[j + 1] = best;
      diagonal = above;
    }
  }
  return row[n];
}

/**
 * The closest candidate within `maxDistance` edits (first one wins a tie), or null.
 *
 * @example
 * ```ts
 * import { closestName } from "./similar.ts";
 * import assert from "node:assert/strict";
 * assert.equal(closestName("file_patter_in", ["data_dir", "file_pattern_in"]), "file_pattern_in");
 * ```
 */
export function closestName(name: string, candidates: Iterable<string>, maxDistance = 2): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  const lowered = name.toLowerCase();
  for (const c of candidates) {
    const d = loweredEditDistance(lowered, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= maxDistance ? best : null;
}
