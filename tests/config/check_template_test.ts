import assert from "node:assert/strict";
import { annotateConfig } from "../../src/inspect/annotate.ts";
import { outputOverwritesInput, unsafeSeparatorReason } from "../../src/config/check_template.ts";
import { bxpCliLine, loadConfig } from "../../src/config/model.ts";

type Json = Record<string, unknown>;

const config = (patternIn: string, patternOut: string, extra = "") =>
  `{ conversion_templates: { t1: { data_dir: ".", file_pattern_in: ${JSON.stringify(patternIn)}, ` +
  `file_pattern_out: ${JSON.stringify(patternOut)}, ${extra} input_schema: { $a: "[A]" }, ` +
  `output_schema: { a: "$a" } } } }`;

function errMarkers(json: string): { key: string; message: string; code: string }[] {
  const t = ((JSON.parse(json) as Json).conversion_templates as Json).t1 as Json;
  const own = Object.entries(t).filter(([k]) => k.startsWith("$err_"));
  const zip = (t.zip_input ?? {}) as Json;
  const nested = Object.entries(zip).filter(([k]) => k.startsWith("$err_"));
  return [...own, ...nested].map(([key, v]) => ({ key, ...(v as { message: string; code: string }) }));
}

Deno.test("an output pattern equal to the input pattern is refused at load, naming the template and both patterns", () => {
  const { config: loaded, diagnostics } = loadConfig(config(".csv", ".csv"), "c.json");
  assert.equal(loaded, null);
  const d = diagnostics.find((x) => x.code === "config.output_overwrites_input");
  assert.ok(d, JSON.stringify(diagnostics));
  assert.equal(d.path, "conversion_templates.t1.file_pattern_out");
  const line = bxpCliLine("c.json", d);
  assert.match(line, /^# c\.json: config error: template 't1': file_pattern_out '\.csv' names the same file/);
  assert.match(line, /file_pattern_in '\.csv'/);
});

Deno.test("the refusal is an annotated $err_ marker with its own code (bxp_validate and the write gate see it)", () => {
  const r = annotateConfig(config("_cash.csv", "_CASH.CSV"), "<config>");
  assert.equal(r.exitCode, 1);
  const errs = errMarkers(r.json);
  assert.equal(errs.length, 1, r.json);
  assert.equal(errs[0].code, "config.output_overwrites_input");
  assert.match(errs[0].message, /case-insensitive file system/);
});

Deno.test("a re-reading output suffix is not refused (the run's input scan skips it instead)", () => {
  assert.equal(outputOverwritesInput(".csv", ".clean.csv"), false);
  assert.equal(outputOverwritesInput(".csv", ".csvx"), false);
  assert.equal(outputOverwritesInput(".csv", ".CSV"), true);
  const { config: loaded } = loadConfig(config(".csv", ".clean.csv"), "c.json");
  assert.ok(loaded);
});

Deno.test("zip_input keep_path with a path separator that could climb is refused at validation", () => {
  for (const sep of ["\\", "/", "a/b", ":", "\0"]) {
    const text = config(
      ".csv",
      ".csvx",
      `zip_input: { dir_mode: "keep_path", path_separator: ${JSON.stringify(sep)} },`,
    );
    const r = annotateConfig(text, "<config>");
    assert.equal(r.exitCode, 1, sep);
    const errs = errMarkers(r.json);
    assert.equal(errs.length, 1, r.json);
    assert.equal(errs[0].code, "config.unsafe_path_separator");
  }
  // The default separator and basename mode stay accepted.
  assert.equal(unsafeSeparatorReason("_"), null);
  assert.equal(unsafeSeparatorReason("--"), null);
  const basename = config(".csv", ".csvx", `zip_input: { dir_mode: "basename", path_separator: "\\\\" },`);
  assert.equal(annotateConfig(basename, "<config>").exitCode, 0);
});
