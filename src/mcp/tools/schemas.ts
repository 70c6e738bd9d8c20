/**
 * JSON Schema builders and the output schemas of the tools whose answer has a fixed shape. Input schemas
 * are exact (`additionalProperties: false`): registration refuses unknown argument names. Output schemas
 * list as `required` the members every answer of the tool has (a refusal such as
 * `{"ok":false,"error","detail"}` included), and clients validate structured content against them.
 *
 * @module
 */

// The section names alone, not the reference: tools/list is answered before the language is loaded.
import { DOCS_SECTIONS } from "../../inspect/docs_sections.ts";

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** `{type:"string"}` with a description. */
export const stringProp = (description?: string): JsonSchema =>
  description === undefined ? { type: "string" } : { type: "string", description };

/** An array of strings with a description. */
export const stringArrayProp = (description: string): JsonSchema => ({
  type: "array",
  items: { type: "string" },
  description,
});

/** An integer member, optionally described. */
export const integerProp = (description?: string): JsonSchema =>
  description === undefined ? { type: "integer" } : { type: "integer", description };

/**
 * An exact object schema: `properties`, `required` when non-empty, and `additionalProperties: false`.
 *
 * @example
 * ```ts
 * import { objectSchema, stringProp } from "./schemas.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   objectSchema({ expr: stringProp() }, ["expr"]),
 *   { type: "object", properties: { expr: { type: "string" } }, required: ["expr"], additionalProperties: false },
 * );
 * ```
 */
export function objectSchema(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return required.length === 0
    ? { type: "object", properties, additionalProperties: false }
    : { type: "object", properties, required, additionalProperties: false };
}

/** An output object schema: like {@link objectSchema} but open (answers may grow members). */
export function answerSchema(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return required.length === 0 ? { type: "object", properties } : { type: "object", properties, required };
}

/** The inputSchema of a tool without arguments. */
export const NO_ARGUMENTS: JsonSchema = {
  type: "object",
  properties: {},
  required: [],
  additionalProperties: false,
};

/**
 * `maps` of the expression tools, declared as a flat list of entries: one type per member and no
 * schema-valued `additionalProperties`, the shapes Gemini's function declarations and the clients' schema
 * rewriters keep (see `tests/mcp/tools/schema_portability_test.ts`). bxp's `{name: {key: value}}` object is
 * still accepted ({@link LEGACY_EXPR_SHAPES}).
 */
export const MAPS_PROP: JsonSchema = {
  type: "array",
  items: objectSchema({
    map: stringProp("The map's name, as REMAP / REPLACE name it."),
    key: stringProp("The text to find (REMAP: the whole value; REPLACE: a substring)."),
    value: stringProp("What it becomes."),
  }, ["map", "key", "value"]),
  description:
    'Optional named maps for REMAP (whole value) and REPLACE (substrings), one entry per key, e.g. [{"map":"' +
    'sym","key":"BTC","value":"BTC-EUR"}]; entries keep their order (REPLACE tries them in order). ' +
    "A config's maps section as an object { name: { key: value } } is accepted too.",
};

/**
 * `lookups` of the expression tools: one entry per pre_pass value, declared like {@link MAPS_PROP}. bxp's
 * flat object keyed by name, key and field joined by NUL characters is still accepted.
 */
export const LOOKUPS_PROP: JsonSchema = {
  type: "array",
  items: objectSchema({
    pre_pass: stringProp("The pre_pass block's name."),
    key: stringProp("The lookup key (the pre_pass key column's value)."),
    field: stringProp("The field LOOKUP reads."),
    value: stringProp("The field's value for that key."),
  }, ["pre_pass", "key", "field", "value"]),
  description: "Optional pre_pass lookup table for LOOKUP(), one entry per value, e.g. " +
    '[{"pre_pass":"rates","key":"EUR","field":"rate","value":"1.1"}]. bxp\'s flat object form ' +
    '{"rates\\u0000EUR\\u0000rate": "1.1"} (name, key and field joined by NUL) is accepted too.',
};

/** A `headers` / `fields` row as declared: an array of strings (a JSON-encoded array string is accepted). */
export const rowProp = (description: string): JsonSchema => ({
  type: "array",
  items: { type: "string" },
  description: `${description} A JSON-encoded array string is accepted too (older clients).`,
});

