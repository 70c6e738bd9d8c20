/**
 * Case-insensitive edit distance and did-you-mean lookup for config keys and field names.
 * @module
 */

/** Levenshtein distance ignoring ASCII case. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 0; i < x.length; i++) {
    const cur = [i + 1];
    for (let j = 0; j < y.length; j++) {
      cur.push(Math.min(cur[j] + 1, prev[j + 1] + 1, prev[j] + (x[i] === y[j] ? 0 : 1)));
    }
    prev = cur;
  }
  return prev[y.length];
}

/**
 * The closest candidate within `maxDistance` edits (first one wins a tie), or null.
 *
 * @example
 * ```ts
 * closestName("file_patter_in", ["data_dir", "file_pattern_in"]); // "file_pattern_in"
 * ```
 */
export function closestName(name: string, candidates: Iterable<string>, maxDistance = 2): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= maxDistance ? best : null;
}
