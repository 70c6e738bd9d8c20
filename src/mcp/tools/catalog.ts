/**
 * THE bxp tool catalog: one entry per tool, in bxp's order. The same table feeds `tools/list` and dispatch
 * ({@link registerBxpTools}), `bxp-mcp --help` and the generated page `docs/reference/mcp-tools.md`.
 * Adding a tool is adding an entry.
 *
 * Handlers answer with the inspect API's text. A missing or malformed argument is a tool failure
 * (`error: missing 'expr'`, isError); a domain verdict such as `{"ok":false,...}` is a normal answer.
 *
 * @module
 */

import {
  annotateConfig,
  docsJson,
  evalBatch,
  evalExpr,
  evalTrace,
  fetchTemplate,
  listTemplates,
  validateExprJson,
} from "../../inspect/mod.ts";
import type { McpServer, ToolCall, ToolResult } from "../protocol/mod.ts";
import type { Simulator } from "../simulate/mod.ts";
import { CONFIG_MAX_BYTES } from "../../config/json5.ts";
import { PathGuardError, type ProjectRoot } from "../security/paths.ts";
import {
  checkWriteTarget,
  CONFIG_WRITE_RULES,
  overwriteRefusal,
  writeChecked,
  WriteRefusedError,
} from "../security/safe_write.ts";
import { batchRequest, rowArgs, stringArg, type ToolArgs } from "./args.ts";
import {
  BATCH_SCHEMA,
  DOCS_SCHEMA,
  EXPR_OUTCOME_SCHEMA,
  type JsonSchema,
  NO_ARGUMENTS,
  objectSchema,
  SIMULATE_SCHEMA,
  stringArrayProp,
  stringProp,
  TEMPLATE_LIST_SCHEMA,
} from "./schemas.ts";

/** What handlers may use besides their arguments. */
export interface ToolContext {
  /** Runs `bxp_simulate`. */
  simulator: Simulator;
  /** The fixed project root that `path` / `csv_path` arguments are relative to; null: inline text only. */
  root: ProjectRoot | null;
  /** Whether bxp-mcp was started with `--allow-write` (enables `bxp_write_config`). */
  allowWrite: boolean;
}

/** Largest CSV file `bxp_simulate` reads through `csv_path` (the same bound as an inline message line). */
export const CSV_PATH_MAX_BYTES = 16 * 1024 * 1024;

/** The name of the one writing tool. */
export const WRITE_TOOL_NAME = "bxp_write_config";

/** What a client is told when it calls the writing tool on a server started without `--allow-write`. */
export const WRITES_DISABLED = "Writes are disabled. Start bxp-mcp with --allow-write (and --root DIR for " +
  "the project folder) to enable bxp_write_config.";

/** One catalog entry. */
export interface BxpTool {
  /** Wire name. */
  name: string;
  /** Display name. */
  title: string;
  /** What the tool does and answers, for the model. */
  description: string;
  /** JSON Schema of the arguments (bxp's names and types). */
  inputSchema: JsonSchema;
  /** JSON Schema of the structured answer, where its shape is fixed. */
  outputSchema?: JsonSchema;
  /** Whether a single-JSON-object answer is also sent as `structuredContent`. */
  allowStructured: boolean;
  /** MCP tool annotations. */
  annotations: Record<string, boolean>;
  /** Only listed and callable when bxp-mcp runs with `--allow-write`. */
  requiresWrite?: boolean;
  /** The implementation. */
  run(args: ToolArgs, call: ToolCall, context: ToolContext): ToolResult | Promise<ToolResult>;
}

const READ_ONLY = { readOnlyHint: true, openWorldHint: false };
const CONFIG_ARG = stringProp("The full bxp-cli config text (JSON5). Give this or path.");
const PATH_ARG = stringProp(
  "Instead of config: the config file's path relative to the project root (bxp-mcp --root), e.g. " +
    "configs/bank.json5. Read through the root guard: no symlinks, no '..' escapes, at most 1 MiB.",
);
const ROW_HEADERS = stringArrayProp('Optional column header names, e.g. ["Price","Qty"].');
const ROW_FIELDS = stringArrayProp(
  "Optional field values of the row, parallel to headers; ragged rows are fine.",
);

/** A required string argument, or the tool failure bxp answers when it is missing. */
function required(args: ToolArgs, call: ToolCall, name: string): string | ToolResult {
  return stringArg(args, name) ?? call.fail(`missing '${name}'`);
}

