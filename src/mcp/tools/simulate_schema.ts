/**
 * The output schema of `bxp_simulate`: the bounded run report, or `{ok:false,error,detail}`. Open objects
 * (answers may grow members) with no required member besides `ok`, since a refusal has the short shape.
 *
 * @module
 */

import type { JsonSchema } from "./schemas.ts";

const str = (description?: string): JsonSchema =>
  description === undefined ? { type: "string" } : { type: "string", description };
const int = (description?: string): JsonSchema =>
  description === undefined ? { type: "integer" } : { type: "integer", description };
const obj = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema =>
  required.length === 0 ? { type: "object", properties } : { type: "object", properties, required };
const sample = (fields: Record<string, JsonSchema>): JsonSchema =>
  obj({ count: int("Exact count over the whole run."), sample: { type: "array", items: obj(fields) } });

const rowRef = {
  input_row: int("1-based line of the input CSV (the header is line 1)."),
  source_offset: int("Byte offset of the row in the input CSV."),
};

/** `bxp_simulate`'s structured answer. */
export const SIMULATE_OUTPUT_SCHEMA: JsonSchema = obj({
  ok: { type: "boolean", description: "true when the run happened; false when it could not be started." },
  template: str(),
  exit_code: int("bxp-cli's exit code: 0 ok, 2 warnings, 1 error (-1 when ended by a signal)."),
  status: { type: "string", enum: ["ok", "warnings", "error"] },
  input: obj({
    file: str("The staged input's file name (csv_path's base name, file_name, or input<file_pattern_in>)."),
    bytes: int(),
    records: int("Records bxp-cli read (trace.source_rows; counted from the lines when there is no trace)."),
    records_from: { type: "string", enum: ["trace", "lines"] },
    data_lines: int("Non-empty lines after the first line of the input CSV."),
    not_records: str("Why records and data_lines differ (absent when they agree)."),
  }),
  output_records: int(
    "Data rows over all output files (headers excluded), comparable with trace.written_rows.",
  ),
  outputs: {
    type: "array",
    items: obj({
      file: str(),
      records: int("Data rows of the whole file."),
      bytes: int("Size of the whole file."),
      sha256: str("Hex SHA-256 of the whole file."),
      rows_shown: int("Data rows included in csv."),
      complete: { type: "boolean", description: "true when csv is the whole file." },
      csv: str("The header and the first rows_shown data rows."),
      uri: str("bxp-sim:// resource holding the whole file, in pages (resources/read)."),
      error: str("Given instead of the counts when the file could not be read back."),
    }),
  },
  outputs_total: int("Number of output files when the list was cut to fit max_bytes."),
  summary: str("bxp-cli's stdout."),
  diagnostics: str("bxp-cli's stderr (progress lines removed)."),
  findings: {
    type: "array",
    description:
      "bxp-cli's findings: code, template, message, and file, column, rule, record where they apply.",
    items: obj({
      code: str(),
      template: str(),
      file: str(),
      column: str(),
      rule: int(),
      record: int("The 1-based record the finding is about (unquoted_delimiter: the first)."),
      message: str(),
    }),
  },
  findings_total: int("Number of findings when the list was cut to fit max_bytes."),
  trace: obj({
    available: { type: "boolean" },
    source_rows: int(),
    written_rows: int(),
    errors: int(),
    warnings: int(),
    filtered: sample({ ...rowRef, reason: str() }),
    row_errors: sample({ ...rowRef, variable: str(), kind: str(), detail: str(), origin: str() }),
    output_rows: sample({ ...rowRef, output_idx: int(), rule: int(), action: str() }),
    prepass_entries: int(),
    uri: str("bxp-sim:// resource holding the whole trace as text lines, in pages."),
  }),
  workspace: str("The run id (the private workspace's name); its resources use it."),
  queued_ms: int("How long the call waited for a free simulation slot."),
  kept: { type: "boolean", description: "Whether the outputs and trace stay readable as resources." },
  run: str("The run handle (when kept): pass it as 'run' to bxp_read_run, in any later request."),
  run_expires_after_idle_s: int("Seconds without a read after which the run and its handle are gone."),
  limits: { type: "object", additionalProperties: { type: "integer" } },
  cut: { type: "array", items: str(), description: "What was cut to fit max_bytes (empty when nothing)." },
  error: str("Why the run could not happen (ok:false)."),
  detail: str(),
  available: { type: "array", items: str(), description: "The config's template ids (template not found)." },
}, ["ok"]);
