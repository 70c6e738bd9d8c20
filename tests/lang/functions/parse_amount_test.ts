/**
 * PARSE_AMOUNT reads the money texts of real exports, and refuses, loudly, every text it would have to guess
 * at: the fast and the general compile agree on each.
 */

import assert from "node:assert/strict";
import {
  compileExpression,
  compileExpressionGeneral,
  emptyContext,
  ExprError,
} from "../../../src/lang/mod.ts";

const READS: [string, string][] = [
  ["PARSE_AMOUNT('1250.65')", "1250.65"],
  ["PARSE_AMOUNT('$1,250.65')", "1250.65"],
  ["PARSE_AMOUNT('-$1,250.65')", "-1250.65"],
  ["PARSE_AMOUNT('$-1250.65')", "-1250.65"],
  ["PARSE_AMOUNT('(1,250.65)')", "-1250.65"],
  ["PARSE_AMOUNT('($1,250.65)')", "-1250.65"],
  ["PARSE_AMOUNT('1.250,65-', ',')", "-1250.65"],
  ["PARSE_AMOUNT('1 234,50 €', ',')", "1234.5"],
  ["PARSE_AMOUNT('-12,5 EUR', ',')", "-12.5"],
  ["PARSE_AMOUNT('USD 1,000')", "1000"],
  ["PARSE_AMOUNT('+7')", "7"],
  ["PARSE_AMOUNT('-0.00')", "0"],
  ["PARSE_AMOUNT('')", ""],
  ["PARSE_AMOUNT('  ')", ""],
];

for (const [src, expected] of READS) {
  Deno.test(`${src} = ${expected}`, () => {
    assert.equal(compileExpression(src).evaluate(emptyContext()), expected);
    assert.equal(compileExpressionGeneral(src).evaluate(emptyContext()), expected);
  });
}

const REFUSED = [
  "PARSE_AMOUNT('12.50 fee')",
  "PARSE_AMOUNT('1,25')", // ',' is a group separator with '.' decimals: groups of three only
  "PARSE_AMOUNT('1.250,65')", // the decimal comma needs decimal_separator ','
  "PARSE_AMOUNT('(-12)')",
  "PARSE_AMOUNT('-12-')",
  "PARSE_AMOUNT('12..5')",
  "PARSE_AMOUNT('abc')",
];

for (const src of REFUSED) {
  Deno.test(`${src} is NotANumber, not a guess`, () => {
    for (const compile of [compileExpression, compileExpressionGeneral]) {
      assert.throws(() => compile(src).evaluate(emptyContext()), (err: unknown) => {
        assert.ok(err instanceof ExprError);
        assert.equal(err.error, "NotANumber");
        return true;
      });
    }
  });
}

Deno.test("PARSE_AMOUNT reads a field: a Swiss apostrophe group and a trailing code", () => {
  const ctx = { ...emptyContext(), columns: new Map([["v", 0]]), fields: ["1'234.50 CHF"] };
  assert.equal(compileExpression("PARSE_AMOUNT([v])").evaluate(ctx), "1234.5");
});

Deno.test("PARSE_AMOUNT's refusal is a data error IFERROR catches", () => {
  assert.equal(compileExpression("IFERROR(PARSE_AMOUNT('n/a'), 0)").evaluate(emptyContext()), "0");
});

Deno.test("PARSE_AMOUNT refuses a decimal separator other than . and ,", () => {
  assert.throws(
    () => compileExpression("PARSE_AMOUNT('1', ';')").evaluate(emptyContext()),
    /decimal_separator/,
  );
});