/** The row arguments, or the tool failure naming the malformed one. */
function row(args: ToolArgs, call: ToolCall) {
  try {
    return rowArgs(args);
  } catch (error) {
    return call.fail(error instanceof Error ? error.message : String(error));
  }
}

const text = (value: string): ToolResult => ({ text: value });

/** The config text of a call: inline `config`, or the file at `path` read through the root guard. */
async function configText(
  args: ToolArgs,
  call: ToolCall,
  context: ToolContext,
): Promise<{ text: string; label: string } | ToolResult> {
  const inline = stringArg(args, "config");
  const path = stringArg(args, "path");
  if (inline !== null && path !== null) return call.fail("give either 'config' or 'path', not both");
  if (inline !== null) return { text: inline, label: "<config>" };
  if (path === null) return call.fail("missing 'config'");
  return await readUnderRoot(
    call,
    context,
    path,
    (root) =>
      root.readText(path, { maxBytes: CONFIG_MAX_BYTES, what: "Config" }).then((r) => ({
        text: r.text,
        label: r.relative,
      })),
  );
}

/** Run a guarded read; a refusal becomes the tool failure naming the path. */
async function readUnderRoot<T>(
  call: ToolCall,
  context: ToolContext,
  path: string,
  read: (root: ProjectRoot) => Promise<T>,
): Promise<T | ToolResult> {
  if (context.root === null) return call.fail(`'path' arguments need a project root: ${path.slice(0, 200)}`);
  try {
    return await read(context.root);
  } catch (error) {
    if (error instanceof PathGuardError) return call.fail(error.message);
    throw error;
  }
}

const isResult = (value: unknown): value is ToolResult =>
  typeof value === "object" && value !== null && "text" in value && !("label" in value) &&
  !("bytes" in value);

/** The JSON answer of a refused write (`isError`), naming the stable reason. */
function writeRefusal(error: WriteRefusedError): ToolResult {
  return {
    text: JSON.stringify({ ok: false, refused: error.reason, path: error.path, error: error.message }),
    isError: true,
  };
}

