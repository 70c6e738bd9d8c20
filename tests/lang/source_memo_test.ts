import assert from "node:assert/strict";
import { memoBySource } from "../../src/lang/source_memo.ts";
import { ExprError } from "../../src/lang/errors.ts";
import { withinSpendLimit } from "../../src/lang/budget.ts";
import { compileExpression, emptyContext } from "../../src/lang/mod.ts";

Deno.test("memoBySource keeps answers by source, within its bounds", () => {
  const computed: string[] = [];
  const upper = memoBySource(
    (src) => {
      computed.push(src);
      if (src === "bad") throw new ExprError("UnexpectedChar", "bad", 0, 1);
      return src === "none" ? undefined : src.toUpperCase();
    },
    3,
    8,
  );
  assert.equal(upper("a"), "A");
  assert.equal(upper("a"), "A");
  assert.equal(upper("none"), undefined);
  assert.equal(upper("none"), undefined, "an undefined answer is kept too");
  assert.deepEqual(computed, ["a", "none"]);
  assert.throws(() => upper("bad"));
  assert.throws(() => upper("bad"));
  upper("too long a source");
  upper("too long a source");
  assert.deepEqual(computed, ["a", "none", "bad", "bad", "too long a source", "too long a source"]);
  upper("b"); // the third kept answer
  upper("c"); // full: the memo starts afresh with this one
  upper("a");
  assert.deepEqual(computed.slice(6), ["b", "c", "a"]);
});

Deno.test("memoBySource does not keep what was computed after a spend limit was hit", () => {
  let runs = 0;
  const value = memoBySource((src) => {
    runs++;
    try {
      return compileExpression(src).evaluate(emptyContext());
    } catch (e) {
      return (e as ExprError).error;
    }
  }, 16);
  const src = "LEN(LPAD('', 60000, 'a') & LPAD('', 60000, 'b'))";
  const bounded = withinSpendLimit(1000, () => value(src));
  assert.deepEqual(bounded, { value: "WorkLimitExceeded", exceeded: true });
  assert.equal(value(src), "120000", "the limit's error was not kept");
  assert.equal(value(src), "120000");
  assert.equal(runs, 2);
});
