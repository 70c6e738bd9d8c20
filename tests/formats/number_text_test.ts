import assert from "node:assert/strict";
import { expandScientific, jsonNumberText, xlsxNumberText } from "../../src/formats/number_text.ts";

Deno.test("JSON number literals become bxp's field text", () => {
  const cases: [string, string][] = [
    ["10", "10"],
    ["-7", "-7"],
    ["123456789012345678901234567890", "123456789012345678901234567890"],
    ["415.20", "415.2"],
    ["178.0", "178"],
    ["40.718807220458984", "40.718807220458984"],
    ["0.0", "0"],
    ["1e3", "1000"],
    ["1.5E2", "150"],
    ["1.5e-3", "0.0015"],
    ["1.23456789012345678e5", "123456.789012345678"],
    ["-2.5E+1", "-25"],
    ["1e40", "1e40"],
    ["-0", "-"],
  ];
  for (const [input, want] of cases) assert.equal(jsonNumberText(input), want, input);
});

Deno.test("xlsx numeric cells become bxp's field text", () => {
  const cases: [string, string][] = [
    ["1.0000", "1"],
    ["518.740000", "518.74"],
    ["42", "42"],
    ["1.5", "1.5"],
    ["1E5", "100000"],
    ["2.087960758E9", "2087960758"],
    ["1.5E-3", "0.0015"],
    ["1e20", "100000000000000000000"],
    ["1e40", "1e40"],
    ["-0", "-0"],
    ["100", "100"],
  ];
  for (const [input, want] of cases) assert.equal(xlsxNumberText(input), want, input);
});

Deno.test("exponent expansion rounds half away from zero at 12 fractional digits", () => {
  assert.equal(expandScientific("1.5e-12"), "0.000000000002");
  assert.equal(expandScientific("-1.5e-12"), "-0.000000000002");
  assert.equal(expandScientific("1.4e-12"), "0.000000000001");
  assert.equal(expandScientific("4e-13"), "0");
  assert.equal(expandScientific("-4e-13"), "0");
  assert.equal(expandScientific("1.7e26"), "170000000000000000000000000");
  assert.equal(expandScientific("1.8e26"), null, "past the fixed-point range");
  assert.equal(expandScientific("abc"), null);
});
