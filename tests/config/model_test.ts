import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import { bxpCliLine, formatDiagnostic, loadConfig } from "../../src/config/model.ts";
import { annotateConfig } from "../../src/inspect/annotate.ts";

const CONFORMANCE = new URL("../../../shared/conformance/", import.meta.url);

function sampleConfigs(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  const walk = (dir: URL, rel: string) => {
    for (const e of Deno.readDirSync(dir)) {
      if (e.isDirectory) walk(new URL(`${e.name}/`, dir), `${rel}${e.name}/`);
      else if (e.name === "sample.json") {
        out.push({ name: rel, text: Deno.readTextFileSync(new URL(e.name, dir)) });
      }
    }
  };
  walk(CONFORMANCE, "");
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

Deno.test(
  "model: every conformance sample.json validates (annotate exit 0) and loads",
  NEEDS_CONFORMANCE,
  () => {
    const samples = sampleConfigs();
    assert.ok(samples.length >= 20);
    for (const { name, text } of samples) {
      const annotated = annotateConfig(text, name);
      assert.equal(annotated.exitCode, 0, `${name}: ${annotated.json.match(/"\$err_\d+":\{[^}]*\}/g)}`);
      assert.ok(!annotated.json.includes('"$err_'), name);
      const { config, diagnostics } = loadConfig(text, name);
      assert.ok(config, `${name}: ${diagnostics.map((d) => formatDiagnostic(name, d)).join("\n")}`);
      assert.ok(config.templates.length > 0);
    }
  },
);

Deno.test("model: defaults applied and declaration order kept (trading212)", NEEDS_CONFORMANCE, () => {
  const text = Deno.readTextFileSync(new URL("datasets/trading212_to_wealthfolio/sample.json", CONFORMANCE));
  const { config } = loadConfig(text, "sample.json");
  assert.ok(config);
  const t = config.templates[0];
  assert.equal(t.id, "trading212_to_wealthfolio");
  assert.equal(t.csvTextQuoteIn, "double");
  assert.equal(t.csvTextQuoteOut, "none");
  assert.equal(t.csvHeaderLine, 1);
  assert.equal(t.csvInputEncoding, "utf-8");
  assert.equal(t.zipInput, null);
  assert.equal(t.xlsxSheet, null);
  assert.deepEqual(t.outputSchema.slice(0, 3), [["date", "$date"], ["symbol", "$ticker"], ["isin", "$isin"]]);
  assert.equal(t.inputSchema[0][0], "$date");
  assert.equal(config.maps.get("trading212")?.get("ASML"), "ASML.AS");
  assert.ok(t.rowRules && t.rowRules.length > 5);
});

Deno.test("model: xlsx_sheet, zip_input, legacy and named pre_pass blocks", NEEDS_CONFORMANCE, () => {
  const xtb = Deno.readTextFileSync(new URL("datasets/xtb1_cash_to_wealthfolio/sample.json", CONFORMANCE));
  const x = loadConfig(xtb, "x").config?.templates[0];
  assert.ok(x?.xlsxSheet && x.xlsxSheet.headerRow >= 1);
  const zip = Deno.readTextFileSync(new URL("datasets/ruian_zip_demo/sample.json", CONFORMANCE));
  const z = loadConfig(zip, "z").config?.templates[0];
  assert.deepEqual(z?.zipInput, { entryPattern: ".csv", dirMode: "basename", pathSeparator: "_" });
  assert.equal(z?.csvInputEncoding, "windows-1250");
  assert.equal(z?.csvDelimiterIn, ";");
  const text = `{ conversion_templates: {
    l: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".x", pre_pass: { when: "1", key: "[K]", values: { v: "[V]" } },
         input_schema: { $a: "LOOKUP([K], 'v')" }, output_schema: { a: "$a" } },
    n: { data_dir: "n", file_pattern_in: ".csv", file_pattern_out: ".x", description: "named",
         pre_pass: { b1: { when: "1", key: "[K]", values: { v: "[V]" } }, b2: { when: "1", key: "[K]", values: { w: "[W]" } } },
         input_schema: { $a: "LOOKUP('b1', [K], 'v') & LOOKUP('b2', [K], 'w')" }, output_schema: { a: "$a" } } } }`;
  const { config, diagnostics } = loadConfig(text, "t");
  assert.ok(config, JSON.stringify(diagnostics));
  assert.deepEqual(config.templates[0].prePass, [{
    name: "_default",
    when: "1",
    key: "[K]",
    values: [["v", "[V]"]],
  }]);
  assert.deepEqual(config.templates[1].prePass.map((b) => b.name), ["b1", "b2"]);
  assert.equal(config.templates[1].description, "named");
  assert.equal(config.templates[0].rowRules, null);
});

Deno.test("model: errors make config null and read as <file>: <message>", () => {
  const { config, diagnostics } = loadConfig(
    `{ conversion_templates: { a: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".x", input_schema: { $d: "[D]" } } } }`,
    "cfg.json",
  );
  assert.equal(config, null);
  const d = diagnostics.find((x) => x.code === "config.missing_field");
  assert.equal(d?.message, "output_schema is required");
  assert.equal(d?.path, "conversion_templates.a.output_schema");
  assert.match(formatDiagnostic("cfg.json", d!), /^cfg\.json: error: output_schema is required/);
  const warned = loadConfig(
    `{ conversion_templates: { a: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".x", combined_output: 1,
      input_schema: { $d: "[D]" }, output_schema: { d: "$d" } } } }`,
    "w",
  );
  assert.ok(warned.config);
  assert.equal(warned.config.templates[0].combinedOutput, false);
  assert.equal(warned.diagnostics[0].severity, "warning");
});

const tpl = (inputSchema: string, extra = "", output = '{ a: "$a" }') =>
  `{ conversion_templates: { sample: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".csvx", ${extra}
    input_schema: ${inputSchema}, output_schema: ${output} } } }`;

type Json = Record<string, unknown>;
function markersUnder(json: string, path: string[]): { key: string; v: Json }[] {
  let node: unknown = JSON.parse(json);
  for (const seg of path) node = Array.isArray(node) ? node[Number(seg)] : (node as Json)[seg];
  return Object.entries(node as Json).filter(([k]) => /^\$(err|warn|info)_/.test(k)).map(([key, v]) => ({
    key,
    v: v as Json,
  }));
}
const S = ["conversion_templates", "sample"];

Deno.test("phase G: unknown function with did-you-mean, at the input_schema entry", () => {
  const r = annotateConfig(
    tpl("{ $a: \"BLAH([Value])\", $k: \"LOOKUPP('x', 'y')\" }", "", '{ a: "$a", k: "$k" }'),
    "t",
  );
  assert.equal(r.exitCode, 1);
  const m = markersUnder(r.json, [...S, "input_schema"]);
  const blah = m.find((x) => /unknown function 'BLAH'/.test(x.v.message as string));
  assert.ok(blah);
  assert.equal(blah.v.code, "expr.UnknownFunction");
  const lookupp = m.find((x) => /LOOKUPP/.test(x.v.message as string));
  assert.equal(lookupp?.v.suggest, "did you mean 'LOOKUP'?");
});

Deno.test("phase G6: deep paths in row_rules rows and pre_pass values", () => {
  const r = annotateConfig(
    tpl(
      '{ $a: "[Date]" }',
      `row_rules: [ { when: "true", rows: [ { $t: "BLAH([Sym])" } ] } ],
      pre_pass: { fees: { when: "true", key: "[ID]", values: { fee: "BLAH([F])" } } },`,
    ),
    "t",
  );
  assert.equal(r.exitCode, 1);
  const rows = markersUnder(r.json, [...S, "row_rules", "0", "rows", "0"]);
  assert.ok(rows.some((x) => /unknown function 'BLAH'/.test(x.v.message as string)));
  const values = markersUnder(r.json, [...S, "pre_pass", "fees", "values"]);
  assert.ok(values.some((x) => /unknown function 'BLAH'/.test(x.v.message as string)));
});

Deno.test("phase G3/G4/G5 and named maps", () => {
  const g3 = annotateConfig(
    tpl(
      "{ $a: \"LOOKUP('typo_name', [ID], 'x')\" }",
      'pre_pass: { real_name: { when: "true", key: "[ID]", values: { x: "[X]" } } },',
    ),
    "t",
  );
  assert.equal(g3.exitCode, 1);
  assert.ok(
    markersUnder(g3.json, [...S, "input_schema"]).some((x) =>
      /unknown pre_pass 'typo_name'/.test(x.v.message as string)
    ),
  );
  const g4 = annotateConfig(tpl(`{ $a: "DATE_CONVERT([X], 'YYYY-MN-DD', 'YYYY-MM-DD')" }`), "t");
  assert.equal(g4.exitCode, 1);
  assert.match(g4.json, /unrecognized letter 'N'/);
  const g4ok = annotateConfig(
    tpl(`{ $a: "DATE_CONVERT([X], 'YYYY-MM-DD[T]hh:mm:ss[*]', 'YYYY-MM-DD hh:mm:ss')" }`),
    "t",
  );
  assert.equal(g4ok.exitCode, 0, g4ok.json);
  const g5 = annotateConfig(
    tpl(`{ $a: "SPLIT_PART([X], '-', 0)", $good: "SPLIT_PART([X], '-', 1)" }`, "", '{ a: "$a", g: "$good" }'),
    "t",
  );
  assert.equal(g5.exitCode, 1);
  const g5m = markersUnder(g5.json, [...S, "input_schema"]);
  assert.equal(g5m.filter((x) => x.key.startsWith("$err_")).length, 1);
  assert.match(g5m[0].v.message as string, /index argument is 1-based/);
  const map = annotateConfig(tpl(`{ $a: "REMAP([Sym], 'missing_named_map')" }`), "t");
  assert.equal(map.exitCode, 1);
  assert.match(map.json, /unknown named map/);
  const mapOk = annotateConfig(
    `{ maps: { syms: { "VOW.DE": "VOW.DE.XETRA" } }, ` + tpl(`{ $a: "REMAP([Sym], 'syms')" }`).slice(1),
    "t",
  );
  assert.equal(mapOk.exitCode, 0, mapOk.json);
});

Deno.test("phase G2/G8 warnings keep exit 0", () => {
  const g2 = annotateConfig(
    tpl(
      '{ $a: "[Symbol]", $b: "[Symbol]", $c: "[Symbol]", $d: "[Symbo]" }',
      "",
      '{ a: "$a", b: "$b", c: "$c", d: "$d" }',
    ),
    "t",
  );
  assert.equal(g2.exitCode, 0);
  assert.ok(
    markersUnder(g2.json, S).some((x) =>
      x.key.startsWith("$warn_") && /field 'Symbo' is referenced once/.test(x.v.message as string)
    ),
  );
  const g8 = annotateConfig(
    tpl(
      "{ $a: \"LOOKUP('used', [ID], 'x')\", $unused_var: \"[Y]\" }",
      `pre_pass: {
      used: { when: "true", key: "[ID]", values: { x: "[X]" } }, unused_block: { when: "true", key: "[Y]", values: { y: "[Y]" } } },`,
    ),
    "t",
  );
  assert.equal(g8.exitCode, 0);
  const pp = markersUnder(g8.json, [...S, "pre_pass"]);
  assert.ok(
    pp.some((x) =>
      /'unused_block'/.test(x.v.message as string) && /never referenced/.test(x.v.message as string)
    ),
  );
  assert.ok(!pp.some((x) => /'used'/.test(x.v.message as string)));
  assert.ok(
    markersUnder(g8.json, [...S, "input_schema"]).some((x) => /'\$unused_var'/.test(x.v.message as string)),
  );
});

Deno.test("model: bxp-cli style lines for fatal config findings", () => {
  const missing = loadConfig(`{ conversion_templates: { a: { input_schema: { $d: "[D]" } } } }`, "c.json");
  const d = missing.diagnostics.find((x) => x.code === "config.missing_field")!;
  assert.equal(bxpCliLine("c.json", d), "# c.json: config error: template 'a': output_schema is required");
  const syntax = loadConfig("{\n  a: [1,,]\n}", "c.json");
  assert.equal(
    bxpCliLine("c.json", syntax.diagnostics[0]),
    "# c.json:2:9: JSON error (line 2, pos 9) — unexpected character — check for missing quotes, commas, or brackets",
  );
  const none = loadConfig("{}", "c.json");
  assert.equal(bxpCliLine("c.json", none.diagnostics[0]), "error: c.json defines no conversion_templates");
});