/** The nine tools, in bxp's order. */
export const BXP_TOOLS: readonly BxpTool[] = [
  {
    name: "bxp_validate",
    title: "Validate a config",
    description: "Check a bxp-cli config (JSON5 text). Answers the config as JSON with diagnostic keys " +
      "($err_..., $warn..., $info...) inserted just before each key they concern.",
    inputSchema: objectSchema({ config: CONFIG_ARG, path: PATH_ARG }),
    allowStructured: true,
    annotations: READ_ONLY,
    async run(args, call, context) {
      const config = await configText(args, call, context);
      if (isResult(config)) return config;
      return text(annotateConfig(config.text, config.label).json);
    },
  },
  {
    name: "bxp_validate_expr",
    title: "Validate an expression",
    description: "Check one bxp expression at authoring time, as the GUI config editor does: syntax, " +
      "semantics, and static findings a real run would silently tolerate (for instance SPLIT_PART with a " +
      'literal index 0, which is 1-based and so always gives "", or a DATE_CONVERT format holding a letter ' +
      "that is neither a date token nor bracketed). Answers {ok:true} for a sound expression, else " +
      "{ok:false,error,detail,off,len} for the first finding, off/len being the byte span of the offending " +
      "token. Use it while writing a config; use bxp_eval to see what an expression computes for a row.",
    inputSchema: objectSchema({ expr: stringProp("The expression text, e.g. SPLIT_PART([Sym], '/', 1).") }, [
      "expr",
    ]),
    outputSchema: EXPR_OUTCOME_SCHEMA,
    allowStructured: true,
    annotations: READ_ONLY,
    run(args, call) {
      const expr = required(args, call, "expr");
      if (typeof expr !== "string") return expr;
      return text(validateExprJson(expr));
    },
  },
  {
    name: "bxp_eval",
    title: "Evaluate an expression",
    description: "Evaluate one bxp expression, optionally against a row (headers and fields). Answers " +
      "{ok:true,value} or {ok:false,error,detail,off,len}. This is the lenient runtime path, the value a " +
      "real bxp-cli run computes; to catch authoring mistakes, use bxp_validate_expr.",
    inputSchema: objectSchema({
      expr: stringProp("The expression text, e.g. UPPER('hi') or [Price]*[Qty]."),
      headers: ROW_HEADERS,
      fields: ROW_FIELDS,
    }, ["expr"]),
    outputSchema: EXPR_OUTCOME_SCHEMA,
    allowStructured: true,
    annotations: READ_ONLY,
    run(args, call) {
      const expr = required(args, call, "expr");
      if (typeof expr !== "string") return expr;
      const given = row(args, call);
      if ("text" in given) return given;
      return text(evalExpr(expr, given.headers, given.fields));
    },
  },
  {
    name: "bxp_eval_batch",
    title: "Evaluate expressions on one row",
    description: "Evaluate several bxp expressions against one row in a single call. Answers " +
      "{results:[...]} with one {ok:true,value} or {ok:false,error,detail,off,len} per expression, in " +
      "input order. A well-formed request always succeeds; each result's ok flag carries its own failure.",
    inputSchema: objectSchema({
      headers: stringArrayProp("Column header names."),
      fields: stringArrayProp("Field values of the row, parallel to headers; ragged rows are fine."),
      exprs: stringArrayProp("The expressions to evaluate against the row."),
      maps: {
        type: "object",
        description: "Optional named maps { name: { key: value } } for REMAP (whole value) and REPLACE " +
          "(substrings).",
      },
      lookups: {
        type: "object",
        description: "Optional flat pre_pass lookup table for LOOKUP(): keys are name, key and field " +
          "joined by NUL characters.",
      },
      single_prepass_name: stringProp(
        "Optional name of the template's only pre_pass, enabling the " +
          "two-argument LOOKUP(key, field).",
      ),
    }, ["headers", "fields", "exprs"]),
    outputSchema: BATCH_SCHEMA,
    allowStructured: true,
    annotations: READ_ONLY,
    run(args, call) {
      let request: unknown;
      try {
        request = batchRequest(args);
      } catch (error) {
        return call.fail(error instanceof Error ? error.message : String(error));
      }
      const result = evalBatch(request);
      return result.errorMessage === undefined ? text(result.json) : call.fail(result.errorMessage);
    },
  },
  {
    name: "bxp_eval_trace",
    title: "Trace an expression",
    description: "Evaluate one bxp expression and trace every function call. Answers NDJSON, one JSON " +
      'object per line: a {"fn","src_start","src_end","value"} line for each call as the engine evaluates ' +
      'it, innermost first, then a last line {"t":"final","value":"..."} on success or ' +
      '{"t":"error","error","detail","off","len"} on failure. Use it to debug how a complex expression ' +
      "arrives at its value, beyond bxp_eval's final answer.",
    inputSchema: objectSchema({
      expr: stringProp("The expression text."),
      headers: ROW_HEADERS,
      fields: ROW_FIELDS,
    }, ["expr"]),
    allowStructured: false,
    annotations: READ_ONLY,
    run(args, call) {
      const expr = required(args, call, "expr");
      if (typeof expr !== "string") return expr;
      const given = row(args, call);
      if ("text" in given) return given;
      const traced = evalTrace(expr, given.headers, given.fields);
      // The error sentinel is part of the answer: the trace itself was produced.
      return text(traced.errorJson === null ? traced.lines : `${traced.lines}${traced.errorJson}\n`);
    },
  },
  {
    name: "bxp_docs",
    title: "Language and config reference",
    description: "The complete bxp reference as JSON: functions, keywords, operators, tokens, date " +
      "tokens, operator precedence and the config schema. Read it first to learn the expression and " +
      "config language.",
    inputSchema: NO_ARGUMENTS,
    outputSchema: DOCS_SCHEMA,
    allowStructured: true,
    annotations: READ_ONLY,
    run: () => text(docsJson()),
  },
  {
    name: "bxp_list_templates",
    title: "List templates",
    description: "List the conversion templates of a bxp-cli config (JSON5). Answers " +
      "{templates:[{id,data_dir,file_pattern_in,file_pattern_out,file_type_in,file_type_out,description}, " +
      "...]}. Nothing is validated, so a broken template is still listed, with an error field.",
    inputSchema: objectSchema({ config: CONFIG_ARG, path: PATH_ARG }),
    outputSchema: TEMPLATE_LIST_SCHEMA,
    allowStructured: true,
    annotations: READ_ONLY,
    async run(args, call, context) {
      const config = await configText(args, call, context);
      if (isResult(config)) return config;
      return text(listTemplates(config.text));
    },
  },
  {
    name: "bxp_fetch_template",
    title: "Fetch a template",
    description: "Fetch one conversion template of a bxp-cli config (JSON5) by its id, as JSON. Answers " +
      'the template object, or {"$err_1":"..."} when the id is not in the config.',
    inputSchema: objectSchema({
      config: CONFIG_ARG,
      path: PATH_ARG,
      id: stringProp("The id of the template to fetch."),
    }, ["id"]),
    allowStructured: true,
    annotations: READ_ONLY,
    async run(args, call, context) {
      const config = await configText(args, call, context);
      if (isResult(config)) return config;
      const id = required(args, call, "id");
      if (typeof id !== "string") return id;
      return text(fetchTemplate(config.text, id).json);
    },
  },
  {
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
  },
  {
    name: WRITE_TOOL_NAME,
    title: "Write a config file",
    description: "Write a bxp-cli config (JSON5 text, verbatim) to a .json or .json5 file inside the " +
      "project root. Only available when bxp-mcp was started with --allow-write. The config must " +
      "validate with no error first: otherwise nothing is written and the annotated diagnostics come " +
      "back (as bxp_validate gives them). New files are created exclusively; replacing an existing file " +
      "needs overwrite: true, and overwrite: true on a missing file is refused. Never writes through a " +
      "symbolic link or outside the root. Answers {ok:true,action:'created'|'updated',path,bytes}, " +
      "or {ok:false,refused,path,error|diagnostics}.",
    inputSchema: objectSchema({
      path: stringProp("Target file relative to the project root, ending in .json or .json5."),
      config: stringProp("The full config text (JSON5), written byte for byte as UTF-8; at most 1 MiB."),
      overwrite: {
        type: "boolean",
        description: "Replace an existing file (default false). Refused when the file does not exist.",
      },
    }, ["path", "config"]),
    allowStructured: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    requiresWrite: true,
    async run(args, call, context) {
      if (!context.allowWrite || context.root === null) return call.fail(WRITES_DISABLED);
      const path = required(args, call, "path");
      if (typeof path !== "string") return path;
      const config = required(args, call, "config");
      if (typeof config !== "string") return config;
      const overwrite = args?.overwrite ?? false;
      if (typeof overwrite !== "boolean") return call.fail("'overwrite' must be a boolean");
      try {
        const target = await checkWriteTarget(context.root, path, CONFIG_WRITE_RULES);
        const bytes = new TextEncoder().encode(config);
        if (bytes.length > CONFIG_WRITE_RULES.maxBytes) {
          throw new WriteRefusedError(
            "too-large",
            `Config text is ${bytes.length} bytes, over the ${CONFIG_WRITE_RULES.maxBytes}-byte limit.`,
            target.walked.relative,
          );
        }
        const annotated = annotateConfig(config, target.walked.relative);
        if (annotated.exitCode !== 0) {
          return {
            text: JSON.stringify({
              ok: false,
              refused: "validation",
              path: target.walked.relative,
              error:
                `Refusing to write ${target.walked.relative}: the config does not validate; nothing was written.`,
              diagnostics: JSON.parse(annotated.json),
            }),
            isError: true,
          };
        }
        const refusal = overwriteRefusal(target, overwrite);
        if (refusal !== null) throw refusal;
        const action = await writeChecked(target, bytes, { overwrite, rules: CONFIG_WRITE_RULES });
        return text(JSON.stringify({ ok: true, action, path: target.walked.relative, bytes: bytes.length }));
      } catch (error) {
        if (error instanceof WriteRefusedError) return writeRefusal(error);
        throw error;
      }
    },
  },
];

/**
 * Register the catalog tools on `server`, in catalog order, bound to `context`; a tool that
 * `requiresWrite` is registered (and so listed) only when `context.allowWrite`.
 */
export function registerBxpTools(
  server: McpServer,
  context: ToolContext,
  tools: readonly BxpTool[] = BXP_TOOLS,
): void {
  for (const tool of tools) {
    if (tool.requiresWrite && !context.allowWrite) continue;
    server.addTool({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      allowStructured: tool.allowStructured,
      handler: (args, call) => tool.run(args, call, context),
    });
  }
}