/**
 * What the expression tools accept beyond what they declare: the shapes bxp and earlier bxp-mcp versions
 * declared (a row as a JSON-encoded string, bxp's map and lookup objects), and any of the structured
 * arguments JSON-encoded in a string (a client rewriter that degrades an array to a string, as Cline's
 * Gemini adapter does with nested arrays, still gets through). Checked instead of the declared schema.
 */
export const LEGACY_EXPR_SHAPES: Readonly<Record<string, JsonSchema>> = {
  headers: { type: ["array", "string"], items: { type: "string" } },
  fields: { type: ["array", "string"], items: { type: "string" } },
  exprs: { type: ["array", "string"], items: { type: "string" } },
  maps: {
    type: ["array", "object", "string"],
    items: MAPS_PROP.items,
    additionalProperties: { type: "object", additionalProperties: { type: "string" } },
  },
  lookups: {
    type: ["array", "object", "string"],
    items: LOOKUPS_PROP.items,
    additionalProperties: { type: "string" },
  },
};

/** `single_prepass_name` of the expression tools. */
export const SINGLE_PREPASS_PROP: JsonSchema = {
  type: "string",
  description: "Optional name of the template's only pre_pass, enabling the two-argument LOOKUP(key, field).",
};

/**
 * The run's dialect for the expression tools: the template an evaluation takes its decimal separator,
 * maps, sheet name and output quote from, the config holding it (inline or by path), and the decimal
 * separator on its own. One type each, like every argument (see `schema_portability_test.ts`).
 */
export const DIALECT_PROPS: Readonly<Record<string, JsonSchema>> = {
  decimal_separator: {
    type: "string",
    enum: [".", ","],
    description: "Optional: the input's decimal separator, the template's csv_decimal_separator_in. With " +
      '"," a field read such as [Amount] of 172,50 (or 1.234,50) is the number 172.50, as in the run; a ' +
      "text literal is left as written, as in the run. Overrides the template's.",
  },
  template: stringProp(
    "Optional: the id of the template whose csv_decimal_separator_in, maps (the config's maps with the " +
      "template's over them), xlsx_sheet name and csv_text_quote_out the evaluation takes, so a value " +
      "tried on a bxp_peek_csv row reads as it does in the run. Looked up in config or path (which may " +
      "then leave it out when it holds one template), else in the template library " +
      "(bxp_list_templates). maps given here replace the template's of the same name.",
  ),
  config: stringProp("Optional: the bxp-cli config text (JSON5) holding template. Give this or path."),
  path: stringProp(
    "Optional, instead of config: the config file's path relative to the project root (bxp-mcp --root), " +
      "e.g. configs/bank.json5, read through the root guard.",
  ),
};

/** An expression verdict or value: `{ok,value}` or `{ok:false,error,detail,off?,len?}`. */
const exprOutcome: Record<string, JsonSchema> = {
  ok: { type: "boolean" },
  value: stringProp(),
  error: stringProp("bxp error name, e.g. UnknownFunction."),
  detail: stringProp(),
  off: integerProp("Byte offset of the offending span in the expression."),
  len: integerProp("Byte length of the offending span."),
};

/** `bxp_validate_expr` and `bxp_eval`. */
export const EXPR_OUTCOME_SCHEMA: JsonSchema = answerSchema(exprOutcome, ["ok"]);

/** `bxp_eval_batch`. */
export const BATCH_SCHEMA: JsonSchema = answerSchema({
  results: { type: "array", items: answerSchema(exprOutcome, ["ok"]) },
}, ["results"]);

const finding: JsonSchema = answerSchema({
  severity: { type: "string", enum: ["error", "warning", "info"] },
  code: stringProp("Stable finding code, e.g. config.unknown_key or expr.UnknownFunction."),
  message: stringProp(),
  path: stringProp('Dotted config path of the finding, "" for the root.'),
  line: integerProp("1-based line in the config text (syntax errors, duplicate keys)."),
  column: integerProp("1-based column in the config text."),
  off: integerProp("Byte offset inside the expression string the finding is about."),
  len: integerProp("Byte length of that span."),
  suggest: stringProp("A did-you-mean or fix, when there is one."),
}, ["severity", "code", "message", "path"]);

