import assert from "node:assert/strict";
import { CONFIG_SCHEMA } from "../../src/config/schema.ts";
import { docsJson } from "../../src/inspect/docs.ts";
import { FUNCTIONS } from "../../src/lang/mod.ts";

Deno.test("docs: bxp's top-level key order, indent 2, trailing newline", () => {
  const text = docsJson();
  assert.ok(text.endsWith("}\n"));
  assert.ok(text.startsWith('{\n  "functions": [\n'));
  const docs = JSON.parse(text);
  assert.deepEqual(Object.keys(docs), [
    "functions",
    "keywords",
    "operators",
    "tokens",
    "date_tokens",
    "precedence",
    "config_schema",
  ]);
});

Deno.test("docs: lists every registry function and every schema key, and nothing else", () => {
  const docs = JSON.parse(docsJson());
  assert.deepEqual(docs.functions.map((f: { name: string }) => f.name), FUNCTIONS.map((f) => f.name));
  assert.deepEqual(docs.config_schema.map((e: { key: string }) => e.key), CONFIG_SCHEMA.map((f) => f.key));
  const entry = docs.config_schema.find((e: { key: string }) =>
    e.key === "conversion_templates.*.output_schema.*"
  );
  assert.deepEqual(Object.keys(entry), [
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
  assert.equal(entry.insert_template, "$variable");
  const rows = docs.config_schema.find((e: { key: string }) =>
    e.key === "conversion_templates.*.row_rules.*.rows"
  );
  assert.deepEqual(rows.insert_template, [{}]);
});
