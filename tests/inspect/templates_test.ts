import assert from "node:assert/strict";
import { fetchTemplate, listTemplates, templateIo } from "../../src/inspect/templates.ts";

const config = `{
  // comment
  conversion_templates: {
    a: { data_dir: "d", file_pattern_in: "_cash.csv", file_pattern_out: ".csvx", description: "Cash", n: 1.50, xlsx_sheet: { name: "S", header_row: 1, output_suffix: "" } },
    b: { file_type_in: "json" },
    c: 5,
  },
}`;

Deno.test("listTemplates: bxp's shape, nulls for absent strings, csv defaults, broken entries badged", () => {
  const json = listTemplates(config);
  assert.deepEqual(JSON.parse(json), {
    templates: [
      {
        id: "a",
        data_dir: "d",
        file_pattern_in: "_cash.csv",
        file_pattern_out: ".csvx",
        file_type_in: "csv",
        file_type_out: "csv",
        description: "Cash",
      },
      {
        id: "b",
        data_dir: null,
        file_pattern_in: null,
        file_pattern_out: null,
        file_type_in: "json",
        file_type_out: "csv",
        description: null,
      },
      { id: "c", error: "template entry is not an object" },
    ],
  });
  assert.ok(json.startsWith('{\n  "templates": [\n    {\n      "id": "a",'));
  assert.equal(listTemplates("{}"), '{\n  "templates": []\n}');
  assert.equal(listTemplates("{ oops"), '{"$err_1":"UnexpectedEndOfInput"}');
  assert.equal(listTemplates("{ a: ] }"), '{"$err_1":"SyntaxError"}');
});

Deno.test("fetchTemplate: template JSON indented, bxp's error documents", () => {
  const ok = fetchTemplate(config, "b");
  assert.deepEqual(ok, { json: '{\n  "file_type_in": "json"\n}', exitCode: 0, notFound: false });
  assert.match(fetchTemplate(config, "a").json, /"n": 1\.5e0/);
  assert.deepEqual(fetchTemplate(config, "zz"), {
    json: '{"$err_1":"template id \'zz\' not found"}',
    exitCode: 1,
    notFound: true,
  });
  assert.equal(fetchTemplate("[]", "a").json, '{"$err_1":"config root is not an object"}');
  assert.equal(fetchTemplate("{}", "a").json, '{"$err_1":"no conversion_templates in config"}');
  assert.equal(
    fetchTemplate("{conversion_templates: 1}", "a").json,
    '{"$err_1":"conversion_templates is not an object"}',
  );
});

Deno.test("templateIo: input shape with safe defaults", () => {
  assert.deepEqual(templateIo(config, "a"), {
    found: true,
    filePatternIn: "_cash.csv",
    csvInput: true,
    hasXlsxSheet: true,
  });
  assert.deepEqual(templateIo(config, "b"), {
    found: true,
    filePatternIn: "",
    csvInput: false,
    hasXlsxSheet: false,
  });
  const missing = { found: false, filePatternIn: "", csvInput: true, hasXlsxSheet: false };
  assert.deepEqual(templateIo(config, "c"), missing);
  assert.deepEqual(templateIo(config, "nope"), missing);
  assert.deepEqual(templateIo("{", "a"), missing);
});
