/**
 * The `bxp_simulate` catalog entry: a real conversion through the co-located bxp-cli, answered within a
 * byte budget, with the full outputs and trace readable by run handle (`bxp_read_run`) and as resources
 * of the session. Its time limit defaults to one a client's per-call cut-off allows (about 60 s in
 * Claude Desktop), unless the call runs as a task.
 *
 * @module
 */

import { basename } from "../../util/host_path.ts";
import {
  type BxpTool,
  CONFIG_ARG,
  configText,
  isResult,
  PATH_ARG,
  readUnderRoot,
  required,
} from "./tool_kit.ts";
import { stringArg, type ToolArgs } from "./args.ts";
import { integerProp, objectSchema, stringProp } from "./schemas.ts";
import { SIMULATE_OUTPUT_SCHEMA } from "./simulate_schema.ts";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_LIMITS,
  DEFAULT_TIMEOUT_MS,
  MAX_BYTES,
  PROCESS_CONCURRENCY,
  RESIDENT_PROBE_OSES,
  RUN_IDLE_MS,
  SAMPLE_ROWS,
} from "../simulate/mod.ts";

/** Largest input file `bxp_simulate` reads through `csv_path` (inline `csv` is bounded by the message cap). */
export const SIMULATE_CSV_PATH_MAX_BYTES = 64 * 1024 * 1024;

const MiB = 1024 * 1024;

/** An optional integer argument within `[min, max]`, or the message naming what is wrong. */
export function intArg(
  args: ToolArgs,
  name: string,
  min: number,
  max: number,
): { value: number | null } | { error: string } {
  const value = args?.[name];
  if (value === undefined || value === null) return { value: null };
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    return { error: `'${name}' must be an integer from ${min} to ${max}` };
  }
  return { value };
}

