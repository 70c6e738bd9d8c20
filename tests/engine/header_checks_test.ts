import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/model.ts";
import { checkHeader } from "../../src/engine/header_checks.ts";
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
