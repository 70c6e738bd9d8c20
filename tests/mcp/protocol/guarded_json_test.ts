import assert from "node:assert/strict";
import {
  exceedsJsonDepth,
  MAX_JSON_DEPTH,
  parseJsonFaithfully,
  parseJsonMessage,
} from "../../../src/mcp/protocol/guarded_json.ts";

Deno.test("depth scan counts arrays and objects but not brackets inside strings", () => {
  assert.equal(exceedsJsonDepth("[[[]]]", 3), false);
  assert.equal(exceedsJsonDepth("[[[]]]", 2), true);
  assert.equal(exceedsJsonDepth('{"a":{"b":[1]}}', 3), false);
  assert.equal(exceedsJsonDepth('{"a":{"b":[1]}}', 2), true);
  assert.equal(exceedsJsonDepth('{"s":"[[[[[[{{{{"}', 1), false);
  assert.equal(exceedsJsonDepth('{"s":"\\"[[[[["}', 1), false, "escaped quote does not end the string");
  assert.equal(exceedsJsonDepth('{"s":"\\\\"}', 1), false, "escaped backslash before the closing quote");
  assert.equal(exceedsJsonDepth('["\\\\",[[]]]', 2), true, "brackets after a string ending in \\\\ count");
});

Deno.test("deep nesting is refused before parsing, even far beyond what the stack could take", () => {
  const deep = "[".repeat(1_000_000) + "]".repeat(1_000_000);
  const parsed = parseJsonMessage(deep);
  assert.equal(parsed.ok, false);
  if (!parsed.ok) assert.equal(parsed.reason, "too_deep");
  const atLimit = "[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH);
  assert.equal(parseJsonMessage(atLimit).ok, true);
  assert.equal(parseJsonMessage("[" + atLimit + "]").ok, false);
});

Deno.test("syntax errors are reported, not thrown", () => {
  for (const bad of ["{ this is not json", "", "{", '{"a":1}}', "nul"]) {
    const parsed = parseJsonMessage(bad);
    assert.equal(parsed.ok, false, bad);
    if (!parsed.ok) assert.equal(parsed.reason, "syntax");
  }
});

Deno.test("__proto__ keys are dropped at every level", () => {
  const parsed = parseJsonMessage('{"a":1,"__proto__":{"polluted":true},"b":{"__proto__":{"x":1},"c":2}}');
  assert.ok(parsed.ok);
  const value = parsed.value as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(value), ["a", "b"]);
  assert.deepEqual(Object.keys(value.b), ["c"]);
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("the source text of big numeric ids and tokens is remembered", () => {
  const parsed = parseJsonMessage(
    '{"id":12345678901234567890,"params":{"_meta":{"progressToken":9007199254740993},"n":12345678901234567890}}',
  );
  assert.ok(parsed.ok);
  const root = parsed.value as Record<string, Record<string, Record<string, unknown>>>;
  assert.equal(parsed.rawNumber(root, "id"), "12345678901234567890");
  assert.equal(parsed.rawNumber(root.params._meta, "progressToken"), "9007199254740993");
  assert.equal(parsed.rawNumber(root.params, "n"), undefined, "only id-like keys are tracked");
  const small = parseJsonMessage('{"id":7}');
  assert.ok(small.ok);
  assert.equal(small.rawNumber(small.value as object, "id"), undefined);
});

Deno.test("faithful parsing keeps number digits for re-serialisation", () => {
  const text = '{"a":1.50,"b":12345678901234567890,"c":[1,2e3],"d":"x"}';
  assert.equal(
    JSON.stringify(parseJsonFaithfully(text)),
    '{"a":1.50,"b":12345678901234567890,"c":[1,2e3],"d":"x"}',
  );
  assert.equal(parseJsonFaithfully("{"), undefined);
  assert.equal(parseJsonFaithfully("[".repeat(5000) + "]".repeat(5000)), undefined);
});

Deno.test("the plain-parse fast path keeps every source digit and drops what the reviver drops", () => {
  // Each id is echoed from its source text when a double would print it differently; the fast path must
  // notice every such spelling (and any `__proto__` or `\u` escape) and fall back to the reviver.
  const cases: [string, string | undefined][] = [
    ['{"id":7,"method":"ping"}', undefined],
    ['{"id":1.0,"method":"ping"}', "1.0"],
    ['{"id":-0,"method":"ping"}', "-0"],
    ['{"id":1e2,"method":"ping"}', "1e2"],
    ['{"id" : 10E-1 ,"method":"ping"}', "10E-1"],
    ['{"method":"ping","id":9007199254740993}', "9007199254740993"],
    ['{"\\u0069d":1.0,"method":"ping"}', "1.0"],
    // The key scan must look past earlier hits: a value spelt "id", a key without a number, a nested id.
    ['{"method":"id","params":{"id":"x","_meta":{"id":5}},"id":2.50}', "2.50"],
    ['{"params":{"note":"\\"id\\": 1"},"id"\t\r\n:\n 3.0}', "3.0"],
    ['{"id":12,"params":{"id":"id"},"method":"ping"}', undefined],
  ];
  for (const [text, raw] of cases) {
    const parsed = parseJsonMessage(text);
    assert.ok(parsed.ok, text);
    assert.equal(parsed.rawNumber(parsed.value as object, "id"), raw, text);
  }
  const cancel = parseJsonMessage(
    '{"method":"notifications/cancelled","params":{"requestId":2.50,"_meta":{"progressToken":3.0}}}',
  );
  assert.ok(cancel.ok);
  const params = (cancel.value as { params: Record<string, object> }).params;
  assert.equal(cancel.rawNumber(params, "requestId"), "2.50");
  assert.equal(cancel.rawNumber(params._meta, "progressToken"), "3.0");
  const proto = parseJsonMessage('{"id":1,"params":{"__proto__":{"x":1},"y":2}}');
  assert.ok(proto.ok);
  assert.deepEqual(Object.keys((proto.value as { params: object }).params), ["y"]);
  // The walk finds `__proto__` inside arrays too, and an escape without a tracked number changes nothing.
  const inArray = parseJsonMessage(
    '{"id":"a","params":{"rows":[{"__proto__":{"x":1},"y":2}],"s":"\\u0041"}}',
  );
  assert.ok(inArray.ok);
  const params2 = (inArray.value as { params: { rows: object[]; s: string } }).params;
  assert.deepEqual(Object.keys(params2.rows[0]), ["y"]);
  assert.equal(Object.getPrototypeOf(params2.rows[0]), Object.prototype);
  assert.equal(params2.s, "A");
  // A tracked key inside a string value is a false hit: it only costs the fast path, never correctness.
  const inString = parseJsonMessage('{"id":3,"params":{"text":"\\"id\\":1.0"}}');
  assert.ok(inString.ok);
  assert.equal(inString.rawNumber(inString.value as object, "id"), undefined);
});
