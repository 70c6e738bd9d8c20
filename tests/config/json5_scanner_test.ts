/**
 * The char-code JSON5 reader against the reader it replaced (`json5_reference.ts`, kept verbatim): on real
 * configs, every truncation of them, damaged configs, token soup, generated JSON5 and every BMP character
 * in each syntactic slot, both must return the same result: values, raw number text, each position
 * (byte offset, length, line, column), duplicate reports, and error code, message and place. The one thing
 * the reference does not give, a string's `plain` mark, is checked on its own: a value marked plain holds no
 * character JSON escapes.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { isJson5SpaceCode, type Json5Result, type JsonNode, parseJson5 } from "../../src/config/json5.ts";
import { CONFORMANCE_DIR } from "../_support/processes.ts";
import { fuzzParams, mutated, nastyText } from "../fuzz/_fuzz.ts";
import { parseJson5Reference } from "./json5_reference.ts";

const DEMO = Deno.readTextFileSync(new URL("../../samples/demo/bxp-cli.json", import.meta.url));

const seeds: string[] = [DEMO];
if (CONFORMANCE_DIR !== null) {
  const datasets = new URL("datasets/", CONFORMANCE_DIR);
  for (const entry of Deno.readDirSync(datasets)) {
    try {
      seeds.push(Deno.readTextFileSync(new URL(`${entry.name}/sample.json`, datasets)));
    } catch {
      // a dataset without a config
    }
  }
}
seeds.push(
  "{ a: 1, // note\n b: 'x', c: [1, 2,], d: +Infinity, e: 0x1F, f: .5, 'g': \"\\u00e9\", h: -0 }",
  "/* é\r\n */ { 'k\\\r\ney': \"a\\u2028b\u2028c\", $\\u0062: [ NaN, -.5e+3, 0XaF ], é: '😀\\😀' }\u2029",
  "{ a: { x: 1, y: 2, x: 3 }, '': { '': [ { b: 1, b: 2 } ] }, a: 0 }",
);

function same(text: string, maxBytes?: number): void {
  const fast: Json5Result = parseJson5(text, maxBytes);
  const reference: Json5Result = parseJson5Reference(text, maxBytes);
  if (fast.value !== null) takePlainMarks(fast.value, text);
  assert.deepStrictEqual(fast, reference, JSON.stringify(text.slice(0, 200)));
}

/** Checks every string's `plain` mark (sound: no character JSON escapes) and removes it, as the reference has none. */
function takePlainMarks(node: JsonNode, text: string): void {
  switch (node.kind) {
    case "object":
      for (const entry of node.entries) takePlainMarks(entry.value, text);
      return;
    case "array":
      for (const item of node.items) takePlainMarks(item, text);
      return;
    case "string": {
      assert.equal(typeof node.plain, "boolean", JSON.stringify(text.slice(0, 200)));
      const escaped = [...node.value].some((ch) => ch < " " || ch === '"' || ch === "\\");
      if (node.plain) assert.ok(!escaped, JSON.stringify(node.value));
      delete node.plain;
    }
  }
}

Deno.test("json5 scanner: real configs read exactly as the reference reads them", () => {
  for (const text of seeds) {
    same(text);
    assert.equal(parseJson5(text).error, null);
  }
});

Deno.test("json5 scanner: every truncation of the demo config fails at the same place", () => {
  for (let n = 0; n <= DEMO.length; n++) same(DEMO.slice(0, n));
});

Deno.test("json5 scanner: every truncation of a config full of escapes, comments and Unicode", () => {
  const tricky = seeds[seeds.length - 2];
  for (let n = 0; n <= tricky.length; n++) same(tricky.slice(0, n));
});

Deno.test("json5 scanner: each BMP character in each slot gives the reference's answer", () => {
  const slots = [
    (c: string) => `[${c}1]`,
    (c: string) => `{a${c}:'${c}'}`,
    (c: string) => `"\\${c}"`,
    (c: string) => `1${c}`,
    (c: string) => `${c}x`,
    (c: string) => `// ${c}\n/*${c}*/ 1`,
    (c: string) => `['${c}', x${c}1]`,
  ];
  for (let code = 0; code <= 0xffff; code++) {
    const c = String.fromCharCode(code);
    for (const slot of slots) same(slot(c));
  }
  for (let cp = 0x10000; cp <= 0x10ffff; cp += 251) {
    const c = String.fromCodePoint(cp);
    for (const slot of slots) same(slot(c));
  }
});

