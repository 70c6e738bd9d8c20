/**
 * The one-row edit distance and the field-typo clustering against the straightforward versions they
 * replaced (kept below as oracles): same distances, same did-you-mean, same outlier on any input.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { fieldOutlier } from "../../src/config/check_exprs.ts";
import { closestName, editDistance, loweredEditDistance } from "../../src/config/similar.ts";

function referenceDistance(a: string, b: string): number {
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

function referenceClosest(name: string, candidates: string[], maxDistance = 2): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = referenceDistance(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= maxDistance ? best : null;
}

function referenceOutlier(fieldsPerSource: string[][]): { bad: string; good: string } | null {
  const freq = new Map<string, number>();
  for (const fields of fieldsPerSource) {
    for (const name of new Set(fields)) freq.set(name, (freq.get(name) ?? 0) + 1);
  }
  for (const [bad, count] of freq) {
    if (count !== 1) continue;
    let good: string | null = null;
    let best = Infinity;
    for (const [candidate, n] of freq) {
      if (n < 3) continue;
      const d = referenceDistance(bad, candidate);
      if (d < best) {
        best = d;
        good = candidate;
      }
    }
    if (good !== null && best <= 2) return { bad, good };
  }
  return null;
}

/** Short names over a small alphabet (with case and non-ASCII), so near misses are common. */
const name = fc.string({
  unit: fc.constantFrom("a", "b", "A", "c", "é", "É", "İ", "ß", "😀", "_"),
  maxLength: 7,
});

Deno.test("similar: edit distance and did-you-mean agree with the textbook version", () => {
  assert.equal(editDistance("Symbo", "SYMBOL"), 1);
  assert.equal(loweredEditDistance("", "abc"), 3);
  fc.assert(
    fc.property(name, name, fc.array(name, { maxLength: 6 }), (a, b, candidates) => {
      assert.equal(editDistance(a, b), referenceDistance(a, b));
      assert.equal(closestName(a, candidates), referenceClosest(a, candidates));
    }),
    { seed: 0x6b7870, numRuns: 3000 },
  );
});

Deno.test("similar: the field-typo outlier agrees with the straightforward version", () => {
  const pool = fc.constantFrom(
    "Symbol",
    "Symbo",
    "SYMBOL",
    "Price",
    "Prise",
    "price_x",
    "Type",
    "Typé",
    "a",
    "b",
  );
  const sources = fc.array(fc.array(fc.oneof(name, pool, pool), { maxLength: 12 }), { maxLength: 10 });
  let found = 0;
  fc.assert(
    fc.property(sources, (fields) => {
      const expected = referenceOutlier(fields);
      if (expected !== null) found++;
      assert.deepEqual(fieldOutlier(fields), expected);
    }),
    { seed: 0x6b7870, numRuns: 3000 },
  );
  assert.ok(found > 100, `only ${found} cases had an outlier`);
});
