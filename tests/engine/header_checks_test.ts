import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/model.ts";
import { capDataFields, checkHeader, MAX_COLUMNS } from "../../src/engine/header_checks.ts";
import { planTemplate } from "../../src/engine/plan.ts";

const cfg = loadConfig(
  `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
    input_schema: {$a: "[amount] & [Amout]", $b: "[Date]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
    output_schema: {a: "$a", b: "$b"}}}}`,
  "c.json",
).config!;
const plan = planTemplate(cfg.templates[0], cfg.maps);

Deno.test("duplicate headers warn once with every column; the rightmost one is read", () => {
  const c = checkHeader(["id", "amount", "fee", "amount", "", ""], plan, "d.csv");
  assert.equal(c.columns.get("amount"), 3);
  assert.deepEqual(c.warnings, [
    "warning: 'd.csv' has a duplicate column header 'amount' at columns 2, 4; [amount] reads column 4 — use FIELDS(n) to read the others\n",
  ]);
});

Deno.test("a reference one edit away from a real column is reported as a typo", () => {
  const c = checkHeader(["amount", "Date"], plan, "d.csv");
  assert.deepEqual(c.typos, [
    "warning: unknown field 'Amout' referenced in input_schema of 'd.csv' — did you mean 'amount'?\n",
  ]);
  assert.deepEqual(checkHeader(["Amout", "amount", "Date"], plan, "d.csv").typos, []);
});

Deno.test("headers past the column ceiling are cut with a warning", () => {
  const wide = Array.from({ length: 16385 }, (_, i) => `c${i}`);
  const c = checkHeader(wide, plan, "w.csv");
  assert.equal(c.names.length, 16384);
  assert.match(c.warnings[0], /more than 16384 columns/);
});

Deno.test("capDataFields drops data fields past the column ceiling and leaves narrower rows alone", () => {
  const wide = Array.from({ length: MAX_COLUMNS + 2 }, (_, i) => `f${i}`);
  const capped = capDataFields(wide);
  assert.equal(capped, wide, "trimmed in place");
  assert.equal(capped.length, MAX_COLUMNS);
  assert.equal(capped[MAX_COLUMNS - 1], `f${MAX_COLUMNS - 1}`);
  const exact = new Array(MAX_COLUMNS).fill("x");
  assert.equal(capDataFields(exact).length, MAX_COLUMNS);
  assert.deepEqual(capDataFields(["a", "b"]), ["a", "b"]);
});
