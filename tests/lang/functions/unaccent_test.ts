import assert from "node:assert/strict";
import { compileExpression, emptyContext } from "../../../src/lang/mod.ts";
import { isCombiningMark, unaccent } from "../../../src/lang/functions/unaccent.ts";

const run = (src: string) => compileExpression(src).evaluate(emptyContext());

Deno.test("UNACCENT: bxp's hand-list of Latin letters without a decomposition", () => {
  assert.equal(run("UNACCENT('æther œuvre')"), "aether oeuvre");
  assert.equal(run("UNACCENT('Þór')"), "THor");
  assert.equal(run("UNACCENT('straße STRAẞE')"), "strasse STRASSE");
  assert.equal(run("UNACCENT('Øresund Łódź')"), "Oresund Lodz");
  assert.equal(unaccent("ÆŒĐÐĦıİŋŊðħ"), "AEOEDDHiInNdh");
  // Letters bxp does not list stay as they are (ŧ has no decomposition and is not on the list).
  assert.equal(unaccent("ŧŦ"), "ŧŦ");
  // A decomposition that yields a listed letter folds it too (ǽ = æ + acute).
  assert.equal(unaccent("ǽǿ"), "aeo");
});

Deno.test("UNACCENT: canonical decomposition, every combining mark dropped, no recomposition", () => {
  assert.equal(run("UNACCENT('Žluťoučký kůň')"), "Zlutoucky kun");
  assert.equal(unaccent("À É Î Ô Û Å"), "A E I O U A");
  // Marks outside U+0300..U+036F go too (Cyrillic titlo U+0483, Hebrew points, Arabic harakat).
  assert.equal(unaccent("e\u0301\u0483x"), "ex");
  assert.equal(unaccent("שָׁלוֹם"), "שלום");
  assert.equal(unaccent("مَرْحَبًا"), "مرحبا");
  // Other scripts keep their base letters; no romanisation, no compatibility folding.
  assert.equal(unaccent("Ά"), "Α");
  assert.equal(unaccent("日本語 한국어 ﬁ"), "日本語 한국어 ﬁ");
  assert.equal(unaccent("AAPL 123"), "AAPL 123");
  assert.ok(isCombiningMark(0x0301) && isCombiningMark(0x05b8) && isCombiningMark(0x1e4ec));
  assert.ok(!isCombiningMark(0x0041) && !isCombiningMark(0x0e31) && !isCombiningMark(0x034f));
});
