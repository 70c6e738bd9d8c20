import assert from "node:assert/strict";
import {
  divDecimal,
  formatDecimal,
  INVALID,
  MAX_RAW,
  mulDecimal,
  OVERFLOW,
  parseDecimal,
  powDecimal,
  roundDecimal,
  sqrtDecimal,
  truncDecimal,
} from "../../src/lang/decimal.ts";
import { compileExpression, emptyContext, ExprError } from "../../src/lang/mod.ts";

const d = (s: string): bigint => {
  const v = parseDecimal(s);
  assert.equal(typeof v, "bigint", `parse ${s}`);
  return v as bigint;
};
const run = (src: string): string => compileExpression(src).evaluate(emptyContext());
const failure = (src: string): string => {
  try {
    run(src);
  } catch (e) {
    if (e instanceof ExprError) return e.error;
    throw e;
  }
  return "ok";
};

Deno.test("parse and format round trip, trailing zeros trimmed, no -0", () => {
  for (
    const [input, out] of [
      ["0", "0"],
      ["1000.00", "1000"],
      ["-3.0", "-3"],
      ["+42", "42"],
      ["0.0313646200", "0.03136462"],
      ["-0.0000000000004", "0"],
      ["-0", "0"],
      ["2.08e9", "2080000000"],
      ["1e-3", "0.001"],
      ["0.1234567890125", "0.123456789013"],
      ["-0.0000000000005", "-0.000000000001"],
    ]
  ) assert.equal(formatDecimal(d(input)), out, input);
});

Deno.test("parse rejects junk and reports out-of-range separately", () => {
  for (const bad of ["", "abc", "1,234.56", "1.2.3", "1e", "--1", "1 ", " 1", "."]) {
    assert.equal(parseDecimal(bad), INVALID, bad);
  }
  assert.equal(parseDecimal("1000000000000000000000000000000"), OVERFLOW);
  assert.equal(
    formatDecimal(d("170141183460469231731687303.715884105727")),
    "170141183460469231731687303.715884105727",
  );
  assert.equal(parseDecimal("170141183460469231731687303.715884105728"), OVERFLOW);
});

Deno.test("multiplication, division and ROUND round half away from zero", () => {
  assert.equal(run("ROUND(2.5, 0)"), "3");
  assert.equal(run("ROUND(-2.5, 0)"), "-3");
  assert.equal(run("ROUND(0.125, 2)"), "0.13");
  assert.equal(run("ROUND(1250, -2)"), "1300");
  assert.equal(run("ROUND(1.5, 12)"), "1.5");
  assert.equal(formatDecimal(mulDecimal(d("0.000001"), d("0.0000015")) as bigint), "0.000000000002");
  assert.equal(formatDecimal(roundDecimal(d("-1.2355"), 2)), "-1.24");
  assert.equal(run("1 / 3"), "0.333333333333");
  assert.equal(run("2 / 3"), "0.666666666667");
  assert.equal(run("-2 / 3"), "-0.666666666667");
});

Deno.test("exact addition and subtraction", () => {
  assert.equal(run("0.02 + 0.08"), "0.1");
  assert.equal(run("100 - 0.01"), "99.99");
  assert.equal(run("1 - 3"), "-2");
  assert.equal(run("0.1 + 0.2 - 0.3"), "0");
  assert.equal(run("1000.00 * 1"), "1000");
});

Deno.test("division by zero is empty, not an error", () => {
  assert.equal(run("1 / 0"), "");
  assert.equal(run("[Missing] / 0"), "");
  assert.equal(divDecimal(d("1"), 0n), null);
  // The empty result reads as 0 in the next operation, like bxp.
  assert.equal(run("1 / 0 * 5"), "0");
});

Deno.test("overflow and out-of-range literals are named errors", () => {
  assert.equal(failure("100000000000000 * 100000000000000"), "NumberOverflow");
  assert.equal(failure("1000000000000000000000000000000"), "NumberOutOfRange");
  assert.equal(failure("170141183460469231731687303 + 1"), "NumberOverflow");
  assert.equal(failure("1 / 0.000000000001 * 1000000000000000000"), "NumberOverflow");
  assert.equal(mulDecimal(MAX_RAW, d("2")), OVERFLOW);
  assert.equal(run("IFERROR(100000000000000 * 100000000000000, 'big')"), "big");
});

Deno.test("TRUNC, POWER and SQRT stay exact", () => {
  assert.equal(formatDecimal(truncDecimal(d("-3.999"), 2)), "-3.99");
  assert.equal(formatDecimal(truncDecimal(d("-1234.5"), -2)), "-1200");
  assert.equal(formatDecimal(powDecimal(d("1.05"), d("10")) as bigint), "1.628894626777");
  assert.equal(powDecimal(d("2"), d("0.5")), null);
  assert.equal(powDecimal(d("10"), d("30")), OVERFLOW);
  assert.equal(formatDecimal(sqrtDecimal(d("2"))!), "1.414213562373");
  assert.equal(formatDecimal(sqrtDecimal(d("6.25"))!), "2.5");
  assert.equal(formatDecimal(sqrtDecimal(d("100000000000000000000000"))!), "316227766016.837933199889");
  assert.equal(sqrtDecimal(d("-1")), null);
});

Deno.test("long chains keep 12-digit precision (no binary floating point)", () => {
  assert.equal(run("1003.6 / 12"), "83.633333333333");
  assert.equal(run("(1003.6 / 12) * 12"), "1003.599999999996");
  assert.equal(run("0.1 * 3"), "0.3");
});
