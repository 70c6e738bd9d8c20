/** `AND(a, b)` and `OR(a, b)` say that they are infix operators, not "did you mean 'RAND'?". */

import assert from "node:assert/strict";
import { compileExpression, ExprError } from "../../src/lang/mod.ts";

for (const [src, op] of [["AND([a] = 1, [b] = 2)", "AND"], ["or(1, 2)", "OR"]] as const) {
  Deno.test(`${src} is refused with the infix form`, () => {
    assert.throws(() => compileExpression(src), (err: unknown) => {
      assert.ok(err instanceof ExprError);
      assert.equal(err.error, "UnknownFunction");
      assert.match(err.detail, new RegExp(`infix operator, not a function: write a ${op} b`));
      assert.doesNotMatch(err.detail, /RAND/);
      assert.equal(err.suggest, undefined);
      return true;
    });
  });
}

Deno.test("an unknown name near a function still gets its did-you-mean", () => {
  assert.throws(() => compileExpression("RAN(1)"), /did you mean 'RAND'/);
});
