import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/model.ts";
import { newEvalContext } from "../../src/engine/context.ts";
import { UncomparableDateError } from "../../src/engine/date_range.ts";
import { planTemplate } from "../../src/engine/plan.ts";
import { RowEvaluator } from "../../src/engine/row_eval.ts";
import { NULL_TRACE, type RowWriter } from "../../src/engine/sinks.ts";

// A ledger whose $date comes from a column some rows leave blank; the second rule rewrites $date itself, so
// the check must also hold after overrides (the slow path), not only on the early $date evaluation.
const CONFIG = `{conversion_templates: {ledger: {
  data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out", date_filter_from_filename: true,
  input_schema: { $date: "[Booked]", $memo: "[Memo]" },
  row_rules: [
    { when: "[Memo] = 'fix'", rows: [{ $date: "[Valued]" }] },
    { when: "1 = 1", rows: [{}] },
  ],
  output_schema: { day: "$date", memo: "$memo" },
}}}`;

const HEADERS = ["Booked", "Valued", "Memo"];

function evaluator(dateMin: string, dateMax: string, fast: boolean) {
  const source = fast
    ? CONFIG.replace(`{ when: "[Memo] = 'fix'", rows: [{ $date: "[Valued]" }] },`, "")
    : CONFIG;
  const cfg = loadConfig(source, "ledger.json").config!;
  const plan = planTemplate(cfg.templates[0], cfg.maps);
  const ctx = newEvalContext(plan, new Map(HEADERS.map((h, i) => [h, i])), "ledger_2030-02-01_2030-02-28");
  const written: string[][] = [];
  const out: RowWriter = {
    writeHeader() {},
    writeRow: (v) => void written.push([...v]),
    writeFragment() {},
    finish() {},
    drain: () => null,
  };
  const rows = new RowEvaluator(plan, ctx, { out, combined: null, trace: NULL_TRACE, debug: null }, {
    dateMin,
    dateMax,
    columnNames: HEADERS,
  });
  return { rows, written };
}

for (const fast of [true, false]) {
  const path = fast ? "early $date check" : "$date after overrides";
  Deno.test(`${path}: a live filename range stops on a $date too short to compare`, () => {
    const { rows, written } = evaluator("2030-02-01", "2030-02-28", fast);
    rows.evalRecord(["2030-02-03", "", "rent"], 0, 1);
    rows.evalRecord(["2030-03-09", "", "late"], 20, 2);
    assert.deepEqual(written, [["2030-02-03", "rent"]], "in range kept, out of range dropped");
    assert.throws(
      () => rows.evalRecord(["", "", fast ? "blank" : "fix"], 40, 3),
      (err: unknown) => {
        assert.ok(err instanceof UncomparableDateError);
        assert.match(err.message, /^template 'ledger': 'ledger_2030-02-01_2030-02-28' record 3: /);
        assert.match(err.message, /\$date is '' — too short to compare against the filename's range /);
        assert.match(err.message, /2030-02-01\.\.2030-02-28/);
        return true;
      },
    );
    assert.throws(() => rows.evalRecord(["30.2.", "", "odd"], 60, 4), UncomparableDateError, "9 chars");
  });

  Deno.test(`${path}: without a range in the file name, short dates pass through`, () => {
    const { rows, written } = evaluator("", "", fast);
    rows.evalRecord(["", "", "blank"], 0, 1);
    rows.evalRecord(["soon", "", "text"], 10, 2);
    assert.deepEqual(written, [["", "blank"], ["soon", "text"]]);
  });
}
