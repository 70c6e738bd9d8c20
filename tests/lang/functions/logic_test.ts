import assert from "node:assert/strict";
import { caseImpl, inImpl } from "../../../src/lang/functions/logic.ts";
import { emptyContext } from "../../../src/lang/context.ts";
import { type Value, valuesEqual } from "../../../src/lang/value.ts";
import { numericText, Rng } from "../_generators.ts";

function randomValue(rng: Rng): Value {
  const r = rng.next();
  if (r < 0.7) return numericText(rng);
  if (r < 0.85) return BigInt(rng.below(2001) - 1000) * 10n ** BigInt(rng.below(13));
  if (r < 0.95) return rng.pick(["x", "abc", "true", "false"]);
  return rng.next() < 0.5;
}

Deno.test("IN and CASE read the subject once and still compare exactly like valuesEqual", () => {
  const rng = new Rng(23);
  const ctx = emptyContext();
  for (let i = 0; i < 30_000; i++) {
    const subject = randomValue(rng);
    const options = Array.from(
      { length: 1 + rng.below(4) },
      () => rng.next() < 0.2 ? subject : randomValue(rng),
    );
    const want = options.some((o) => valuesEqual(subject, o));
    assert.equal(
      inImpl([subject, ...options], ctx),
      want,
      JSON.stringify([String(subject), ...options.map(String)]),
    );
    const args = [() => subject, ...options.flatMap((o, k) => [() => o, () => `r${k}`]), () => "default"];
    const hit = options.findIndex((o) => valuesEqual(subject, o));
    assert.equal(caseImpl(args, ctx), hit < 0 ? "default" : `r${hit}`);
  }
});
