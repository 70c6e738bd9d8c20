/**
 * The playground's core (what its Web Worker runs) in Deno: every conformance case with CSV or JSON input
 * gives bxp's golden bytes from the in-memory file system, and the input table's outcomes add up.
 */

import assert from "node:assert/strict";
import { PlaygroundCore } from "../../web/core.ts";
import { CONFORMANCE_DIR } from "../_support/conformance.ts";
import { goldenOutput, readCases } from "./_support/cases.ts";

Deno.test({
  name: "playground core: every CSV/JSON conformance case is byte-identical in memory",
  ignore: CONFORMANCE_DIR === null,
  async fn(t) {
    for (const c of readCases(CONFORMANCE_DIR!)) {
      await t.step(c.dir, async () => {
        const core = new PlaygroundCore();
        const result = await core.run(c.configText, c.files, 100);
        assert.notEqual(result.exitCode, 1, JSON.stringify(result.log));
        for (const golden of c.expected) {
          const out = goldenOutput(
            golden.name,
            result.outputs.map((o) => o.name),
            c.files.map((f) => f.name),
          );
          assert.ok(out, `${c.dir}: no output for ${golden.name} in ${result.outputs.map((o) => o.name)}`);
          const bytes = result.outputs.find((o) => o.name === out)!.bytes;
          assert.deepEqual(bytes, golden.bytes, `${c.dir}/${out}`);
        }
      });
    }
  },
});

Deno.test("playground core: the demo's input table, outcomes and an explanation", async () => {
  const demo = new URL("../../samples/demo/", import.meta.url);
  const name = "statement_2024-01-01_2024-12-31.csv";
  const core = new PlaygroundCore();
  const result = await core.run(
    Deno.readTextFileSync(new URL("bxp-cli.json", demo)),
    [{ name, bytes: Deno.readFileSync(new URL(`data/${name}`, demo)) }],
    5,
  );
  assert.equal(result.exitCode, 0, JSON.stringify(result.log));
  assert.deepEqual(result.outputs.map((o) => o.path), ["data/statement_2024-01-01_2024-12-31.tracker.csv"]);
  assert.deepEqual(
    result.outputs[0].bytes,
    Deno.readFileSync(new URL("expected/statement_2024-01-01_2024-12-31.tracker.csv", demo)),
  );
  const table = result.inputs[0];
  assert.equal(table.template, "broker_to_tracker");
  assert.equal(table.total, 11);
  assert.equal(table.rows.length, 5, "the listing stops at the row limit");
  assert.equal(table.counts.written, 9);
  assert.equal(table.counts.date_filtered, 2);
  assert.equal(table.rows[0].outcome, "date_filtered");
  assert.equal(table.rows[2].outcome, "written");
  const ex = await core.explain(table.template, table.path, 1);
  assert.equal(ex?.outcome, "date_filtered");
  assert.match(result.log.map((l) => l.text).join(""), /=== overall summary ===/);
});

Deno.test("playground core: a broken config is not run and its diagnostics are placed", async () => {
  const core = new PlaygroundCore();
  const text = '{\n  conversion_templates: {\n    t: {\n      input_schema: { $a: "UPPPER([x])" },\n' +
    '      output_schema: { a: "$a" },\n    },\n  },\n}\n';
  const diags = core.validate(text);
  const bad = diags.find((d) => d.code.startsWith("expr."));
  assert.ok(bad, JSON.stringify(diags));
  assert.equal(bad.line, 4);
  assert.equal(text.slice(bad.from, bad.to), "UPPPER");
  const result = await core.run(text, [], 10);
  assert.equal(result.exitCode, 1);
  assert.deepEqual(result.outputs, []);
});

Deno.test("playground core: the scratchpad trace gives nested call spans", () => {
  const core = new PlaygroundCore();
  const res = core.trace("UPPER(TRIM([a])) & 'é'", ["a"], ["  x "]);
  assert.equal(res.value, "Xé");
  assert.deepEqual(res.calls.map((c) => [c.fn, c.from, c.to, c.value]), [
    ["TRIM", 6, 15, "x"],
    ["UPPER", 0, 16, "X"],
  ]);
  const err = core.trace("1 + 'x'", [], []);
  assert.equal(err.error?.error, "NotANumber");
});
