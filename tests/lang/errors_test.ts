/**
 * An expression error is an `Error` to every consumer (instanceof, message, String, a catch that reads
 * `message`) but is built without the runtime's Error constructor: that cost 4-7 µs per error here, and a
 * column failing on every row made a conversion four times slower. Evaluation must still report it the
 * same way.
 */

import assert from "node:assert/strict";
import { compileExpression, emptyContext, ExprError } from "../../src/lang/mod.ts";

Deno.test("an ExprError is an Error with bxp's name, detail and span, and no stack trace", () => {
  const e = new ExprError("NotANumber", 'not a number: "abc"', 3, 5);
  assert.ok(e instanceof ExprError);
  assert.ok(e instanceof Error);
  assert.equal(e.name, "ExprError");
  assert.equal(e.message, 'NotANumber: not a number: "abc"');
  assert.equal(String(e), 'ExprError: NotANumber: not a number: "abc"');
  assert.deepEqual(e.toJSON(), {
    ok: false,
    error: "NotANumber",
    detail: 'not a number: "abc"',
    off: 3,
    len: 5,
  });
  assert.equal(e.isDataError, true);
  // Nothing was captured: the runtime's Error constructor never ran.
  assert.equal(e.stack, undefined);
  assert.throws(() => {
    throw e;
  }, /NotANumber/);
  assert.throws(() => {
    throw e;
  }, ExprError);
});

Deno.test("an error raised while evaluating a row is still pinned to its column, message included", () => {
  const ctx = { ...emptyContext(), columns: new Map([["Qty", 0]]), fields: ["abc"] };
  let caught: unknown;
  try {
    compileExpression("[Qty] * 2").evaluate(ctx);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof ExprError);
  assert.equal(caught.error, "NotANumber");
  assert.deepEqual([caught.off, caught.len], [0, 5]);
  assert.match(caught.message, /^NotANumber: not a number: "abc" \(in \[Qty\]\)$/);
  assert.equal(caught.stack, undefined);
});