/** `bxp_simulate`. */
export const SIMULATE_TOOL: BxpTool = {
  name: "bxp_simulate",
  title: "Simulate a conversion",
  description: "Run a real end-to-end conversion: the config (JSON5) and the input CSV are staged in a " +
    "fresh private workspace and the chosen template runs through bxp-cli. Answers input and output " +
    "record counts; per output file its size, SHA-256 and first rows (sample_rows); bxp-cli's summary, " +
    "diagnostics and findings; and a per-row trace from the BXTB sidecar: which input rows were written, " +
    "filtered (rule_skip or no_rule_match) or failed, each with its 1-based input line. The whole answer " +
    "fits in max_bytes (what was cut is listed in 'cut'); the answer's 'run' handle reads the full " +
    "outputs, the trace and the whole report in pages with bxp_read_run, in any later request (it " +
    `expires ${RUN_IDLE_MS / 60000} min after its last use); legacy sessions also get them as ` +
    "bxp-sim:// resources. It verifies what bxp_eval and bxp_validate cannot (pre_pass, LOOKUP, " +
    "row_rules). CSV-input templates only. " +
    `Limits: ${DEFAULT_CALL_TIMEOUT_MS / 1000} s per run by default, so the call ends before the about ` +
    `60 s many clients allow one tool call; timeout_seconds raises it to at most ${
      DEFAULT_TIMEOUT_MS / 1000
    } s ` +
    "(a client that waits that long, or resets its timeout on progress), and a call run as a task " +
    `(tasks extension) gets ${DEFAULT_TIMEOUT_MS / 1000} s by default; ` +
    `${DEFAULT_LIMITS.diskBudgetBytes / MiB} MiB of ` +
    `outputs and trace per run (bxp-cli is killed beyond it); a ${DEFAULT_LIMITS.heapMiB} MiB heap for ` +
    `bxp-cli and, on ${RESIDENT_PROBE_OSES}, ${DEFAULT_LIMITS.residentMiB} MiB of resident memory for its ` +
    `whole process (killed beyond it: 'memory limit'); ${DEFAULT_LIMITS.perSession} runs at once per session and ${PROCESS_CONCURRENCY} per ` +
    `server (later calls queue; queued_ms says how long); the last ${DEFAULT_LIMITS.keepRuns} runs ` +
    `(${DEFAULT_LIMITS.keepBytes / MiB} MiB) are kept for reading. ok:true means the run took place; ` +
    "read exit_code/status/diagnostics for its outcome (0 ok, 2 warnings, 1 error).",
  inputSchema: objectSchema({
    config: CONFIG_ARG,
    template: stringProp("The id of the conversion template to run."),
    csv: stringProp("The input CSV text; it becomes the run's only input file. Give this or csv_path."),
    file_name: stringProp(
      "With csv: the input's file name, as a real run would see it (FILENAME(), dates taken from the " +
        "file name). A plain name ending with the template's file_pattern_in; default input<file_pattern_in>.",
    ),
    workspace: stringProp(
      "Optional label for the run (default: the template id). Every call runs in its own fresh " +
        "workspace; the label only prefixes its id.",
    ),
    path: PATH_ARG,
    csv_path: stringProp(
      "Instead of csv: an input file's path relative to the project root, staged byte for byte under " +
        `its own file name; at most ${SIMULATE_CSV_PATH_MAX_BYTES / MiB} MiB, read through the root guard.`,
    ),
    sample_rows: {
      ...integerProp(
        `Data rows shown per output file and per trace category (default ${SAMPLE_ROWS.default}, at most ` +
          `${SAMPLE_ROWS.max}).`,
      ),
      minimum: 0,
      maximum: SAMPLE_ROWS.max,
    },
    timeout_seconds: {
      ...integerProp(
        `Time limit of the run in seconds (default ${DEFAULT_CALL_TIMEOUT_MS / 1000}, or ` +
          `${DEFAULT_TIMEOUT_MS / 1000} when the call runs as a task; 1 to ${DEFAULT_TIMEOUT_MS / 1000}). ` +
          "Above about 55 only when the client waits longer than 60 s for a tool call.",
      ),
      minimum: 1,
      maximum: DEFAULT_TIMEOUT_MS / 1000,
    },
    max_bytes: {
      ...integerProp(
        `Byte budget of the whole answer (default ${MAX_BYTES.default}, from ${MAX_BYTES.min} to ` +
          `${MAX_BYTES.max}); samples, then texts, are cut to fit and 'cut' says what was cut.`,
      ),
      minimum: MAX_BYTES.min,
      maximum: MAX_BYTES.max,
    },
  }, ["template"]),
  outputSchema: SIMULATE_OUTPUT_SCHEMA,
  allowStructured: true,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, call, context) {
    const config = await configText(args, call, context);
    if (isResult(config)) return config;
    const template = required(args, call, "template");
    if (typeof template !== "string") return template;
    const sampleRows = intArg(args, "sample_rows", 0, SAMPLE_ROWS.max);
    if ("error" in sampleRows) return call.fail(sampleRows.error);
    const maxBytes = intArg(args, "max_bytes", MAX_BYTES.min, MAX_BYTES.max);
    if ("error" in maxBytes) return call.fail(maxBytes.error);
    const cap = context.simulator.maxTimeoutMs;
    const timeout = intArg(args, "timeout_seconds", 1, Math.max(1, Math.floor(cap / 1000)));
    if ("error" in timeout) return call.fail(timeout.error);
    // A task is polled, so no per-call client cut-off applies to it: it gets the whole limit.
    const timeoutMs = timeout.value !== null
      ? timeout.value * 1000
      : call.task === true
      ? cap
      : Math.min(DEFAULT_CALL_TIMEOUT_MS, cap);
    const inline = stringArg(args, "csv");
    const csvPath = stringArg(args, "csv_path");
    const fileName = stringArg(args, "file_name");
    if (inline !== null && csvPath !== null) return call.fail("give either 'csv' or 'csv_path', not both");
    if (fileName !== null && csvPath !== null) {
      return call.fail("'file_name' goes with 'csv'; with 'csv_path' the file's own name is used");
    }
    let csv: string | Uint8Array;
    let name: string | null = fileName;
    if (inline !== null) {
      csv = inline;
    } else if (csvPath !== null) {
      const read = await readUnderRoot(
        call,
        context,
        csvPath,
        (root) => root.readFile(csvPath, { maxBytes: SIMULATE_CSV_PATH_MAX_BYTES, what: "CSV input" }),
      );
      if (isResult(read)) return read;
      csv = read.bytes;
      name = basename(read.relative);
    } else {
      return call.fail(
        "missing 'csv' (the input CSV text), or give 'csv_path' (a file under the project root)",
      );
    }
    return context.simulator.simulate(
      {
        config: config.text,
        template,
        csv,
        workspace: stringArg(args, "workspace"),
        fileName: name,
        sampleRows: sampleRows.value ?? undefined,
        maxBytes: maxBytes.value ?? undefined,
        timeoutMs,
      },
      call,
    );
  },
};
