import assert from "node:assert/strict";
import { dateConvertInput, mergeTally, newTally } from "../../src/engine/tally.ts";
import { selectInputs } from "../../src/engine/convert_template.ts";
import type { TemplateConfig } from "../../src/config/model.ts";

Deno.test("only a whole-expression DATE_CONVERT is watched, and its input argument is found", () => {
  assert.equal(dateConvertInput("DATE_CONVERT([Date], 'DD.MM.YYYY', 'YYYY-MM-DD')"), "[Date]");
  assert.equal(
    dateConvertInput("  date_convert(TRIM([Dätum]), 'DD.MM.YYYY', 'YYYY-MM-DD') "),
    "TRIM([Dätum])",
  );
  assert.equal(dateConvertInput("IF([x], DATE_CONVERT([d], 'DD.MM.YYYY', 'YYYY-MM-DD'), '')"), null);
  assert.equal(dateConvertInput("DATE_CONVERT([d], 'DD.MM.YYYY', 'YYYY-MM-DD') & 'x'"), null);
  assert.equal(dateConvertInput("DATE_CONVERT('2024-01-01', 'YYYY-MM-DD', 'DD.MM.YYYY')"), null);
  assert.equal(dateConvertInput("DATE_CONVERT("), null);
});

Deno.test("tallies merge in block order: counts add, the first unquoted value and sample win", () => {
  const a = newTally(1);
  const b = newTally(1);
  a.noRuleMatch = 1;
  b.noRuleMatch = 2;
  b.dateFilter = 3;
  b.filled.push(1);
  b.unquoted = { column: 1, record: 9 };
  b.dates[0] = { converted: 0, emptied: 4, sample: "x" };
  mergeTally(a, b);
  assert.equal(a.noRuleMatch, 3);
  assert.equal(a.dateFilter, 3);
  assert.deepEqual(a.filled, [1]);
  assert.deepEqual(a.unquoted, { column: 1, record: 9 });
  const c = newTally(1);
  c.unquoted = { column: 0, record: 20 };
  c.dates[0] = { converted: 1, emptied: 0, sample: "" };
  mergeTally(a, c);
  assert.deepEqual(a.unquoted, { column: 1, record: 9 });
  assert.deepEqual(a.dates[0], { converted: 1, emptied: 4, sample: "x" });
  const d = newTally(1);
  d.filled.push(0, 1); // another evaluator saw column 1 filled too
  mergeTally(a, d);
  assert.deepEqual(a.filled, [1, 0], "each column once, in the order first seen");
});

const template = (patternIn: string, patternOut: string, combined = false) =>
  ({
    id: "t",
    filePatternIn: patternIn,
    filePatternOut: patternOut,
    combinedOutput: combined,
  }) as TemplateConfig;

Deno.test("the input scan leaves out the template's own outputs, never another template's", () => {
  assert.deepEqual(
    selectInputs(template(".csv", ".clean.csv", true), [
      "b.csv",
      "a.clean.csv",
      "a.csv",
      "a.clean.clean.csv",
      "1-t-combined.clean.csv",
      "1-other-combined.csv",
      "notes.txt",
    ]),
    {
      inputs: ["1-other-combined.csv", "a.csv", "b.csv"],
      ownOutputs: ["1-t-combined.clean.csv", "a.clean.clean.csv", "a.clean.csv"],
    },
  );
  // Named like an output: skipped even when its source is gone (it would become x.clean.clean.csv).
  assert.deepEqual(selectInputs(template(".csv", ".clean.csv"), ["x.clean.csv"]), {
    inputs: [],
    ownOutputs: ["x.clean.csv"],
  });
  // Outputs that do not match the input pattern change nothing.
  assert.deepEqual(selectInputs(template(".csv", ".csvx"), ["a.csv", "a.csvx"]).inputs, ["a.csv"]);
});
