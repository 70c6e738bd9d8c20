/** The safe glob of `bxp_list_files`: `*`, `?`, `**`, everything else literal, hostile patterns refused. */
import assert from "node:assert/strict";
import { compileGlob, GlobError, matchComponent } from "../../../src/mcp/tools/glob.ts";

Deno.test("glob: * and ? stay within a name, ** spans folders (none included)", () => {
  const cases: [string, string, boolean][] = [
    ["*.csv", "a.csv", true],
    ["*.csv", "data/a.csv", false],
    ["**/*.csv", "a.csv", true],
    ["**/*.csv", "data/2024/a.csv", true],
    ["data/**", "data/a/b.csv", true],
    ["data/**/x.json", "data/x.json", true],
    ["data/**/x.json", "other/x.json", false],
    ["?.csv", "a.csv", true],
    ["?.csv", "ab.csv", false],
    ["a*b*c", "aXbYc", true],
    ["a*b*c", "aXbY", false],
    ["./configs/*.json5", "configs/a.json5", true],
    ["configs//*.json5", "configs/a.json5", true],
    ["**/**/*.csv", "a/b.csv", true],
  ];
  for (const [pattern, path, expected] of cases) {
    assert.equal(compileGlob(pattern)(path), expected, `${pattern} ~ ${path}`);
  }
});

Deno.test("glob: regular-expression syntax is literal text", () => {
  assert.equal(compileGlob("(a|b).csv")("(a|b).csv"), true);
  assert.equal(compileGlob("(a|b).csv")("a.csv"), false);
  assert.equal(compileGlob("[ab].csv")("a.csv"), false);
  assert.equal(compileGlob("a.csv")("abcsv"), false, "a dot is a dot");
  assert.equal(compileGlob("$^+{1}.csv")("$^+{1}.csv"), true);
});

Deno.test("glob: hostile patterns are refused, and matching stays linear", () => {
  for (const bad of ["", "../*.csv", "a/../../b", "/etc/*", "a\\b", "a\u0000b", "x".repeat(257)]) {
    assert.throws(() => compileGlob(bad), GlobError, JSON.stringify(bad));
  }
  // A pattern that makes a backtracking regex engine explode.
  const pattern = "*a".repeat(40) + "b";
  assert.equal(matchComponent(pattern, "a".repeat(5000)), false);
  const deep = compileGlob(Array(40).fill("**").join("/x/") + "/y");
  assert.equal(deep(Array(80).fill("x").join("/")), false);
});
