/** DATE_TRUNC cuts a date (or timestamp) to the first day of its year, quarter, month, ISO week or day. */

import assert from "node:assert/strict";
import { compileExpression, compileExpressionGeneral, emptyContext } from "../../../src/lang/mod.ts";

const CASES: [string, string][] = [
  ["DATE_TRUNC('2024-08-14', 'year')", "2024-01-01"],
  ["DATE_TRUNC('2024-08-14', 'quarter')", "2024-07-01"],
  ["DATE_TRUNC('2024-12-31', 'Quarter')", "2024-10-01"],
  ["DATE_TRUNC('2024-03-31', 'quarter')", "2024-01-01"],
  ["DATE_TRUNC('2024-02-29 17:45:00', 'month')", "2024-02-01"],
  ["DATE_TRUNC('2024-02-29 17:45:00', 'day')", "2024-02-29"],
  // 2024-01-01 is a Monday; a Sunday belongs to the week that began six days before.
  ["DATE_TRUNC('2024-01-07', 'week')", "2024-01-01"],
  ["DATE_TRUNC('2024-01-01', 'week')", "2024-01-01"],
  ["DATE_TRUNC('2023-01-01', 'week')", "2022-12-26"],
  ["DATE_TRUNC('', 'month')", ""],
];

for (const [src, expected] of CASES) {
  Deno.test(`${src} = ${expected}`, () => {
    assert.equal(compileExpression(src).evaluate(emptyContext()), expected);
    assert.equal(compileExpressionGeneral(src).evaluate(emptyContext()), expected);
  });
}

Deno.test("DATE_TRUNC refuses an unknown unit and an invalid date, naming them", () => {
  assert.throws(
    () => compileExpression("DATE_TRUNC('2024-01-01', 'fortnight')").evaluate(emptyContext()),
    /fortnight/,
  );
  assert.throws(
    () => compileExpression("DATE_TRUNC('2024-13-01', 'month')").evaluate(emptyContext()),
    /InvalidDate|invalid date/,
  );
});
