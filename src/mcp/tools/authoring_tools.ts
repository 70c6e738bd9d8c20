/**
 * Authoring tools: drafting a config from a sample.
 *
 * `bxp_draft_template` sniffs a sample export (inline `csv` or `csv_path` under the project root) and
 * answers a commented JSON5 config that reads it as detected and writes every data row normalised, with
 * the detected settings and everything an author should check. It never writes a file (pair it with
 * `bxp_validate`, `bxp_simulate` and `bxp_write_config`).
 *
 * @module
 */

import { basename } from "../../util/host_path.ts";
import { parseEncoding } from "../../formats/encoding.ts";
import { stringArg } from "./args.ts";
import { loadToolCore } from "./core_loader.ts";
import { answerSchema, objectSchema, stringProp } from "./schemas.ts";
import { type BxpTool, isResult, READ_ONLY, readUnderRoot } from "./tool_kit.ts";

/** True when `s` holds a C0 control character (a file name never should). */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x20) return true;
  return false;
}

const TEMPLATE_ID = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * Bytes of a sample the drafter reads and sniffs (the sniffer's own default). The rest of a larger
 * sample is never read or encoded, so a call's time and memory stay small whatever the sample.
 */
export const DRAFT_SAMPLE_BYTES = 1024 * 1024;

/** The first `max` UTF-8 bytes of `text` and whether there was more (encoded without the rest). */
function headBytes(text: string, max: number): { bytes: Uint8Array; cut: boolean } {
  // One more byte than the sniffer reads tells it the sample was cut (it then looks for no footer).
  const buffer = new Uint8Array(max + 1);
  const { read, written } = new TextEncoder().encodeInto(text, buffer);
  return { bytes: buffer.subarray(0, written), cut: read < text.length };
}
const DELIMITERS = [",", ";", "\t", "|"];

/** `bxp_draft_template`. */
export const DRAFT_TEMPLATE_TOOL: BxpTool = {
  name: "bxp_draft_template",
  title: "Draft a config from a sample",
  description: "Drafts a bxp config from a sample export: detects encoding, delimiter, quote, decimal " +
    "separator and thousands grouping, the header line after a preamble, trailing total lines, and each " +
    "column's kind (integer, decimal, date with its bxp date format, boolean, text). Answers JSON: " +
    "{ok, template_id, config (commented JSON5: one $variable per column normalising it, a pass-through " +
    "rule, an output_schema), detected {...}, columns [...], notes [ambiguities to check], self_check " +
    "{ok, rows_in, rows_out, skipped by reason, expression_errors, findings, problems}: the draft run on " +
    "its own sample in memory}. Bounded: " +
    "the first MiB of the sample, its first 10000 records and 512 columns are examined (a note says " +
    "what was cut; detected.columns_total gives the header's width). Nothing is " +
    "written; validate with bxp_validate, try with bxp_simulate, save with bxp_write_config.",
  inputSchema: objectSchema({
    csv: stringProp("The sample's text (UTF-8). Give this or csv_path."),
    csv_path: stringProp(
      "Instead of csv: the sample's path relative to the project root; its bytes are read as they are, " +
        "so a windows-1250 export is detected as such. Only the first MiB is read.",
    ),
    file_name: stringProp("With csv: the sample's file name (gives the template id and file_pattern_in)."),
    template_id: stringProp(
      "The template id to use (letters, digits, underscores); default from the file name.",
    ),
    encoding: stringProp("Force an input encoding instead of detecting it (e.g. windows-1250)."),
    delimiter: stringProp("Force a delimiter instead of detecting it: one of , ; | or a tab."),
  }),
  outputSchema: answerSchema({
    ok: { type: "boolean" },
    template_id: { type: "string" },
    config: { type: "string" },
    detected: { type: "object" },
    columns: { type: "array" },
    notes: { type: "array", items: { type: "string" } },
    self_check: { type: "object" },
  }, ["ok"]),
  allowStructured: true,
  annotations: READ_ONLY,
  async run(args, call, context) {
    const inline = stringArg(args, "csv");
    const csvPath = stringArg(args, "csv_path");
    const fileName = stringArg(args, "file_name");
    const templateId = stringArg(args, "template_id");
    const encoding = stringArg(args, "encoding");
    const delimiter = stringArg(args, "delimiter");
    if (inline !== null && csvPath !== null) return call.fail("give either 'csv' or 'csv_path', not both");
    if (fileName !== null && csvPath !== null) {
      return call.fail("'file_name' goes with 'csv'; with 'csv_path' the file's own name is used");
    }
    if (templateId !== null && !TEMPLATE_ID.test(templateId)) {
      return call.fail(
        "'template_id' must be letters, digits and underscores (at most 128), not starting with a digit",
      );
    }
    if (encoding !== null && parseEncoding(encoding) === null) {
      return call.fail(`'encoding' ${JSON.stringify(encoding.slice(0, 40))} is not one bxp reads`);
    }
    if (delimiter !== null && !DELIMITERS.includes(delimiter)) {
      return call.fail("'delimiter' must be one of , ; | or a tab character");
    }
    if (fileName !== null && (fileName.length > 255 || /[\\/]/.test(fileName) || hasControl(fileName))) {
      return call.fail("'file_name' must be a plain file name (no folders, no control characters)");
    }
    let bytes: Uint8Array;
    let name: string;
    if (inline !== null) {
      bytes = headBytes(inline, DRAFT_SAMPLE_BYTES).bytes;
      name = fileName ?? "sample.csv";
    } else if (csvPath !== null) {
      // Only the head is read (plus one byte, so the sniffer knows there was more).
      const read = await readUnderRoot(
        call,
        context,
        csvPath,
        (root) => root.readHead(csvPath, { maxBytes: DRAFT_SAMPLE_BYTES + 1, what: "CSV sample" }),
      );
      if (isResult(read)) return read;
      bytes = read.bytes;
      name = basename(read.relative);
    } else {
      return call.fail(
        "missing 'csv' (the sample's text), or give 'csv_path' (a file under the project root)",
      );
    }
    const head = new TextDecoder().decode(bytes.subarray(0, 256)).replace(/^\uFEFF/, "").trimStart();
    if (head.startsWith("[") || head.startsWith("{")) {
      return call.fail("the sample looks like JSON; bxp_draft_template drafts configs for CSV exports only");
    }
    const core = await loadToolCore();
    const draft = core.draftConfig(bytes, {
      sampleName: name,
      maxBytes: DRAFT_SAMPLE_BYTES,
      ...(templateId === null ? {} : { templateId }),
      ...(encoding === null ? {} : { encoding }),
      ...(delimiter === null ? {} : { delimiter }),
    });
    const s = draft.sniff;
    if (s.columns.length === 0) {
      return {
        text: JSON.stringify({ ok: false, error: "the sample holds no header or records", notes: s.notes }),
      };
    }
    // The draft proves itself: run on its own sample in memory; the answer carries the result.
    // Loaded on first use (the engine's run is not part of the tool core; tool_core.ts is not this tool's).
    const { checkDraft } = await import("../../draft/mod.ts");
    const check = await checkDraft(draft, bytes, name);
    return {
      text: JSON.stringify({
        ok: true,
        template_id: draft.templateId,
        config: draft.text,
        detected: {
          encoding: s.encoding,
          bom: s.bom,
          delimiter: s.delimiter,
          quote: s.quote,
          decimal_separator: s.decimalSeparator,
          thousands: s.thousands,
          header_line: s.headerLine,
          preamble_lines: s.preambleLines,
          footer_lines: s.footerLines,
          data_records: s.dataRecords,
          truncated: s.truncated,
          columns_total: s.columnsTotal,
        },
        columns: s.columns.map((c, i) => ({
          name: c.name,
          kind: c.kind,
          ...(c.format === undefined ? {} : { format: c.format }),
          ...(c.booleans === undefined ? {} : { booleans: c.booleans }),
          variable: draft.columns[i].variable,
          expression: draft.columns[i].expression,
        })),
        notes: s.notes,
        self_check: check,
      }),
    };
  },
};

/** The authoring entries of the catalog, in listing order. */
export const AUTHORING_TOOLS: readonly BxpTool[] = [DRAFT_TEMPLATE_TOOL];
