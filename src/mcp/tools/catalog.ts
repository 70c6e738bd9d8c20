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
import type { McpServer } from "../protocol/mod.ts";
import { batchRequest } from "./args.ts";
import {
  BATCH_SCHEMA,
  DOCS_SCHEMA,
  EXPR_OUTCOME_SCHEMA,
  NO_ARGUMENTS,
  objectSchema,
  stringArrayProp,
  stringProp,
  TEMPLATE_LIST_SCHEMA,
} from "./schemas.ts";
import { SIMULATE_TOOL } from "./simulate_tool.ts";
import { WRITE_TOOL } from "./write_tool.ts";
import { DISCOVERY_TOOLS } from "./discovery_tools.ts";
import { AUTHORING_TOOLS } from "./authoring_tools.ts";
import {
  type BxpTool,
  CONFIG_ARG,
  configText,
  isResult,
  PATH_ARG,
  READ_ONLY,
  required,
  row,
  ROW_FIELDS,
  ROW_HEADERS,
  text,
  type ToolContext,
} from "./tool_kit.ts";

export {
  type BxpTool,
  CSV_PATH_MAX_BYTES,
  type ToolContext,
  WRITE_TOOL_NAME,
  WRITES_DISABLED,
} from "./tool_kit.ts";

/**
 * The tools: bxp's nine in bxp's order (the writing tool last), with our discovery and authoring tools
 * between the read-only ones and the writing one.
 */
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
  SIMULATE_TOOL,
  ...DISCOVERY_TOOLS,
  ...AUTHORING_TOOLS,
  WRITE_TOOL,
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
