/**
 * The `bxp_simulate` catalog entry: a real conversion through the co-located bxp-cli.
 *
 * @module
 */

import {
  type BxpTool,
  CONFIG_ARG,
  configText,
  CSV_PATH_MAX_BYTES,
  isResult,
  PATH_ARG,
  readUnderRoot,
  required,
} from "./tool_kit.ts";
import { stringArg } from "./args.ts";
import { objectSchema, SIMULATE_SCHEMA, stringProp } from "./schemas.ts";

/** `bxp_simulate`. */
export const SIMULATE_TOOL: BxpTool = {
  name: "bxp_simulate",
  title: "Simulate a conversion",
  description: "Run a real end-to-end conversion: the config (JSON5) and the input CSV are staged in a " +
    "scratch workspace and the chosen template runs through bxp-cli. Answers the produced output, " +
    "input and output record counts, bxp-cli's summary and diagnostics, and a per-row trace from the " +
    "BXTB sidecar: which input rows were written, filtered (with the reason: rule_skip or " +
    "no_rule_match) or failed, each with its 1-based input line number. It verifies what bxp_eval and " +
    "bxp_validate cannot (pre_pass, LOOKUP, row_rules). CSV-input templates only. ok:true means the run " +
    "took place; read exit_code/status/diagnostics for its outcome (0 ok, 2 warnings, 1 error).",
  inputSchema: objectSchema({
    config: CONFIG_ARG,
    template: stringProp("The id of the conversion template to run."),
    csv: stringProp("The input CSV text; it becomes the run's only input file. Give this or csv_path."),
    workspace: stringProp(
      "Optional scratch workspace id (default: the template id). The same id " +
        "reuses the same folder, so repeated runs do not litter the temp folder.",
    ),
    path: PATH_ARG,
    csv_path: stringProp(
      "Instead of csv: an input file's path relative to the project root, staged byte for byte " +
        "(any encoding the template declares); at most 16 MiB, read through the root guard.",
    ),
  }, ["template"]),
  outputSchema: SIMULATE_SCHEMA,
  allowStructured: true,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, call, context) {
    const config = await configText(args, call, context);
    if (isResult(config)) return config;
    const template = required(args, call, "template");
    if (typeof template !== "string") return template;
    const inline = stringArg(args, "csv");
    const csvPath = stringArg(args, "csv_path");
    if (inline !== null && csvPath !== null) return call.fail("give either 'csv' or 'csv_path', not both");
    let csv: string | Uint8Array;
    if (inline !== null) {
      csv = inline;
    } else if (csvPath !== null) {
      const read = await readUnderRoot(
        call,
        context,
        csvPath,
        (root) => root.readFile(csvPath, { maxBytes: CSV_PATH_MAX_BYTES, what: "CSV input" }),
      );
      if (isResult(read)) return read;
      csv = read.bytes;
    } else {
      return call.fail("missing 'csv'");
    }
    return context.simulator.simulate(
      { config: config.text, template, csv, workspace: stringArg(args, "workspace") },
      call,
    );
  },
};
