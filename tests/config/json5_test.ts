import assert from "node:assert/strict";
import {
  CONFIG_MAX_BYTES,
  getMember,
  type JsonNode,
  MAX_NESTING_DEPTH,
  parseJson5,
  toPlain,
  UNEXPECTED_CHARACTER,
} from "../../src/config/json5.ts";

function value(text: string): JsonNode {
  const r = parseJson5(text);
  assert.equal(r.error, null, `unexpected error ${JSON.stringify(r.error)}`);
  return r.value as JsonNode;
}

Deno.test("json5: a string is marked plain only when it holds no character JSON escapes", () => {
  const v = value(`{ a: "x y é", b: 'say "hi"', c: "tab\there", d: "no\\tab", e: 'it\\'s', f: "\u0001" }`);
  const marks = v.kind === "object"
    ? v.entries.map((e) => [e.key, e.value.kind === "string" ? e.value.plain : undefined])
    : [];
  // An escape may decode to anything, so a string holding one is never marked (e: \' is harmless).
  assert.deepEqual(marks, [["a", true], ["b", false], ["c", false], ["d", false], ["e", false], [
    "f",
    false,
  ]]);
});

Deno.test("json5: comments, unquoted keys, single quotes and trailing commas", () => {
  const v = value(`// head
  { a: 1, /* block */ 'b': 'it''s', "c": [1, 2,], $d_1: { e: null, }, }`.replace("it''s", "it\\'s"));
  assert.deepEqual(toPlain(v), { a: 1, b: "it's", c: [1, 2], $d_1: { e: null } });
});

Deno.test("json5: numbers (hex, signs, leading/trailing point, Infinity, NaN, exponent)", () => {
  const v = value("[0x1F, -0xa, +1, .5, 5., 1e3, -2.5E-2, Infinity, -Infinity, NaN]");
  const plain = toPlain(v) as number[];
  assert.deepEqual(plain.slice(0, 7), [31, -10, 1, 0.5, 5, 1000, -0.025]);
  assert.equal(plain[7], Infinity);
  assert.equal(plain[8], -Infinity);
  assert.ok(Number.isNaN(plain[9]));
  assert.equal(v.kind === "array" && v.items[3].kind === "number" ? v.items[3].raw : "", ".5");
});

Deno.test("json5: string escapes and line continuations", () => {
  const v = value(String.raw`["a\nb\t\x41\u00e9\'\"\\", 'x\
y', "\0"]`);
  assert.deepEqual(toPlain(v), ["a\nb\tAé'\"\\", "xy", "\0"]);
});

Deno.test("json5: positions are 1-based line/col with UTF-8 byte offsets", () => {
  const v = value('{\n  "é": "x",\n  key: [true]\n}');
  assert.equal(v.kind, "object");
  if (v.kind !== "object") return;
  const [first, second] = v.entries;
  assert.deepEqual(first.keyPos, { off: 4, len: 4, line: 2, col: 3 });
  assert.equal(first.value.pos.off, 10); // "é" is two bytes
  assert.equal(second.keyPos.line, 3);
  assert.equal(second.keyPos.col, 3);
  assert.equal(getMember(v, "key")?.kind, "array");
});

Deno.test("json5: duplicate keys keep the first position, take the last value, and are recorded", () => {
  const r = parseJson5("{ a: { x: 1, y: 2, x: 3 }, a2: 0, a2: 1 }");
  assert.equal(r.error, null);
  assert.deepEqual(toPlain(r.value as JsonNode), { a: { x: 3, y: 2 }, a2: 1 });
  const inner = getMember(r.value as JsonNode, "a");
  assert.deepEqual(inner?.kind === "object" ? inner.entries.map((e) => e.key) : [], ["x", "y"]);
  assert.deepEqual(r.duplicates.map((d) => [d.path, d.key, d.pos.col]), [["a", "x", 20], ["", "a2", 35]]);
});

Deno.test("json5: syntax errors carry a line, a column and an actionable message", () => {
  const text = "{\n  conversion_templates: {\n    sample: {\n      data_dir: [1,,],\n    }\n  }\n}";
  const r = parseJson5(text);
  assert.equal(r.value, null);
  assert.equal(r.error?.code, "json5.parse_error");
  assert.equal(r.error?.message, UNEXPECTED_CHARACTER);
  assert.equal(r.error?.line, 4);
  assert.equal(r.error?.col, 20); // the second comma
  for (const bad of ["{ a: }", "{ a 1 }", "[1 2]", "{ a: tru }", "{ a: 01 }", "{ 'a': 'x\n' }", "{a:1}}"]) {
    assert.notEqual(parseJson5(bad).error, null, bad);
  }
  const unterminated = parseJson5('{ a: "open }');
  assert.match(unterminated.error?.message ?? "", /unterminated string/);
  const eof = parseJson5("{ a: [1, 2");
  assert.match(eof.error?.message ?? "", /unexpected end of input/);
});

Deno.test("json5: size cap and nesting cap become diagnostics, not crashes", () => {
  const big = parseJson5(`"${"x".repeat(CONFIG_MAX_BYTES)}"`);
  assert.equal(big.error?.code, "json5.too_large");
  assert.equal(parseJson5('"' + "x".repeat(100) + '"', 50).error?.code, "json5.too_large");
  const deep = parseJson5("[".repeat(100_000) + "]".repeat(100_000));
  assert.equal(deep.error?.code, "json5.too_deep");
  assert.match(deep.error?.message ?? "", new RegExp(String(MAX_NESTING_DEPTH)));
  const ok = parseJson5("[".repeat(MAX_NESTING_DEPTH) + "]".repeat(MAX_NESTING_DEPTH));
  assert.equal(ok.error, null);
});
