/**
 * The row explanation on real configs and files: the bundled demo (rules, overrides, the filename date
 * filter) and small configs written to a temp folder for the other drop reasons, errors and pre_pass lookups.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/config/model.ts";
import { planTemplate, type TemplatePlan } from "../../src/engine/plan.ts";
import { DenoEngineFs } from "../../src/cli/deno_fs.ts";
import { explainFileRecord, explainRecord, readFileRecords } from "../../src/explain/mod.ts";

const DEMO = new URL("../../samples/demo/", import.meta.url);
const DEMO_FILE = "statement_2024-01-01_2024-12-31.csv";

function planOf(text: string, id?: string): TemplatePlan {
  const loaded = loadConfig(text, "test");
  assert.ok(loaded.config, JSON.stringify(loaded.diagnostics));
  const t = id === undefined ? loaded.config.templates[0] : loaded.config.templates.find((x) => x.id === id)!;
  return planTemplate(t, loaded.config.maps);
}

function demo() {
  const plan = planOf(Deno.readTextFileSync(new URL("bxp-cli.json", DEMO)));
  const fs = new DenoEngineFs(fileURLToPath(new URL("data/", DEMO)));
  return { plan, fs };
}

Deno.test("explain: a Buy record matches rule 0 and writes the row bxp-cli writes", async () => {
  const { plan, fs } = demo();
  const ex = await explainFileRecord(fs, plan, DEMO_FILE, DEMO_FILE, 3);
  assert.ok(ex);
  assert.equal(ex.outcome, "written");
  assert.equal(ex.winner, 0);
  assert.deepEqual(ex.rules.map((r) => [r.matched, r.reached]), [
    [true, true],
    [false, false],
    [false, false],
    [false, false],
  ]);
  assert.equal(ex.rules[0].source, "[Type] = 'Buy'");
  const symbol = ex.variables.find((v) => v.name === "$symbol")!;
  assert.equal(symbol.value, "ASML.AS");
  assert.equal(symbol.skipped, false);
  assert.equal(ex.variables.find((v) => v.name === "$date")!.value, "2024-01-03");
  assert.equal(ex.rows.length, 1);
  assert.deepEqual(ex.rows[0].overrides.map((o) => [o.name, o.value]), [["$action", "BUY"]]);
  assert.deepEqual(ex.written, [["2024-01-03", "ASML.AS", "4", "BUY", "612.4", "EUR", "1.5", "2449.6", ""]]);
  assert.deepEqual(ex.rows[0].values.map(([, v]) => v), ex.written[0]);
  assert.match(ex.reason, /rule 0 matched first and wrote 1 row/);
  assert.equal(ex.droppedBeforeRules, false);
  assert.deepEqual(ex.fields[1], ["Type", "Buy"]);
});

Deno.test("explain: one FX record becomes two rows with their own overrides", async () => {
  const { plan, fs } = demo();
  const ex = await explainFileRecord(fs, plan, DEMO_FILE, DEMO_FILE, 7);
  assert.ok(ex);
  assert.equal(ex.winner, 3);
  assert.equal(ex.rules[3].reached, true);
  assert.equal(ex.rows.length, 2);
  assert.deepEqual(ex.rows[0].overrides.map((o) => o.name), ["$action", "$symbol", "$currency"]);
  assert.deepEqual(ex.written.map((r) => r[1]), ["$CASH-EUR", "$CASH-USD"]);
  assert.deepEqual(
    ex.written.map((r) => r[6]),
    ["2.4", ""],
    "the second row's $fee override empties the fee",
  );
  // $symbol is overridden in one row only, so input_schema still evaluates it.
  assert.equal(ex.variables.find((v) => v.name === "$symbol")!.skipped, false);
});

Deno.test("explain: records outside the file name's range are date-filtered before any rule", async () => {
  const { plan, fs } = demo();
  for (const n of [1, 11]) {
    const ex = await explainFileRecord(fs, plan, DEMO_FILE, DEMO_FILE, n);
    assert.ok(ex);
    assert.equal(ex.outcome, "date_filtered", `record ${n}`);
    assert.deepEqual(ex.written, []);
    assert.ok(ex.rules.every((r) => !r.reached), "the engine never looks at the rules");
    assert.equal(ex.droppedBeforeRules, true);
    assert.match(ex.reason, /outside the file name's date range \(2024-01-01 to 2024-12-31\)/);
  }
});

Deno.test("explain: over the whole demo file the explained rows are exactly the expected output", async () => {
  const { plan, fs } = demo();
  const file = await readFileRecords(fs, plan, DEMO_FILE, DEMO_FILE, { limit: 100 });
  assert.equal(file.total, 11);
  assert.equal(file.dateMin, "2024-01-01");
  const rows: string[] = [];
  for (const r of file.records) {
    const ex = await explainFileRecord(fs, plan, DEMO_FILE, DEMO_FILE, r.recordNum);
    for (const w of ex!.written) rows.push(w.join("|"));
  }
  const expected = Deno.readTextFileSync(
    new URL("expected/statement_2024-01-01_2024-12-31.tracker.csv", DEMO),
  )
    .trim().split("\n").slice(1);
  assert.equal(rows.length, expected.length);
  assert.equal(rows[3], "2024-02-15|VWRL.L||DIVIDEND|18.33|EUR||18.33|Q4 distribution");
  assert.equal(await explainFileRecord(fs, plan, DEMO_FILE, DEMO_FILE, 12), null);
});

const SMALL = `{
  conversion_templates: {
    t: {
      data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
      input_schema: { $kind: "[Kind]", $n: "[Amount] * 2" },
      row_rules: [
        { when: "[Kind] = 'skip'", rows: [] },
        { when: "[Amount] * 1 > 100", rows: [{ $action: "'BIG'" }] },
        { when: "[Kind] = 'keep'", rows: [{ $action: "'KEEP'", $n: "'fixed'" }] },
      ],
      output_schema: { kind: "$kind", n: "$n", action: "$action" },
    },
  },
}`;

Deno.test("explain: rule_skip, no_rule_match, a when that raises and a skipped input var", () => {
  const plan = planOf(SMALL);
  const columnNames = ["Kind", "Amount"];
  const skipped = explainRecord({ plan, columnNames, fields: ["skip", "5"], recordNum: 1 });
  assert.equal(skipped.outcome, "rule_skip");
  assert.equal(skipped.winner, 0);
  assert.match(skipped.reason, /no output rows/);

  const none = explainRecord({ plan, columnNames, fields: ["other", "7"], recordNum: 2 });
  assert.equal(none.outcome, "no_rule_match");
  assert.equal(none.winner, -1);
  assert.ok(none.rules.every((r) => r.reached && !r.matched));
  assert.match(none.reason, /none of the 3 row_rules matched/);

  // "abc" * 1 raises in rule 1's when (treated as false) and in $n; rule 2 wins and overrides $n.
  const kept = explainRecord({ plan, columnNames, fields: ["keep", "abc"], recordNum: 3 });
  assert.equal(kept.outcome, "written");
  assert.equal(kept.winner, 2);
  assert.equal(kept.rules[1].matched, false);
  assert.ok(kept.rules[1].error, "the when's error is reported");
  assert.equal(kept.rules[1].error!.name, "NotANumber");
  const n = kept.variables.find((v) => v.name === "$n")!;
  assert.equal(n.skipped, true, "every row of the winner overrides $n, so input_schema never evaluates it");
  assert.equal(kept.errors, 0, "the skipped var's error is not counted");
  assert.deepEqual(kept.written, [["keep", "fixed", "KEEP"]]);
});

Deno.test("explain: an input_schema error is named and counted", () => {
  const plan = planOf(SMALL);
  const ex = explainRecord({ plan, columnNames: ["Kind", "Amount"], fields: ["x", "lots"], recordNum: 1 });
  // rule 1 raises, rule 2 is false: no match, but input_schema still runs and $n fails.
  assert.equal(ex.outcome, "no_rule_match");
  const n = ex.variables.find((v) => v.name === "$n")!;
  assert.equal(n.error?.name, "NotANumber");
  assert.equal(n.value, "");
  assert.equal(ex.errors, 1);
});

Deno.test("explain: LOOKUP sees the pre_pass tables of the whole file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-explain-" });
  try {
    await Deno.writeTextFile(
      join(dir, "orders.csv"),
      "kind,id,name,ref\nitem,1,apple,\nitem,2,pear,\norder,9,,2\n",
    );
    const plan = planOf(`{
      conversion_templates: { j: {
        data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
        pre_pass: { items: { when: "[kind] = 'item'", key: "[id]", values: { name: "[name]" } } },
        input_schema: { $what: "LOOKUP('items', [ref], 'name')" },
        row_rules: [{ when: "[kind] = 'order'", rows: [{ $action: "'ORDER'" }] }],
        output_schema: { what: "$what", action: "$action" },
      } },
    }`);
    const fs = new DenoEngineFs(dir);
    const ex = await explainFileRecord(fs, plan, "orders.csv", "orders.csv", 3);
    assert.ok(ex);
    assert.equal(ex.variables[0].value, "pear");
    assert.deepEqual(ex.written, [["pear", "ORDER"]]);
    const first = await explainFileRecord(fs, plan, "orders.csv", "orders.csv", 1);
    assert.equal(first!.outcome, "no_rule_match");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("explain: readFileRecords can stop at its limit instead of counting the whole file", async () => {
  const { plan, fs } = demo();
  const some = await readFileRecords(fs, plan, DEMO_FILE, DEMO_FILE, { limit: 3, countAll: false });
  assert.equal(some.total, null);
  assert.deepEqual(some.records.map((r) => r.fields[1]), ["Deposit", "Deposit", "Buy"]);
  const all = await readFileRecords(fs, plan, DEMO_FILE, DEMO_FILE, { limit: 3 });
  assert.equal(all.total, 11);
  assert.equal(all.records.length, 3);
});

const OVERRIDDEN_DATE = `{
  conversion_templates: {
    t: {
      data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out", date_filter_from_filename: true,
      input_schema: { $date: "[d]" },
      row_rules: [{ when: "1", rows: [{ $action: "'A'" }, { $action: "'B'", $date: "[d2]" }] }],
      output_schema: { date: "$date", action: "$action" },
    },
  },
}`;

Deno.test("explain: with $date overridden the filter judges each output row after the rules", () => {
  const plan = planOf(OVERRIDDEN_DATE);
  const base = { plan, columnNames: ["d", "d2"], recordNum: 1, dateMin: "2024-01-01", dateMax: "2024-12-31" };
  const half = explainRecord({ ...base, fields: ["2024-05-01", "2025-02-01"] });
  assert.equal(half.outcome, "written");
  assert.equal(half.droppedBeforeRules, false);
  assert.deepEqual(half.rows.map((r) => r.outcome), ["written", "date_filtered"]);
  assert.deepEqual(half.written, [["2024-05-01", "A"]]);

  const none = explainRecord({ ...base, fields: ["2023-05-01", "2025-02-01"] });
  assert.equal(none.outcome, "date_filtered");
  assert.equal(none.droppedBeforeRules, false, "the rules ran: the overrides decided");
  assert.ok(none.rules[0].reached);
});

Deno.test("explain: a $date the live filter cannot compare is the run's fatal, named as such", () => {
  const plan = planOf(OVERRIDDEN_DATE);
  const ex = explainRecord({
    plan,
    columnNames: ["d", "d2"],
    fields: ["", "2024-01-01"],
    recordNum: 4,
    stem: "x_2024-01-01_2024-12-31",
    dateMin: "2024-01-01",
    dateMax: "2024-12-31",
  });
  assert.equal(ex.outcome, "fatal");
  assert.match(
    ex.reason,
    /the run stops here: .*record 4: date_filter_from_filename is on, but \$date is ''/,
  );
  assert.deepEqual(ex.written, []);
});
