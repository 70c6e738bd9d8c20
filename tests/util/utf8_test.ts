import assert from "node:assert/strict";
import fc from "fast-check";
import { utf8Length, utf8UnitBytes } from "../../src/util/utf8.ts";

const encoded = (text: string) => new TextEncoder().encode(text).length;

Deno.test("utf8Length: pairs count four bytes, a lone surrogate the three of U+FFFD", () => {
  for (
    const text of [
      "",
      "abc",
      "café",
      "€",
      "😀",
      "a😀b",
      "\ud800",
      "x\udc00y",
      "\ud800\ud800\udc00",
      "\udc00\ud800",
    ]
  ) {
    assert.equal(utf8Length(text), encoded(text), JSON.stringify(text));
  }
});

Deno.test("utf8Length equals the encoder's length on any string of UTF-16 units", () => {
  fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => utf8Length(text) === encoded(text)));
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 0xffff })),
      (units) => {
        const text = String.fromCharCode(...units);
        return utf8Length(text) === encoded(text);
      },
    ),
  );
});

Deno.test("utf8UnitBytes summed over a prefix is the prefix's encoded length", () => {
  const prefixSums = (text: string) => {
    let sum = 0;
    for (let i = 0; i < text.length; i++) {
      // A pair's high half carries all four bytes, so only prefixes that do not split a pair are compared.
      const splitsPair = i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800 &&
        (text.charCodeAt(i) & 0xfc00) === 0xdc00;
      if (!splitsPair && sum !== encoded(text.slice(0, i))) return false;
      sum += utf8UnitBytes(text, i);
    }
    return sum === encoded(text);
  };
  for (const text of ["", "a\u00e9\u20ac", "\ud83d\ude00", "\ud800", "\udc00\ud800", "\ud800\ud800\udc00x"]) {
    assert.ok(prefixSums(text), JSON.stringify(text));
  }
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 0xffff })),
      (units) => prefixSums(String.fromCharCode(...units)),
    ),
  );
});
