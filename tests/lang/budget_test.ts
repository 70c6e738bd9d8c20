import assert from "node:assert/strict";
import {
  compileExpression,
  emptyContext,
  type EvalContext,
  ExprError,
  lastEvaluationWork,
  MAX_EVAL_WORK,
  MAX_VALUE_CHARS,
  spendLimitHit,
  withinSpendLimit,
} from "../../src/lang/mod.ts";

function row(values: Record<string, string>): EvalContext {
  const names = Object.keys(values);
  return { ...emptyContext(), columns: new Map(names.map((n, i) => [n, i])), fields: Object.values(values) };
}

function failure(src: string, ctx: EvalContext = emptyContext()): ExprError {
  try {
    compileExpression(src).evaluate(ctx);
  } catch (e) {
    if (e instanceof ExprError) return e;
    throw e;
  }
  throw new Error(`${src} evaluated`);
}

Deno.test("budget: what a real record needs is untouched", () => {
  // Two 5 MiB columns (a 10 MiB record, the reader's cap) joined, escaped, upper-cased.
  const a = 'a"b'.repeat(1_750_000);
  const ctx = row({ A: a, B: "x".repeat(5_000_000) });
  assert.equal(compileExpression("LEN([A] & [B])").evaluate(ctx), String(a.length + 5_000_000));
  assert.equal(
    compileExpression("LEN(REPLACE([A], '\"', '\"\"'))").evaluate(ctx),
    String(a.length + 1_750_000),
  );
  assert.equal(compileExpression("LEN(UPPER([B]))").evaluate(ctx), "5000000");
  // A 13-entry map over a 1 MB description.
  const map = new Map(Array.from({ length: 13 }, (_, i) => [`k${i}`, `v${i}`]));
  const desc = { ...row({ D: "k1 k2 ".repeat(170_000) }), maps: new Map([["m", map]]) };
  assert.equal(compileExpression("LEN(REPLACE([D], 'm'))").evaluate(desc), String(6 * 170_000));
  // The account is per evaluation: the same expression runs for any number of records.
  const e = compileExpression("[B] & [B] & [B]");
  for (let i = 0; i < 20; i++) assert.equal(e.evaluate(ctx).length, 15_000_000);
  // What one evaluation spent: three 5 M reads and the 15 M it built.
  assert.equal(lastEvaluationWork(), 30_000_000);
});

Deno.test("budget: a value past 32 Mi characters is ResultTooLarge, pinned to what built it", () => {
  const ctx = row({ A: "y".repeat(9_000_000) });
  const cat = failure("[A] & [A] & [A] & [A]", ctx);
  assert.deepEqual([cat.error, cat.off, cat.len], ["ResultTooLarge", 0, 21]);
  assert.match(
    cat.detail,
    /^'&' would build a text of 36000000 characters; one value may hold at most 33554432/,
  );
  const grow = failure("LEN(REPLACE([A], 'y', 'yyyy'))", ctx);
  assert.deepEqual([grow.error, grow.off, grow.len], ["ResultTooLarge", 4, 25]);
  assert.equal(MAX_VALUE_CHARS, 32 * 1024 * 1024);
});

Deno.test("budget: work past 128 Mi units is WorkLimitExceeded; IFERROR does not hide either error", () => {
  const ctx = row({ A: "1".repeat(20_000_000) });
  const reads = failure(Array(8).fill("LEN([A])").join(" + "), ctx);
  assert.equal(reads.error, "WorkLimitExceeded");
  assert.match(reads.detail, /over its budget of 134217728/);
  assert.equal(
    failure("IFERROR(" + Array(8).fill("LEN([A])").join(" + ") + ", 'x')", ctx).error,
    "WorkLimitExceeded",
  );
  assert.equal(
    failure("IFERROR(LPAD('', 65535, 'x') & [A] & [A], 'x')", row({ A: "z".repeat(17_000_000) })).error,
    "ResultTooLarge",
  );
  // An inline REPLACE with many pairs pays keys x length up front.
  const pairs = Array.from({ length: 200 }, (_, i) => `'q${i}', 'r'`).join(", ");
  assert.equal(
    failure(`REPLACE([A], ${pairs})`, row({ A: "x".repeat(1_000_000) })).error,
    "WorkLimitExceeded",
  );
  assert.equal(MAX_EVAL_WORK, 128 * 1024 * 1024);
});

Deno.test("budget: constant folding has one account per compilation and never fails the compile", () => {
  const R = (x: string) => `REPLACE(${x}, 'a', 'aaaaaaaaaa')`;
  // Nested failing folds would each re-run their subtree; the shared account keeps compiling cheap.
  let src = R(R(R("LPAD('', 65535, 'a')")));
  for (let i = 0; i < 40; i++) src = `IF(1 = 1, ${src}, '')`;
  const compiled = compileExpression(src); // does not throw: the error is the evaluation's
  assert.equal(failure(src).error, "ResultTooLarge");
  assert.throws(() => compiled.evaluate(emptyContext()), /ResultTooLarge/);
  // A fold that fits is still a constant.
  assert.equal(compileExpression(`LEN(${R(R("LPAD('', 65535, 'a')"))})`).evaluate(emptyContext()), "6553500");
});

Deno.test("budget: a spend limit bounds a whole job, across compilations, reads and folds", () => {
  const wide = row({ A: "x".repeat(40_000) });
  // Three evaluations of 40 Ki characters each: fine one by one, over a 100 000-unit job limit together.
  const job = () => {
    for (let i = 0; i < 3; i++) compileExpression("LEN([A])").evaluate(wide);
    return "done";
  };
  assert.deepEqual(withinSpendLimit(200_000, job), { value: "done", exceeded: false });
  const over = withinSpendLimit(100_000, () => {
    try {
      return job();
    } catch (e) {
      return e instanceof ExprError ? e.error : "other";
    }
  });
  assert.deepEqual(over, { value: "WorkLimitExceeded", exceeded: true });
  // A constant folded at compile time is charged too, and its failure (which folding swallows) still counts.
  const folded = withinSpendLimit(
    100_000,
    () => compileExpression("LPAD('', 65535, 'a') & LPAD('', 65535, 'b')"),
  );
  assert.equal(folded.exceeded, true);
  assert.equal(spendLimitHit(), false, "outside a spend limit nothing is reported");
});

Deno.test("budget: regular expressions and time zones are refused under a spend limit, free outside it", () => {
  for (const src of ["REGEX_MATCH('abc', 'b')", "TZ_OFFSET('2024-06-01 12:00:00', 'America/New_York')"]) {
    const bounded = withinSpendLimit(MAX_EVAL_WORK, () => {
      try {
        return compileExpression(src).evaluate(emptyContext());
      } catch (e) {
        return (e as ExprError).error;
      }
    });
    assert.equal(bounded.exceeded, true, src);
    assert.notEqual(compileExpression(src).evaluate(emptyContext()), "", `${src} outside`);
  }
  // Fixed offsets need no time-zone rules.
  const fixed = withinSpendLimit(MAX_EVAL_WORK, () => compileExpression("TZ_OFFSET('2024-06-01', '+02:00')"));
  assert.equal(fixed.exceeded, false);
});
