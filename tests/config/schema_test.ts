import assert from "node:assert/strict";
import {
  childKeys,
  CONFIG_SCHEMA,
  DIAGNOSTIC_CODES,
  docFields,
  schemaEntry,
} from "../../src/config/schema.ts";
import { parseJson5 } from "../../src/config/json5.ts";

Deno.test("schema: keys are unique and every bxp template key is present", () => {
  const keys = CONFIG_SCHEMA.map((f) => f.key);
  assert.equal(new Set(keys).size, keys.length);
  for (
    const k of [
      "data_dir",
      "file_type_in",
      "file_type_out",
      "file_pattern_in",
      "file_pattern_out",
      "csv_header_line",
      "csv_delimiter_in",
      "csv_delimiter_out",
      "csv_decimal_separator_in",
      "csv_decimal_separator_out",
      "csv_text_quote_in",
      "csv_text_quote_out",
      "csv_input_encoding",
      "csv_output_encoding",
      "maps",
      "date_filter_from_filename",
      "combined_output",
      "row_rules_debug_missing",
      "xlsx_sheet",
      "zip_input",
      "pre_pass",
      "input_schema",
      "output_schema",
      "row_rules",
    ]
  ) assert.ok(schemaEntry(`conversion_templates.*.${k}`), k);
  assert.deepEqual(childKeys(""), ["maps", "conversion_templates"]);
  assert.deepEqual(childKeys("conversion_templates.*.xlsx_sheet"), ["name", "header_row", "output_suffix"]);
  assert.deepEqual(childKeys("conversion_templates.*.zip_input"), [
    "entry_pattern",
    "dir_mode",
    "path_separator",
  ]);
  // bxp's keys first, in bxp's order; `aggregate` is ours (see differences-from-bxp.md).
  assert.deepEqual(childKeys("conversion_templates.*.pre_pass"), ["when", "key", "values", "aggregate"]);
  assert.deepEqual(childKeys("conversion_templates.*.pre_pass.*"), ["when", "key", "values", "aggregate"]);
  assert.deepEqual(childKeys("conversion_templates.*.row_rules.*"), ["when", "rows"]);
});

Deno.test("schema: envelope entries come first, in bxp's order", () => {
  assert.deepEqual(CONFIG_SCHEMA.slice(0, 4).map((f) => f.key), [
    "maps",
    "maps.*",
    "conversion_templates",
    "conversion_templates.*",
  ]);
  assert.equal(CONFIG_SCHEMA[14].key, "conversion_templates.*.data_dir");
});

Deno.test("schema: defaults, enums and tags match bxp's FieldDoc facts", () => {
  assert.equal(schemaEntry("conversion_templates.*.csv_text_quote_in")?.default, "double");
  assert.equal(schemaEntry("conversion_templates.*.csv_text_quote_out")?.default, "none");
  assert.deepEqual(schemaEntry("conversion_templates.*.file_type_in")?.enum_values, ["csv", "json"]);
  assert.equal(schemaEntry("conversion_templates.*.output_schema.*")?.validator, "starts_with_dollar");
  assert.equal(schemaEntry("conversion_templates.*.output_schema.*")?.autocomplete, "input_schema_keys");
  assert.equal(schemaEntry("maps")?.insert_order, "alpha");
  assert.equal(schemaEntry("conversion_templates")?.ordered, true);
  assert.equal(schemaEntry("conversion_templates")?.required, true);
  assert.equal(schemaEntry("conversion_templates.*.zip_input.dir_mode")?.default, "basename");
});

Deno.test("schema: every insert_template is valid JSON5 and doc projection keeps bxp's field order", () => {
  for (const f of CONFIG_SCHEMA) {
    if (f.insert_template !== null) assert.equal(parseJson5(f.insert_template).error, null, f.key);
  }
  assert.deepEqual(Object.keys(docFields(CONFIG_SCHEMA[0])), [
    "key",
    "type_name",
    "required",
    "default",
    "description",
    "enum_values",
    "ordered",
    "insert_order",
    "insert_template",
    "validator",
    "autocomplete",
  ]);
  assert.ok(Object.keys(DIAGNOSTIC_CODES).every((c) => /^(json5|config|fs|expr)\./.test(c)));
});
