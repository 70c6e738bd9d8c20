import assert from "node:assert/strict";
import { lenImpl, lpadImpl, splitPartImpl } from "../../../src/lang/functions/text.ts";
import { emptyContext } from "../../../src/lang/context.ts";
import { fromInt } from "../../../src/lang/decimal.ts";
import { Rng } from "../_generators.ts";

Deno.test("SPLIT_PART counts parts in JS numbers without changing any answer, huge n included", () => {
  const rng = new Rng(19);
  const ctx = emptyContext();
  for (let i = 0; i < 50_000; i++) {
    const s = Array.from({ length: rng.below(10) }, () => rng.pick(["a", ".", "..", "bc", "-"])).join("");
    const delim = rng.pick([".", "..", "-", "x"]);
    const n = rng.pick([1n, 2n, 3n, 5n, 9n, 2n ** 31n - 1n, 2n ** 31n, 10n ** 20n]);
    const parts = s.split(delim);
    const want = n <= BigInt(parts.length) ? parts[Number(n) - 1] : "";
    assert.equal(splitPartImpl([s, delim, fromInt(n)], ctx), want, JSON.stringify([s, delim, String(n)]));
  }
});

Deno.test("a lone surrogate is the three bytes of U+FFFD to LEN and LPAD alike", () => {
  const ctx = emptyContext();
  assert.equal(lenImpl(["a\ud800"], ctx), fromInt(4));
  assert.equal(lenImpl(["\udc00b"], ctx), fromInt(4));
  const padded = lpadImpl(["\ud800", fromInt(5), "x"], ctx) as string;
  assert.equal(padded, "xx\ufffd", "the pad fills exactly the bytes the text does not, with no NUL");
});
