/**
 * The generated JSON Schema, checked by a real validator (ajv's draft 2020-12 build): every config of
 * bxp's conformance cases and every built-in template validates; configs with wrong types, unknown keys
 * or missing required keys are rejected; a top-level `$schema` is accepted (and bxp ignores it too);
 * the committed docs/reference/config.schema.json is the generator's current output.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import { configJsonSchema, configJsonSchemaText } from "../../src/config/json_schema.ts";
import { parseJson5 } from "../../src/config/json5.ts";
import { fromNode } from "../../src/config/emit.ts";
import { annotateConfig } from "../../src/inspect/annotate.ts";
import { builtinLibrary } from "../../src/templates/mod.ts";
import { CONFORMANCE_DIR } from "../_support/conformance.ts";

// deno-lint-ignore no-explicit-any
const ajv = new (Ajv2020 as any)({ allErrors: true, strict: true });
const validate = ajv.compile(configJsonSchema());

/** JSON5 text → the plain JSON value an editor would check. */
function plain(text: string): unknown {
  const parsed = parseJson5(text);
  assert.ok(parsed.value, parsed.error?.message);
  const toPlain = (v: ReturnType<typeof fromNode>): unknown => {
    switch (v.t) {
      case "object":
        return Object.fromEntries(v.entries.map(([k, x]) => [k, toPlain(x)]));
      case "array":
        return v.items.map(toPlain);
      case "string":
      case "bool":
        return v.v;
      case "number":
        return Number(v.text);
      case "null":
        return null;
    }
  };
  return toPlain(fromNode(parsed.value));
}

function errors(): string {
  return ajv.errorsText(validate.errors, { separator: "\n" });
}

Deno.test({
  name: "json schema: every conformance config validates",
  ignore: CONFORMANCE_DIR === null,
  fn() {
    const root = fileURLToPath(CONFORMANCE_DIR!);
    const lines = Deno.readTextFileSync(join(root, "CASES.tsv")).trim().split("\n").slice(1);
    for (const line of lines) {
      const [dir, config] = line.split("\t");
      const value = plain(Deno.readTextFileSync(join(root, dir, config)));
      assert.ok(validate(value), `${dir}/${config}:\n${errors()}`);
    }
    assert.ok(lines.length >= 25);
  },
});

Deno.test("json schema: the built-in templates validate", () => {
  for (const t of builtinLibrary().templates) assert.ok(validate(plain(t.text)), `${t.id}:\n${errors()}`);
});

const GOOD = `{
  $schema: "./config.schema.json",
  maps: { m: { a: "b" } },
  conversion_templates: {
    t: {
      data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv",
      csv_delimiter_in: ";", csv_header_line: 2, combined_output: true,
      pre_pass: { prices: { when: "1 = 1", key: "[Id]", values: { p: "[Price]" } } },
      input_schema: { $a: "[A]" },
      row_rules: [{ when: "1 = 1", rows: [{ $b: "'x'" }] }],
      output_schema: { a: "$a", b: "$b" },
    },
  },
}`;

Deno.test("json schema: a top-level $schema is accepted by the schema and ignored by bxp's validation", () => {
  assert.ok(validate(plain(GOOD)), errors());
  const r = annotateConfig(GOOD, "good.json5");
  assert.equal(r.exitCode, 0, r.json);
  assert.ok(!r.json.includes("unknown config key"), r.json);
  // Only at the top: inside a template it is an unknown key for both.
  const nested = GOOD.replace('data_dir: ".",', 'data_dir: ".", $schema: "x",');
  assert.equal(validate(plain(nested)), false);
  assert.match(annotateConfig(nested, "n.json5").json, /unknown config key '\$schema'/);
});

Deno.test("json schema: broken configs are rejected with the offending place", () => {
  const cases: [string, string, RegExp][] = [
    [
      "wrong type",
      GOOD.replace("csv_header_line: 2", 'csv_header_line: "2"'),
      /csv_header_line must be integer/,
    ],
    [
      "negative line",
      GOOD.replace("csv_header_line: 2", "csv_header_line: -1"),
      /csv_header_line must be >= 0/,
    ],
    [
      "boolean as text",
      GOOD.replace("combined_output: true", 'combined_output: "yes"'),
      /combined_output must be boolean/,
    ],
    [
      "unknown key",
      GOOD.replace('data_dir: ".",', 'data_dir: ".", data_folder: "x",'),
      /must NOT have additional properties/,
    ],
    ["unknown root key", GOOD.replace("maps:", "mapz:"), /must NOT have additional properties/],
    [
      "missing required",
      GOOD.replace('file_pattern_out: ".out.csv",', ""),
      /must have required property 'file_pattern_out'/,
    ],
    [
      "enum",
      GOOD.replace('csv_delimiter_in: ";",', 'csv_delimiter_in: ";", csv_text_quote_in: "triple",'),
      /must be equal to one of the allowed values/,
    ],
    [
      "two-char delimiter",
      GOOD.replace('csv_delimiter_in: ";"', 'csv_delimiter_in: ";;"'),
      /must NOT have more than 1 characters/,
    ],
    [
      "variable without $",
      GOOD.replace('input_schema: { $a: "[A]" }', 'input_schema: { a: "[A]" }'),
      /property name must be valid/,
    ],
    ["rule without rows", GOOD.replace("rows: [{ $b: \"'x'\" }]", "rowz: []"), /required property 'rows'/],
    ["no templates", "{ conversion_templates: {} }", /must NOT have fewer than 1 properties/],
  ];
  for (const [what, text, message] of cases) {
    assert.equal(validate(plain(text)), false, `${what} should be rejected`);
    assert.match(errors(), message, what);
  }
});

Deno.test("json schema: descriptions, enums and defaults come from the schema table", () => {
  // deno-lint-ignore no-explicit-any
  const s = configJsonSchema() as Record<string, any>;
  const t = s.properties.conversion_templates.additionalProperties;
  assert.equal(t.properties.csv_text_quote_in.default, "double");
  assert.deepEqual(t.properties.csv_text_quote_in.enum, ["none", "single", "double"]);
  assert.equal(t.properties.csv_header_line.default, 1);
  assert.equal(t.properties.date_filter_from_filename.default, false);
  assert.match(t.properties.csv_header_line.description, /1-based line of the CSV header/);
  assert.deepEqual(t.required, [
    "data_dir",
    "file_pattern_in",
    "file_pattern_out",
    "input_schema",
    "output_schema",
  ]);
});

Deno.test("json schema: docs/reference/config.schema.json is up to date (deno task docs)", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../docs/reference/config.schema.json", import.meta.url),
  );
  assert.equal(committed, configJsonSchemaText());
});
