/**
 * The template's dialect in the stateless evaluators (`template_settings.ts`, `EvalOptions`): the
 * settings the engine runs with, read from config text; a call's own separator and maps win; refusals
 * name what is there. A job carrying them is answered inline or on a worker alike.
 */
import assert from "node:assert/strict";
import { evalBatch, evalExpr, runEvalJob, runInline, templateSettings } from "../../src/inspect/mod.ts";
import type { TemplateSettings } from "../../src/inspect/mod.ts";

const CONFIG = `{
  maps: { sym: { BTC: "BTC-USD" }, kind: { b: "buy" } },
  conversion_templates: {
    bank: {
      csv_decimal_separator_in: ",",
      csv_text_quote_out: "single",
      xlsx_sheet: { name: "Trades", header_row: 1, output_suffix: "" },
      maps: { sym: { BTC: "BTC-EUR" } },
      output_schema: {},
    },
  },
}`;

Deno.test("templateSettings: the loader's values, the template's maps over the config's", () => {
  const settings = templateSettings(CONFIG, "bank") as TemplateSettings;
  assert.equal(settings.decimalSeparator, ",");
  assert.equal(settings.quoteOut, "'");
  assert.equal(settings.sheetName, "Trades");
  assert.deepEqual([...settings.maps.keys()], ["sym", "kind"]);
  assert.equal(settings.maps.get("sym")?.get("BTC"), "BTC-EUR");
  // One template: the id may be left out.
  assert.deepEqual(templateSettings(CONFIG, null), settings);
  assert.equal(
    templateSettings(CONFIG, "card"),
    "template 'card' not found in the config; its templates: bank",
  );
  assert.equal(templateSettings("{}", null), "the config has no conversion_templates");
  assert.match(templateSettings("{maps: []}", null) as string, /^the config does not load \(InvalidConfig/);
});

Deno.test("evalExpr and evalBatch with a template: its dialect; without options: the plain answer", () => {
  const row = [["Amount", "Sym"], ["1.234,50", "BTC"]] as const;
  const opts = { config: CONFIG, template: "bank" };
  assert.equal(evalExpr("[Amount] + 0", [...row[0]], [...row[1]], opts), '{"ok":true,"value":"1234.5"}');
  assert.equal(evalExpr("SHEET_NAME() & '''", null, null, opts), `{"ok":true,"value":"Trades'"}`);
  assert.equal(evalExpr("REMAP('b', 'kind')", null, null, opts), '{"ok":true,"value":"buy"}');
  assert.match(evalExpr("[Amount] + 0", [...row[0]], [...row[1]]), /NotANumber/);
  assert.match(
    evalExpr("[Amount] + 0", [...row[0]], [...row[1]], { ...opts, decimal_separator: "." }),
    /NotANumber/,
  );
  assert.throws(() => evalExpr("1", null, null, { decimal_separator: ";" }), /decimal_separator must be/);
  assert.throws(() => evalExpr("1", null, null, { template: "bank" }), /template needs the config/);
  const batch = evalBatch({ headers: [...row[0]], fields: [...row[1]], exprs: ["[Amount] * 2"], ...opts });
  assert.equal(batch.json, '{"results":[{"ok":true,"value":"2469"}]}');
  assert.equal(
    evalBatch({ headers: [], fields: [], exprs: [], config: CONFIG, template: "x" }).errorMessage,
    "template 'x' not found in the config; its templates: bank",
  );
});

Deno.test("a job with a template is answered inline as on a worker; a regex one only on a worker", () => {
  const job = {
    kind: "eval" as const,
    expr: "[Amount] * 2",
    headers: ["Amount"],
    fields: ["172,50"],
    config: CONFIG,
    template: "bank",
  };
  assert.deepEqual(runInline(job), runEvalJob(job));
  assert.equal(runEvalJob(job).text, '{"ok":true,"value":"345"}');
  const regex = { ...job, expr: "IF(REGEX_MATCH('a', 'a'), [Amount] * 2, 0)" };
  assert.equal(runInline(regex), null);
  assert.equal(runEvalJob(regex).text, '{"ok":true,"value":"345"}');
});
