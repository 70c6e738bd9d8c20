/**
 * A JSON Schema (draft 2020-12) of bxp configs, generated from THE config-schema table
 * (`schema.ts`): every key with its description, type, allowed words and default, unknown keys refused
 * at the levels bxp checks. Editors use it for completion and squiggles (`deno task docs` writes it to
 * `docs/reference/config.schema.json`); bxp's own validation stays the authority — the schema cannot see
 * expressions, cross-template rules or the file system.
 *
 * @example
 * ```ts
 * import { configJsonSchema } from "./json_schema.ts";
 * import assert from "node:assert/strict";
 * const schema = configJsonSchema();
 * assert.deepEqual(schema.required, ["conversion_templates"]);
 * ```
 * @module
 */

import { childKeys, type FieldDoc, schemaEntry } from "./schema.ts";

/** A JSON Schema document or sub-schema. */
export type JsonSchemaNode = Record<string, unknown>;

const T = "conversion_templates.*";

/** The default's text from the table as the JSON value of the key's type. */
function defaultValue(f: FieldDoc): unknown {
  if (f.default === null) return undefined;
  if (f.rule === "boolean") return f.default === "true";
  if (f.rule === "u32") return Number(f.default);
  return f.default;
}

function annotate(f: FieldDoc | undefined, node: JsonSchemaNode): JsonSchemaNode {
  if (f === undefined) return node;
  const out: JsonSchemaNode = { description: f.description, ...node };
  const def = defaultValue(f);
  if (def !== undefined) out.default = def;
  return out;
}

/** The schema of a scalar by its validation rule. */
function scalar(f: FieldDoc): JsonSchemaNode {
  switch (f.rule) {
    case "boolean":
      return { type: "boolean" };
    case "u32":
      return { type: "integer", minimum: 0, maximum: 4294967295 };
    case "enum":
      return { type: "string", enum: [...(f.enum_values ?? [])] };
    case "single_char":
      // Any one character; the listed ones are the usual choices (offered for completion).
      return {
        type: "string",
        minLength: 1,
        maxLength: 1,
        ...(f.enum_values ? { examples: [...f.enum_values] } : {}),
      };
    case "expression":
      return { type: "string", description: "A bxp expression." };
    default:
      return { type: "string" };
  }
}

/** `name -> text` tables (the `maps` entries). */
function mapsSchema(f: FieldDoc | undefined): JsonSchemaNode {
  return annotate(f, {
    type: "object",
    additionalProperties: annotate(schemaEntry("maps.*"), {
      type: "object",
      additionalProperties: { type: "string" },
    }),
  });
}

