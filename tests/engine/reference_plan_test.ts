/**
 * The reference mode (`BXP_REFERENCE=1`) must not rest on the machinery it checks: its evaluator asks the
 * CSV parser for no lazy fields and copies nothing, whatever the plan's field reads say. The regression this
 * pins: the reference plan said "every field" by `readColumns: null`, which the lazy-field code turned into
 * a mask as wide as the header; with no header that mask was empty, and the reference emptied FIELDS(n)
 * exactly as the production path did, so the differential test saw no difference.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/model.ts";
import { newEvalContext } from "../../src/engine/context.ts";
import { checkHeader } from "../../src/engine/header_checks.ts";
import { planTemplate } from "../../src/engine/plan.ts";
import { RowEvaluator } from "../../src/engine/row_eval.ts";
import { createRowWriter } from "../../src/engine/row_writers.ts";
import { NULL_TRACE } from "../../src/engine/sinks.ts";

function evaluator(config: string, names: string[], reference: boolean): RowEvaluator {
  const loaded = loadConfig(config, "c.json");
  assert.ok(loaded.config, JSON.stringify(loaded.diagnostics));
  const t = loaded.config.templates[0];
  const plan = planTemplate(t, loaded.config.maps, { reference });
  const { columns } = checkHeader(names, plan, "s.csv");
  return new RowEvaluator(plan, newEvalContext(plan, columns, "s"), {
    out: createRowWriter(t, plan.outputHeaders),
    combined: null,
    trace: NULL_TRACE,
    debug: null,
  }, { dateMin: "", dateMax: "", columnNames: names });
}

const BARE = `{ conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
  input_schema: { $a: "[a]", $b: "UPPER([b])" }, row_rules: [{ when: "TRUE", rows: [{}] }],
  output_schema: { A: "$a", B: "$b" } } } }`;

Deno.test("reference plan: no lazy fields where the production plan decodes only what it reads", () => {
  // The production plan of the same template takes the lazy path (else this test would prove nothing).
  assert.notEqual(evaluator(BARE, ["a", "b", "c"], false).lazyFields, null);
  assert.equal(evaluator(BARE, ["a", "b", "c"], true).lazyFields, null);
});

const POSITIONAL =
  `{ conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
  csv_header_line: 0, input_schema: { $a: "FIELDS(1)", $b: "FIELDS(2)" }, row_rules: [{ when: "TRUE", rows: [{}] }],
  output_schema: { A: "$a", B: "$b" } } } }`;

Deno.test("reference plan: no lazy fields with no header at all (FIELDS(n) reads every field)", () => {
  assert.equal(evaluator(POSITIONAL, [], true).lazyFields, null);
});
