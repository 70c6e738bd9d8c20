import assert from "node:assert/strict";
import { CharFinder } from "../../src/util/char_finder.ts";

/** The answer by looking at every character. */
function noneInSlowly(chars: readonly string[], text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (chars.includes(text[i])) return false;
  return true;
}

Deno.test("CharFinder answers as a look at every character, for ranges in any order and across texts", () => {
  const chars = [",", '"', "\r"];
  const pieces = ["a", "bb", ",", '"', "\r", "x,y", "  "];
  let seed = 11;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const finder = new CharFinder(chars);
  for (let round = 0; round < 300; round++) {
    let text = "";
    for (let k = rnd(30); k > 0; k--) text += pieces[rnd(pieces.length)];
    // Mostly left to right, as a line's fields are visited, with jumps back (columns read out of order).
    let at = 0;
    for (let q = 0; q < 40; q++) {
      const a = rnd(4) === 0 ? rnd(text.length + 1) : Math.min(text.length, at + rnd(4));
      const b = Math.min(text.length, a + rnd(8));
      assert.equal(
        finder.noneIn(text, a, b),
        noneInSlowly(chars, text, a, b),
        `${JSON.stringify(text)} [${a}, ${b})`,
      );
      at = b;
    }
  }
});

Deno.test("CharFinder: an empty range holds nothing; no characters to find means always none", () => {
  assert.equal(new CharFinder([","]).noneIn("a,b", 1, 1), true);
  assert.equal(new CharFinder([]).noneIn("a,b", 0, 3), true);
});
