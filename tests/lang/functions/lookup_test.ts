import assert from "node:assert/strict";
import { replaceImpl } from "../../../src/lang/functions/lookup.ts";
import { emptyContext } from "../../../src/lang/context.ts";
import { Rng } from "../_generators.ts";

Deno.test("REPLACE(s, from, to) replaces like split/join, '$' patterns taken literally", () => {
  const rng = new Rng(17);
  const alphabet = ["a", "b", "ab", "-", "$", "é", "😀", ""];
  const word = (max: number) => Array.from({ length: rng.below(max) }, () => rng.pick(alphabet)).join("");
  const ctx = emptyContext();
  for (let i = 0; i < 50_000; i++) {
    const s = word(12);
    const from = word(3);
    const to = rng.pick(["", "X", "$&", "$1", "ab", word(3)]);
    const want = from.length === 0 ? s : s.split(from).join(to);
    assert.equal(replaceImpl([s, from, to], ctx), want, JSON.stringify([s, from, to]));
  }
});
