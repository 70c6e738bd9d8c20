/**
 * JSON Schema builders and the output schemas of the tools whose answer has a fixed shape. Output schemas
 * name no `required` members: they describe every shape a tool answers (a refusal such as
 * `{"ok":false,"error","detail"}` included), and clients validate structured content against them.
 *
 * @module
 */

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

/** An object schema with `properties` and, when non-empty, `required`. */
export function objectSchema(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return required.length === 0 ? { type: "object", properties } : { type: "object", properties, required };
}

/** The inputSchema of a tool without arguments. */
export const NO_ARGUMENTS: JsonSchema = { type: "object", properties: {}, required: [] };

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
export const EXPR_OUTCOME_SCHEMA: JsonSchema = objectSchema(exprOutcome);

/** `bxp_eval_batch`. */
export const BATCH_SCHEMA: JsonSchema = objectSchema({
  results: { type: "array", items: objectSchema(exprOutcome) },
});

const nullableString: JsonSchema = { type: ["string", "null"] };

/** `bxp_list_templates` (a config that does not parse answers `{"$err_1": "..."}` instead). */
export const TEMPLATE_LIST_SCHEMA: JsonSchema = objectSchema({
  templates: {
    type: "array",
    items: objectSchema({
      id: stringProp(),
      data_dir: nullableString,
      file_pattern_in: nullableString,
      file_pattern_out: nullableString,
      file_type_in: stringProp(),
      file_type_out: stringProp(),
      description: nullableString,
      error: stringProp("Present when the template entry is not an object."),
    }),
  },
});

/** `bxp_docs`: the sections are arrays of entry objects. */
export const DOCS_SCHEMA: JsonSchema = objectSchema(
  Object.fromEntries(
    ["functions", "keywords", "operators", "tokens", "date_tokens", "precedence", "config_schema"].map((
      k,
    ) => [
      k,
      { type: "array", items: { type: "object" } },
    ]),
  ),
);

const sample = (fields: Record<string, JsonSchema>): JsonSchema =>
  objectSchema({ count: integerProp(), sample: { type: "array", items: objectSchema(fields) } });

const rowRef = {
  input_row: integerProp("1-based line of the input CSV (the header is line 1)."),
  source_offset: integerProp("Byte offset of the row in the input CSV."),
};

/** `bxp_simulate`: the run report, or `{ok:false,error,detail}`. */
export const SIMULATE_SCHEMA: JsonSchema = objectSchema({
  ok: { type: "boolean", description: "true when the run happened; false when it could not be started." },
  template: stringProp(),
  exit_code: integerProp("bxp-cli's exit code: 0 ok, 2 warnings, 1 error (-1 when ended by a signal)."),
  status: { type: "string", enum: ["ok", "warnings", "error"] },
  input: objectSchema({
    records: integerProp("Data rows of the input CSV (header excluded), comparable with trace.source_rows."),
    csv: stringProp(),
  }),
  output_records: integerProp(
    "Data rows over all output files (headers excluded), comparable with trace.written_rows.",
  ),
  outputs: {
    type: "array",
    items: objectSchema({
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
  trace: objectSchema({
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
});
