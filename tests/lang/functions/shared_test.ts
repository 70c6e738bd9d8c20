import assert from "node:assert/strict";
import { clampInt } from "../../../src/lang/functions/shared.ts";
import { Rng } from "../_generators.ts";

function clampReference(v: bigint, min: number, max: number): number {
  if (v < BigInt(min)) return min;
  if (v > BigInt(max)) return max;
  return Number(v);
}

Deno.test("clampInt decides like bigint comparisons, far beyond 2^53 included", () => {
  const rng = new Rng(29);
  const bounds: Array<[number, number]> = [[-30, 30], [0, 65535], [1, 65], [-2147483648, 2147483647]];
  const edges = [
    0n,
    1n,
    -1n,
    30n,
    31n,
    -31n,
    2n ** 53n,
    2n ** 53n + 1n,
    -(2n ** 53n) - 1n,
    10n ** 30n,
    -(10n ** 30n),
  ];
  for (let i = 0; i < 50_000; i++) {
    const v = i < edges.length
      ? edges[i]
      : BigInt(rng.digits(1 + rng.below(25))) * (rng.next() < 0.5 ? -1n : 1n);
    for (const [min, max] of bounds) {
      assert.equal(clampInt(v, min, max), clampReference(v, min, max), String(v));
    }
  }
});
