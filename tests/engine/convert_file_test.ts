import assert from "node:assert/strict";
import { inputStem, isPlainFileName, outputName } from "../../src/engine/convert_file.ts";

Deno.test("output names replace the input suffix, as bxp derives them", () => {
  assert.equal(outputName("export_3.csv", "_3.csv", "_3.csvx"), "export_3.csvx");
  assert.equal(outputName("a.csv", ".csv", ".csvx"), "a.csvx");
  assert.equal(outputName("a.csv", ".csv", ""), "a.csvx", "no file_pattern_out: append x");
  assert.equal(inputStem("statement_2024.csv", ".csv"), "statement_2024");
  assert.equal(inputStem(".csv", ".csv"), ".csv", "a name no longer than the suffix is its own stem");
});

Deno.test("only plain names are written", () => {
  for (const ok of ["a.csvx", "1-t-combined.csvx", "..x"]) assert.ok(isPlainFileName(ok), ok);
  for (const bad of ["", ".", "..", "a/b", "a\\b", "/../x", "a\0b"]) assert.ok(!isPlainFileName(bad), bad);
});