Deno.test("json5 scanner: white space is exactly the characters the regex-based test accepted", () => {
  const reference = (c: string) =>
    c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\v" || c === "\f" || c === "\u00a0" ||
    c === "\u2028" || c === "\u2029" || c === "\ufeff" || /\p{Zs}/u.test(c);
  for (let code = 0; code <= 0xffff; code++) {
    assert.equal(isJson5SpaceCode(code), reference(String.fromCharCode(code)), `U+${code.toString(16)}`);
  }
});

Deno.test("json5 scanner: damaged configs give the reference's answer", () => {
  fc.assert(fc.property(mutated(seeds), (text) => same(text)), fuzzParams(3000, 6));
});

Deno.test("json5 scanner: token soup gives the reference's answer", () => {
  fc.assert(fc.property(nastyText, (text) => same(text)), fuzzParams(5000, 4));
});

/** JSON5 texts with random spacing, comments, quoting and number spellings. */
const json5Text: fc.Arbitrary<string> = (() => {
  const space = fc.constantFrom(
    "",
    " ",
    "\n",
    "\r\n",
    "\t",
    "\u00a0",
    "\u2028",
    "// c\n",
    "/* c\n*/",
    "\ufeff",
  );
  const key = fc.oneof(
    fc.constantFrom("a", "$b", "_c1", "é", "\\u0061", "true", "x"),
    fc.string({ maxLength: 5 }).map((s) => JSON.stringify(s)),
    fc.string({ maxLength: 5 }).map((s) => `'${s.replace(/[\\'\n\r]/g, "")}'`),
  );
  const scalar = fc.oneof(
    fc.constantFrom(
      "null",
      "true",
      "false",
      "Infinity",
      "-Infinity",
      "NaN",
      "+1",
      ".5",
      "5.",
      "0x1F",
      "-0",
      "1e3",
    ),
    fc.double().map((n) => (Number.isFinite(n) ? String(n) : "0")),
    fc.integer().map(String),
    fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
    fc.string({ unit: "binary", maxLength: 8 }).map((s) => JSON.stringify(s)),
    fc.constantFrom("'a\\'b'", '"\\x41\\0\\v"', "'line\\\ncont'", '"\\😀"'),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, scalar, tie("array"), tie("object")),
    array: fc.tuple(fc.array(fc.tuple(space, tie("value"), space), { maxLength: 4 }), fc.boolean()).map(
      ([items, trailing]) => `[${items.map(([a, v, b]) => `${a}${v}${b}`).join(",")}${trailing ? "," : ""}]`,
    ),
    object: fc.tuple(fc.array(fc.tuple(space, key, space, tie("value")), { maxLength: 4 }), fc.boolean()).map(
      ([members, trailing]) =>
        `{${members.map(([a, k, b, v]) => `${a}${k}${b}:${v}`).join(",")}${trailing ? "," : ""}}`,
    ),
  }));
  return fc.tuple(space, value as fc.Arbitrary<string>, space).map(([a, v, b]) => `${a}${v}${b}`);
})();

Deno.test("json5 scanner: generated JSON5 and its truncations give the reference's answer", () => {
  fc.assert(
    fc.property(json5Text, fc.nat(), (text, cut) => {
      same(text);
      same(text.slice(0, cut % (text.length + 1)));
    }),
    fuzzParams(3000, 6),
  );
});

Deno.test("json5 scanner: the size cap counts UTF-8 bytes as before", () => {
  for (const text of ["é".repeat(40), "😀".repeat(20), "x".repeat(100), "\ud800".repeat(30), "a\udc00b"]) {
    for (const cap of [10, 50, 79, 80, 81, 120]) same(`"${text}"`, cap);
  }
});