/** `bxp_validate`: the verdict and flat findings beside bxp's annotated config. */
export const VALIDATE_SCHEMA: JsonSchema = answerSchema({
  ok: { type: "boolean", description: "true when the config has no error (warnings allowed)." },
  errors: integerProp(),
  warnings: integerProp(),
  infos: integerProp(),
  findings: { type: "array", items: finding },
  annotated: {
    type: "object",
    description: "bxp's annotated config (the text content): the config with $err_N / $warn_N / $info_N " +
      "markers before the keys they concern.",
  },
}, ["ok", "errors", "warnings", "infos", "findings", "annotated"]);

const nullableString: JsonSchema = { type: ["string", "null"] };

/** `bxp_list_templates` (a config that does not parse answers `{"$err_1": "..."}` instead). */
export const TEMPLATE_LIST_SCHEMA: JsonSchema = {
  ...answerSchema({
    templates: {
      type: "array",
      items: answerSchema({
        id: stringProp(),
        data_dir: nullableString,
        file_pattern_in: nullableString,
        file_pattern_out: nullableString,
        file_type_in: stringProp(),
        file_type_out: stringProp(),
        description: nullableString,
        error: stringProp("Present when the template entry is not an object."),
        source: stringProp('Library only: "program" or "user" when a templates folder provides it.'),
        file: stringProp("Library only: the file name in that templates folder."),
      }, ["id"]),
    },
  }),
  anyOf: [{ required: ["templates"] }, { required: ["$err_1"] }],
};

/**
 * `bxp_docs`: the sections are arrays of entry objects. No member is required: a `section` filter
 * answers only that section. (bxp_docs answers text only; this documents the shape.)
 */
export const DOCS_SCHEMA: JsonSchema = answerSchema(
  Object.fromEntries(DOCS_SECTIONS.map((k) => [k, { type: "array", items: { type: "object" } }])),
);

const sample = (fields: Record<string, JsonSchema>): JsonSchema =>
  answerSchema({ count: integerProp(), sample: { type: "array", items: answerSchema(fields) } });

const rowRef = {
  input_row: integerProp("1-based line of the input CSV (the header is line 1)."),
  source_offset: integerProp("Byte offset of the row in the input CSV."),
};

/** `bxp_simulate`: the run report, or `{ok:false,error,detail}`. */
export const SIMULATE_SCHEMA: JsonSchema = answerSchema({
  ok: { type: "boolean", description: "true when the run happened; false when it could not be started." },
  template: stringProp(),
  exit_code: integerProp("bxp-cli's exit code: 0 ok, 2 warnings, 1 error (-1 when ended by a signal)."),
  status: { type: "string", enum: ["ok", "warnings", "error"] },
  input: answerSchema({
    records: integerProp("Data rows of the input CSV (header excluded), comparable with trace.source_rows."),
    csv: stringProp(),
  }),
  output_records: integerProp(
    "Data rows over all output files (headers excluded), comparable with trace.written_rows.",
  ),
  outputs: {
    type: "array",
    items: answerSchema({
      file: stringProp(),
      records: integerProp(),
      csv: stringProp(),
      error: stringProp(
        "Given instead of records/csv when the file could not be read back (e.g. over 16 MiB).",
      ),
    }),
  },
  summary: stringProp("bxp-cli's stdout."),
  diagnostics: stringProp("bxp-cli's stderr."),
  trace: answerSchema({
    available: { type: "boolean" },
    source_rows: integerProp(),
    written_rows: integerProp(),
    errors: integerProp(),
    warnings: integerProp(),
    filtered: sample({ ...rowRef, reason: stringProp() }),
    row_errors: sample({
      ...rowRef,
      variable: stringProp(),
      kind: stringProp(),
      detail: stringProp(),
      origin: stringProp(),
    }),
    output_rows: sample({ ...rowRef, output_idx: integerProp(), rule: integerProp(), action: stringProp() }),
    prepass_entries: integerProp(),
  }),
  workspace: stringProp("The scratch workspace folder, left in place for inspection."),
  error: stringProp("Why the run could not happen (ok:false)."),
  detail: stringProp(),
}, ["ok"]);
