/**
 * The docs catalog (`bxp_docs`): the language reference followed by the config schema, two-space indented
 * with a trailing newline. Top-level keys in bxp's order: functions, keywords, operators, tokens,
 * date_tokens, precedence, config_schema.
 *
 * @example
 * ```ts
 * import { docsJson } from "./docs.ts";
 * JSON.parse(docsJson()).config_schema[0].key; // "maps"
 * ```
 * @module
 */

import { emitJson, fromNode, fromPlain, type OutValue } from "../config/emit.ts";
import { type JsonNode, parseJson5 } from "../config/json5.ts";
import { CONFIG_SCHEMA, docFields } from "../config/schema.ts";
import { languageDocs } from "../lang/mod.ts";

const LANGUAGE_SECTIONS = [
  "functions",
  "keywords",
  "operators",
  "tokens",
  "date_tokens",
  "precedence",
] as const;

/** The `config_schema` array: each entry's FieldDoc fields, insert templates emitted as JSON values. */
export function configSchemaValue(): OutValue {
  return {
    t: "array",
    items: CONFIG_SCHEMA.map((f) => {
      const { insert_template, ...rest } = docFields(f);
      const entries = (fromPlain(rest) as Extract<OutValue, { t: "object" }>).entries;
      const template: OutValue = insert_template === null
        ? { t: "null" }
        : fromNode(parseJson5(insert_template).value as JsonNode);
      // insert_template sits between insert_order and validator in bxp's field order.
      const at = entries.findIndex(([k]) => k === "validator");
      entries.splice(at, 0, ["insert_template", template]);
      return { t: "object", entries };
    }),
  };
}

/** The full docs JSON text. */
export function docsJson(): string {
  const docs = languageDocs() as unknown as Record<string, unknown>;
  const entries: [string, OutValue][] = LANGUAGE_SECTIONS.map((k) => [k, fromPlain(docs[k] ?? [])]);
  entries.push(["config_schema", configSchemaValue()]);
  return emitJson({ t: "object", entries }, 2) + "\n";
}
