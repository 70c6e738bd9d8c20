import assert from "node:assert/strict";
import fc from "fast-check";
import { utf8Length } from "../../src/util/utf8.ts";

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
