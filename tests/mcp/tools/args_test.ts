import assert from "node:assert/strict";
import { batchRequest, rowArgs, stringArg } from "../../../src/mcp/tools/args.ts";

Deno.test("stringArg: a string, or null for absent, non-string and missing arguments", () => {
  assert.equal(stringArg({ expr: "x" }, "expr"), "x");
  assert.equal(stringArg({ expr: "" }, "expr"), "");
  assert.equal(stringArg({ expr: 5 }, "expr"), null);
  assert.equal(stringArg({}, "expr"), null);
  assert.equal(stringArg(null, "expr"), null);
});

Deno.test("rowArgs accepts native arrays and legacy JSON strings; null and absent mean no row", () => {
  assert.deepEqual(rowArgs({ headers: ["A"], fields: ["1"] }), { headers: ["A"], fields: ["1"] });
  assert.deepEqual(rowArgs({ headers: '["A"]', fields: '["1"]' }), { headers: ["A"], fields: ["1"] });
  assert.deepEqual(rowArgs({ headers: null }), { headers: null, fields: null });
  assert.deepEqual(rowArgs(null), { headers: null, fields: null });
});

Deno.test("rowArgs refuses other shapes by name, with bxp's texts", () => {
  assert.throws(() => rowArgs({ headers: [1] }), {
    message: `'headers' must be an array of strings, e.g. ["Date","Price"]`,
  });
  assert.throws(() => rowArgs({ fields: { a: 1 } }), {
    message: `'fields' must be an array of strings, e.g. ["Date","Price"]`,
  });
  assert.throws(() => rowArgs({ fields: "not json" }), {
    message: `'headers' and 'fields' must be arrays of strings, e.g. ["Date","Price"]`,
  });
});

Deno.test("batchRequest decodes legacy string rows and leaves everything else to the evaluator", () => {
  assert.deepEqual(batchRequest({ headers: '["P"]', fields: ["7"], exprs: ["[P]"] }), {
    headers: ["P"],
    fields: ["7"],
    exprs: ["[P]"],
  });
  assert.deepEqual(batchRequest({ headers: 3 }), { headers: 3 });
  assert.equal(batchRequest(null), null);
  assert.throws(() => batchRequest({ headers: "[" }), /must be arrays of strings/);
});
