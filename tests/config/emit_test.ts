import assert from "node:assert/strict";
import fc from "fast-check";
import {
  emitJson,
  emitNodeJson,
  emittedCanonically,
  fromNode,
  fromPlain,
  numberText,
  zigFloatText,
  zigJsonString,
} from "../../src/config/emit.ts";
import { type JsonNode, parseJson5 } from "../../src/config/json5.ts";

Deno.test("emit: numbers re-emit the way bxp's std.json does", () => {
  assert.equal(numberText("1.50", 1.5), "1.5e0");
  assert.equal(numberText("2.0", 2), "2e0");
  assert.equal(numberText("0.001", 0.001), "1e-3");
  assert.equal(numberText("100.5", 100.5), "1.005e2");
  assert.equal(numberText("1e3", 1000), "1e3");
  assert.equal(numberText("42", 42), "42");
  assert.equal(numberText("+7", 7), "7");
  assert.equal(numberText("-0", -0), "-0e0");
  assert.equal(numberText("0x1F", 31), "31");
  assert.equal(
    numberText("123456789012345678901234567890", 1.2345678901234568e29),
    "123456789012345678901234567890",
  );
  assert.equal(zigFloatText(-3.25), "-3.25e0");
});

Deno.test("emit: strings escape only quote, backslash and control characters", () => {
  assert.equal(zigJsonString('a"b\\c\n\t\u0001/é\u2028'), '"a\\"b\\\\c\\n\\t\\u0001/é\u2028"');
  // Lone surrogates stay as they are (std.json copies the bytes; JSON.stringify would escape them).
  assert.equal(zigJsonString('\ud800"\udc00'), '"\ud800\\"\udc00"');
  assert.equal(zigJsonString("\ud83d\ude00\u007f\u0000"), '"\ud83d\ude00\u007f\\u0000"');
});

Deno.test("emit: zigJsonString matches a character-by-character std.json escaper on any text", () => {
  const short: Record<number, string> = {
    8: "\\b",
    9: "\\t",
    10: "\\n",
    12: "\\f",
    13: "\\r",
    34: '\\"',
    92: "\\\\",
  };
  const reference = (text: string) => {
    let out = '"';
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      out += short[c] ?? (c < 0x20 ? "\\u" + c.toString(16).padStart(4, "0") : text[i]);
    }
    return out + '"';
  };
  fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => zigJsonString(text) === reference(text)));
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 0xffff })),
      (units) => {
        const text = String.fromCharCode(...units);
        return zigJsonString(text) === reference(text);
      },
    ),
  );
});

Deno.test("emit: minified and two-space layouts", () => {
  const v = fromPlain({ a: [1, "x", { b: null }], c: {}, d: [] });
  assert.equal(emitJson(v, 0), '{"a":[1,"x",{"b":null}],"c":{},"d":[]}');
  assert.equal(
    emitJson(v, 2),
    '{\n  "a": [\n    1,\n    "x",\n    {\n      "b": null\n    }\n  ],\n  "c": {},\n  "d": []\n}',
  );
});

Deno.test("emit: a parsed JSON5 node keeps key order and JSON5-only syntax disappears", () => {
  const node = parseJson5("{ z: 'q', a: [.5, true], // c\n m: 1.50 }").value as JsonNode;
  assert.equal(emitJson(fromNode(node), 0), '{"z":"q","a":[5e-1,true],"m":1.5e0}');
});

Deno.test("emit: both layouts match JSON.stringify on integers, well-formed strings and nesting", () => {
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.string({
        unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
        maxLength: 12,
      }),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(fc.string({ maxLength: 6 }), tie("value"), { maxKeys: 4 }),
    ),
  }));
  fc.assert(
    fc.property(value, (v) => {
      assert.equal(emitJson(fromPlain(v), 0), JSON.stringify(v));
      assert.equal(emitJson(fromPlain(v), 2), JSON.stringify(v, null, 2));
    }),
    { seed: 0x6b7870, numRuns: 2000 },
  );
});

Deno.test("emit: a node emitted directly reads exactly as through the output tree", () => {
  const texts = [
    Deno.readTextFileSync(new URL("../../samples/demo/bxp-cli.json", import.meta.url)),
    "{ a: [0x1F, -0, +1, .5, 1e400, -Infinity, NaN, 123456789012345678901234567890], b: {}, c: [], d: null }",
    "[true, false, 'q\"\\\\\\u0001\u2028', { '': { '': [] } }]",
    // Raw characters JSON escapes, in strings the parser does not mark plain.
    "{ a: 'say \"hi\"', b: 'tab\there', c: 'ctl\u0001x', d: \"\u00e9\ud83d\ude00\", e: 'back\\\\slash' }",
  ];
  for (const text of texts) {
    const node = parseJson5(text).value as JsonNode;
    assert.equal(emitNodeJson(node), emitJson(fromNode(node), 0), text);
  }
  fc.assert(
    fc.property(fc.json({ maxDepth: 5 }), (text) => {
      const node = parseJson5(text).value as JsonNode;
      assert.equal(emitNodeJson(node), emitJson(fromNode(node), 0), text);
    }),
    { seed: 0x6b7870, numRuns: 1000 },
  );
});

Deno.test("emit: text judged canonical is exactly JSON.stringify of its parse, and the common config is", () => {
  const canonical = (text: string) => {
    const node = parseJson5(text).value as JsonNode;
    const json = emitNodeJson(node);
    const judged = emittedCanonically(node, json);
    if (judged) assert.equal(JSON.stringify(JSON.parse(json)), json, text);
    return judged;
  };
  assert.equal(
    canonical(Deno.readTextFileSync(new URL("../../samples/demo/bxp-cli.json", import.meta.url))),
    true,
  );
  assert.equal(canonical("{ a: [1, -2, 'x\\n\"'], b: { c: null, d: true } }"), true);
  assert.equal(canonical("{ a: 1, a: 2 }"), true, "the parser keeps the last of a repeated key");
  // Each of these prints differently through JSON.parse and JSON.stringify.
  for (
    const text of ["{ a: 1.50 }", "{ a: 12345678901234567890 }", "{ a: -0 }", "['\\ud800']"]
  ) {
    assert.equal(canonical(text), false, text);
  }
  fc.assert(
    fc.property(fc.json({ maxDepth: 5 }), (text) => {
      canonical(text);
    }),
    { seed: 0x6b7870, numRuns: 1000 },
  );
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
      // Integers and strings without lone surrogates: all canonical.
      const text = JSON.stringify(value);
      if (/[.eE]/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, ""))) return;
      assert.equal(canonical(text), true, text);
    }),
    { seed: 0x6b7870, numRuns: 1000 },
  );
});