/** An object whose named children come from the table, closed to other keys. */
function closedObject(path: string, overrides: Record<string, JsonSchemaNode> = {}): JsonSchemaNode {
  const properties: Record<string, JsonSchemaNode> = {};
  const required: string[] = [];
  for (const key of childKeys(path)) {
    const full = path === "" ? key : `${path}.${key}`;
    const f = schemaEntry(full)!;
    properties[key] = overrides[key] ??
      annotate(f, f.rule === "object" || f.rule === "array" ? {} : scalar(f));
    if (f.required) required.push(key);
  }
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** A `$variable -> expression` object (input_schema, a rule's output row). */
function variables(description: string | undefined): JsonSchemaNode {
  return {
    type: "object",
    ...(description ? { description } : {}),
    propertyNames: { pattern: "^\\$" },
    additionalProperties: { type: "string", description: "A bxp expression." },
  };
}

function prePassSchema(): JsonSchemaNode {
  const block = closedObject(`${T}.pre_pass.*`, {
    values: annotate(schemaEntry(`${T}.pre_pass.*.values`), {
      type: "object",
      additionalProperties: scalar(schemaEntry(`${T}.pre_pass.*.values.*`)!),
    }),
    aggregate: annotate(schemaEntry(`${T}.pre_pass.*.aggregate`), {
      type: "object",
      additionalProperties: annotate(
        schemaEntry(`${T}.pre_pass.*.aggregate.*`),
        scalar(schemaEntry(`${T}.pre_pass.*.aggregate.*`)!),
      ),
    }),
  });
  const legacy = closedObject(`${T}.pre_pass`, {
    values: annotate(schemaEntry(`${T}.pre_pass.values`), {
      type: "object",
      additionalProperties: scalar(schemaEntry(`${T}.pre_pass.values.*`)!),
    }),
    aggregate: annotate(schemaEntry(`${T}.pre_pass.aggregate`), {
      type: "object",
      additionalProperties: annotate(
        schemaEntry(`${T}.pre_pass.aggregate.*`),
        scalar(schemaEntry(`${T}.pre_pass.aggregate.*`)!),
      ),
    }),
  });
  // The loader reads one legacy block when any of when/key/values is present, else named blocks.
  const legacyRequired = ["when", "key", "values"];
  return annotate(schemaEntry(`${T}.pre_pass`), {
    oneOf: [
      { ...legacy, required: legacyRequired },
      {
        type: "object",
        propertyNames: { not: { enum: legacyRequired } },
        additionalProperties: annotate(schemaEntry(`${T}.pre_pass.*`), block),
      },
    ],
  });
}

function templateSchema(): JsonSchemaNode {
  const rule = closedObject(`${T}.row_rules.*`, {
    rows: annotate(schemaEntry(`${T}.row_rules.*.rows`), {
      type: "array",
      items: variables(schemaEntry(`${T}.row_rules.*.rows.*`)?.description),
    }),
  });
  return closedObject(T, {
    maps: mapsSchema(schemaEntry(`${T}.maps`)),
    xlsx_sheet: annotate(schemaEntry(`${T}.xlsx_sheet`), closedObject(`${T}.xlsx_sheet`)),
    zip_input: annotate(schemaEntry(`${T}.zip_input`), closedObject(`${T}.zip_input`)),
    pre_pass: prePassSchema(),
    input_schema: annotate(schemaEntry(`${T}.input_schema`), variables(undefined)),
    output_schema: annotate(schemaEntry(`${T}.output_schema`), {
      type: "object",
      additionalProperties: annotate(schemaEntry(`${T}.output_schema.*`), { type: "string" }),
    }),
    data_dir: annotate(schemaEntry(`${T}.data_dir`), {
      oneOf: [
        { type: "string", minLength: 1 },
        { type: "array", items: { type: "string", minLength: 1 }, minItems: 1, uniqueItems: true },
      ],
    }),
    fill_down: annotate(schemaEntry(`${T}.fill_down`), {
      type: "array",
      items: { type: "string", minLength: 1 },
    }),
    row_rules: annotate(schemaEntry(`${T}.row_rules`), {
      type: "array",
      items: annotate(schemaEntry(`${T}.row_rules.*`), rule),
    }),
  });
}

/** The whole JSON Schema document. */
export function configJsonSchema(): JsonSchemaNode {
  const root = closedObject("", {
    maps: mapsSchema(schemaEntry("maps")),
    conversion_templates: annotate(schemaEntry("conversion_templates"), {
      type: "object",
      minProperties: 1,
      additionalProperties: annotate(schemaEntry(T), templateSchema()),
    }),
  });
  const properties = root.properties as Record<string, JsonSchemaNode>;
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "bxp-cli config",
    description: "A bxp-cli conversion config (JSON5). Generated from bxp's config-schema table.",
    ...root,
    properties: {
      $schema: { type: "string", description: "The JSON Schema this file follows (ignored by bxp)." },
      ...properties,
    },
  };
}

/** The schema as the text `docs/reference/config.schema.json` holds (two-space JSON, final newline). */
export function configJsonSchemaText(): string {
  return JSON.stringify(configJsonSchema(), null, 2) + "\n";
}
