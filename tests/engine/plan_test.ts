import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/model.ts";
import { planSources, planTemplate } from "../../src/engine/plan.ts";

const CONFIG = `{maps: {m: {a: "1"}}, conversion_templates: {t: {
  data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o", maps: {m: {a: "2"}, local: {x: "y"}},
  input_schema: { $a: "[A]", $b: "[B]", $date: "[D]" },
  row_rules: [
    { when: "[A] = 1", rows: [{ $a: "'x'", $action: "'1'" }, { $a: "'y'", $action: "'2'" }] },
    { when: "[A] = 2", rows: [{ $date: "'2024-01-01'", $action: "'3'" }] },
  ],
  output_schema: { a: "$a", b: "$b", act: "$action", d: "$date" },
}}}`;

Deno.test("a plan resolves slots, skip sets, maps and sources once", () => {
  const cfg = loadConfig(CONFIG, "c.json").config!;
  const plan = planTemplate(cfg.templates[0], cfg.maps);
  assert.deepEqual(plan.outputHeaders, ["a", "b", "act", "d"]);
  assert.deepEqual(plan.outputSlots.map((s) => plan.slotNames[s]), ["$a", "$b", "$action", "$date"]);
  assert.deepEqual(
    [...plan.rules[0].skip],
    ["$a"],
    "overridden by every row of the rule ($action is no input)",
  );
  assert.deepEqual([...plan.rules[1].skip], ["$date"]);
  assert.equal(plan.dateOverridden, true);
  assert.equal(plan.maps.get("m")!.get("a"), "2", "the template's map wins over the global one");
  assert.equal(plan.maps.get("local")!.get("x"), "y");
  const where = [...planSources(plan)].map(([w]) => w);
  assert.deepEqual(where.slice(0, 4), ["input_schema", "input_schema", "input_schema", "row_rules.when"]);
});
