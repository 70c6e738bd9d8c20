/**
 * THE bxp tool catalog: one entry per tool, in bxp's order. The same table feeds `tools/list` and dispatch
 * ({@link registerBxpTools}), `bxp-mcp --help` and the generated page `docs/reference/mcp-tools.md`.
 * Adding a tool is adding an entry.
 *
 * Handlers answer with the inspect API's text. Registration checks every call's arguments against the
 * entry's inputSchema first (unknown names, types, required, enums; see `arg_check.ts`) and every answer
 * against the call's `max_bytes` budget (`budget.ts`); the evaluation tools run on a pool of time-limited
 * workers (`eval_pool.ts`). A missing or malformed argument is a tool failure (`error: missing 'expr'`,
 * isError); a domain verdict such as `{"ok":false,...}` is a normal answer.
 *
 * @module
 */

import { DOCS_SECTIONS } from "../../inspect/docs_sections.ts";
import { fetchTemplate, listTemplates } from "../../inspect/templates.ts";
import { dirname as posixDirname } from "../../util/posix_path.ts";
import type { McpServer, ToolResult } from "../protocol/mod.ts";
import { batchRequest, stringArg, tableArgs, type ToolArgs } from "./args.ts";
import { checkArguments } from "./arg_check.ts";
import { answerBytes, budgetOf, overBudget, withMaxBytes } from "./budget.ts";
import { withTextCopy } from "./text_copy.ts";
import type { EvalJob } from "../../inspect/mod.ts";
import { directSpec, resultJson } from "./eval_answer.ts";
import { EVAL_TIME_LIMIT_MS, sharedEvalPool } from "./eval_pool.ts";
import { loadToolCore } from "./core_loader.ts";
import {
  BATCH_SCHEMA,
  DIALECT_PROPS,
  EXPR_OUTCOME_SCHEMA,
  type JsonSchema,
  LEGACY_EXPR_SHAPES,
  LOOKUPS_PROP,
  MAPS_PROP,
  objectSchema,
  SINGLE_PREPASS_PROP,
  stringArrayProp,
  stringProp,
  TEMPLATE_LIST_SCHEMA,
  VALIDATE_SCHEMA,
} from "./schemas.ts";
import { SIMULATE_TOOL } from "./simulate_tool.ts";
import { READ_RUN_TOOL } from "./read_run_tool.ts";
import { WRITE_TOOL } from "./write_tool.ts";
import { DISCOVERY_TOOLS } from "./discovery_tools.ts";
import { AUTHORING_TOOLS } from "./authoring_tools.ts";
import {
  type BxpCall,
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
  DEFAULT_MAX_BYTES,
  MAX_BYTES_CAP,
  type ToolContext,
  WRITE_TOOL_NAME,
  WRITES_DISABLED,
} from "./tool_kit.ts";

/** What the descriptions say about the evaluation time limit. */
const TIME_LIMIT_NOTE = "A small request is answered at once; a larger or costlier one runs on a worker " +
  `thread with a ${EVAL_TIME_LIMIT_MS / 1000} s time limit, and cancelling the call stops it.`;

/** What the descriptions say about the run's dialect. */
const DIALECT_NOTE = "Give template (with config or path for your own config) to read the row in that " +
  "template's dialect and maps, as the run does (a decimal comma field such as 172,50 is then a number), " +
  "or decimal_separator alone. ";

/**
 * Run an evaluation job on the context's pool (inline when small, else time-limited on a worker and
 * terminated by cancellation) and turn what it answers into the tool result, its wire JSON spliced
 * rather than serialised twice.
 */
async function evaluate(job: EvalJob, call: BxpCall, context: ToolContext): Promise<ToolResult> {
  const pool = context.evalPool ?? sharedEvalPool();
  const direct = call.direct;
  const outcome = await pool.run(
    job,
    call.signal,
    direct ? { spec: directSpec(direct, call), watch: direct.watch } : undefined,
  );
  if ("answered" in outcome) return { text: "", answered: true };
  if ("stopped" in outcome) {
    if (outcome.stopped === "timeout") {
      return call.fail(
        `${call.name} stopped: the evaluation ran past its ${pool.timeLimitMs / 1000} s time limit and ` +
          "was terminated. Make the request cheaper: smaller maps or lookups, shorter text, fewer " +
          "expressions (a REPLACE costs text length times map entries).",
      );
    }
    return call.fail(`${call.name} failed: ${outcome.detail}`);
  }
  const result: ToolResult = { text: outcome.text, json: resultJson(outcome, call.allowStructured) };
  if (outcome.isError) result.isError = true;
  return result;
}

/**
 * The optional maps / lookups (in bxp's shapes, whatever shape the call used) and single_prepass_name of
 * an expression call, or the failure naming a malformed one.
 */
function extras(args: ToolArgs, call: BxpCall): Record<string, unknown> | ToolResult {
  let tables: Record<string, unknown>;
  try {
    tables = { ...tableArgs(args) };
  } catch (error) {
    return call.fail(error instanceof Error ? error.message : String(error));
  }
  if (args?.single_prepass_name !== undefined) tables.single_prepass_name = args.single_prepass_name;
  return tables;
}

/** The dialect arguments of an expression call as the evaluator reads them (config text, template id). */
interface DialectArgs {
  decimal_separator?: unknown;
  config?: string;
  template?: string;
}

/**
 * The run's dialect of an expression call: `decimal_separator` as given, the config text (inline, read
 * from `path`, or, for a `template` alone, the library template's whole config) and the template id; the
 * evaluator checks the rest. Answered at once unless a file or the library must be read, so a plain call
 * reaches the pool without a microtask's delay.
 */
function dialectArgs(
  args: ToolArgs,
  call: BxpCall,
  context: ToolContext,
): DialectArgs | ToolResult | Promise<DialectArgs | ToolResult> {
  const out: DialectArgs = {};
  if (args?.decimal_separator !== undefined) out.decimal_separator = args.decimal_separator;
  const template = stringArg(args, "template");
  if (template !== null) out.template = template;
  if (noConfigGiven(args)) return template === null ? out : libraryDialect(template, out, call);
  const given = configText(args, call, context);
  const withText = (config: { text: string } | ToolResult) =>
    isResult(config) ? config : { ...out, config: config.text };
  return given instanceof Promise ? given.then(withText) : withText(given);
}

/** A template id without a config: the library's template as bxp-cli --template resolves it. */
async function libraryDialect(
  id: string,
  out: DialectArgs,
  call: BxpCall,
): Promise<DialectArgs | ToolResult> {
  const core = await loadToolCore();
  const library = core.readLibrary();
  const found = core.findTemplate(library, id);
  if (found !== undefined) return { ...out, config: found.text };
  const shown = id.length > 64 ? `${id.slice(0, 64)}...` : id;
  return call.fail(
    `template '${shown}' not found in the template library (give config or path for a template of ` +
      `your own); its templates: ${library.templates.map((t) => t.id).join(", ")}`,
  );
}

/** What bxp_eval and bxp_eval_trace evaluate, their `kind` aside. */
type ExprJob = Omit<Extract<EvalJob, { kind: "eval" }>, "kind">;

/**
 * The job of bxp_eval and bxp_eval_trace, which take the same arguments: expr, the row, maps and lookups,
 * the dialect; or the failure naming the first bad one. Answered at once unless the dialect must be read
 * (see {@link dialectArgs}).
 */
function exprJob(
  args: ToolArgs,
  call: BxpCall,
  context: ToolContext,
): ExprJob | ToolResult | Promise<ExprJob | ToolResult> {
  const expr = required(args, call, "expr");
  if (typeof expr !== "string") return expr;
  const given = row(args, call);
  if ("text" in given) return given;
  const tables = extras(args, call);
  if (isResult(tables)) return tables;
  const asked = dialectArgs(args, call, context);
  const withDialect = (dialect: DialectArgs | ToolResult): ExprJob | ToolResult =>
    isResult(dialect) ? dialect : { expr, ...given, ...tables, ...dialect };
  return asked instanceof Promise ? asked.then(withDialect) : withDialect(asked);
}

/** The ids of a config's templates, for a not-found answer (empty when the config does not list). */
function templateIds(config: string): string[] {
  try {
    const listed = JSON.parse(listTemplates(config)) as { templates?: { id?: unknown }[] };
    return (listed.templates ?? []).map((t) => t.id).filter((id): id is string => typeof id === "string");
  } catch {
    return [];
  }
}

/** Whether a call gives neither `config` nor `path`: the library tools then answer from the template library. */
function noConfigGiven(args: ToolArgs): boolean {
  return stringArg(args, "config") === null && stringArg(args, "path") === null;
}

/**
 * The tools: bxp's nine in bxp's order (the writing tool last), with our discovery and authoring tools
 * between the read-only ones and the writing one.
 */
export const BXP_TOOLS: readonly BxpTool[] = [
  {
    name: "bxp_validate",
    title: "Validate a config",
    description: "Check a bxp-cli config (JSON5 text, or a file under the project root by path). The text " +
      "answer is the config as JSON with diagnostic keys ($err_..., $warn..., $info...) inserted just " +
      "before each key they concern. The structured answer adds a verdict beside it: " +
      "{ok, errors, warnings, infos, findings:[{severity, code, message, path, line?, column?, off?, " +
      "len?, suggest?}], annotated}. " + TIME_LIMIT_NOTE,
    inputSchema: objectSchema({ config: CONFIG_ARG, path: PATH_ARG }),
    outputSchema: VALIDATE_SCHEMA,
    allowStructured: true,
    annotations: READ_ONLY,
    narrowHint: "validate a smaller config, or read the verdict's findings",
    async run(args, call, context) {
      // An inline config goes to the pool without a microtask's delay (see McpServer's #callTool).
      const given = configText(args, call, context);
      const config = given instanceof Promise ? await given : given;
      if (isResult(config)) return config;
      // A config file under the root is one the user may run next: check it stays inside the root.
      const configDir = stringArg(args, "path") === null ? undefined : posixDirname(config.label);
      return await evaluate(
        {
          kind: "validate",
          text: config.text,
          label: config.label,
          ...(configDir === undefined ? {} : { configDir }),
        },
        call,
        context,
      );
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
      "token. Use it while writing a config; use bxp_eval to see what an expression computes for a row. " +
      TIME_LIMIT_NOTE,
    inputSchema: objectSchema({ expr: stringProp("The expression text, e.g. SPLIT_PART([Sym], '/', 1).") }, [
      "expr",
    ]),
    outputSchema: EXPR_OUTCOME_SCHEMA,
    allowStructured: true,
    annotations: READ_ONLY,
    async run(args, call, context) {
      const expr = required(args, call, "expr");
      if (typeof expr !== "string") return expr;
      return await evaluate({ kind: "validate_expr", expr }, call, context);
    },
  },
  {
    name: "bxp_eval",
    title: "Evaluate an expression",
    description: "Evaluate one bxp expression, optionally against a row (headers and fields) and with " +
      "named maps (REMAP, REPLACE) and pre_pass lookups (LOOKUP). Answers {ok:true,value} or " +
      "{ok:false,error,detail,off,len}. This is the lenient runtime path, the value a real bxp-cli run " +
      "computes; to catch authoring mistakes, use bxp_validate_expr. " + DIALECT_NOTE + TIME_LIMIT_NOTE,
    inputSchema: objectSchema({
      expr: stringProp("The expression text, e.g. UPPER('hi') or [Price]*[Qty]."),
      headers: ROW_HEADERS,
      fields: ROW_FIELDS,
      maps: MAPS_PROP,
      lookups: LOOKUPS_PROP,
      single_prepass_name: SINGLE_PREPASS_PROP,
      ...DIALECT_PROPS,
    }, ["expr"]),
    outputSchema: EXPR_OUTCOME_SCHEMA,
    allowStructured: true,
    accepts: LEGACY_EXPR_SHAPES,
    annotations: READ_ONLY,
    async run(args, call, context) {
      const asked = exprJob(args, call, context);
      const job = asked instanceof Promise ? await asked : asked;
      if (isResult(job)) return job;
      return await evaluate({ kind: "eval", ...job }, call, context);
    },
  },
  {
    name: "bxp_eval_batch",
    title: "Evaluate expressions on one row",
    description: "Evaluate several bxp expressions against one row in a single call. Answers " +
      "{results:[...]} with one {ok:true,value} or {ok:false,error,detail,off,len} per expression, in " +
      "input order. A well-formed request always succeeds; each result's ok flag carries its own " +
      "failure. " + DIALECT_NOTE + TIME_LIMIT_NOTE,
    inputSchema: objectSchema({
      headers: {
        ...ROW_HEADERS,
        description: "Column header names. A JSON-encoded array string is accepted too (older clients).",
      },
      fields: ROW_FIELDS,
      exprs: stringArrayProp("The expressions to evaluate against the row."),
      maps: MAPS_PROP,
      lookups: LOOKUPS_PROP,
      single_prepass_name: SINGLE_PREPASS_PROP,
      ...DIALECT_PROPS,
    }, ["headers", "fields", "exprs"]),
    outputSchema: BATCH_SCHEMA,
    allowStructured: true,
    accepts: LEGACY_EXPR_SHAPES,
    annotations: READ_ONLY,
    narrowHint: "evaluate fewer expressions per call",
    async run(args, call, context) {
      let request: unknown;
      try {
        request = batchRequest(args);
      } catch (error) {
        return call.fail(error instanceof Error ? error.message : String(error));
      }
      const asked = dialectArgs(args, call, context);
      const dialect = asked instanceof Promise ? await asked : asked;
      if (isResult(dialect)) return dialect;
      if (request !== null && typeof request === "object") {
        const members = request as Record<string, unknown>;
        delete members.max_bytes;
        delete members.path; // read into config
        Object.assign(members, dialect);
      }
      return await evaluate({ kind: "eval_batch", request }, call, context);
    },
  },
  {
    name: "bxp_eval_trace",
    title: "Trace an expression",
    description: "Evaluate one bxp expression and trace every function call. Answers NDJSON, one JSON " +
      'object per line: a {"fn","src_start","src_end","value"} line for each call as the engine evaluates ' +
      'it, innermost first, then a last line {"t":"final","value":"..."} on success or ' +
      '{"t":"error","error","detail","off","len"} on failure. Use it to debug how a complex expression ' +
      "arrives at its value, beyond bxp_eval's final answer. Takes maps, lookups and the template's " +
      "dialect as bxp_eval does. " + TIME_LIMIT_NOTE,
    inputSchema: objectSchema({
      expr: stringProp("The expression text."),
      headers: ROW_HEADERS,
      fields: ROW_FIELDS,
      maps: MAPS_PROP,
      lookups: LOOKUPS_PROP,
      single_prepass_name: SINGLE_PREPASS_PROP,
      ...DIALECT_PROPS,
    }, ["expr"]),
    allowStructured: false,
    accepts: LEGACY_EXPR_SHAPES,
    annotations: READ_ONLY,
    narrowHint: "trace a smaller part of the expression",
    async run(args, call, context) {
      const asked = exprJob(args, call, context);
      const job = asked instanceof Promise ? await asked : asked;
      if (isResult(job)) return job;
      return await evaluate({ kind: "eval_trace", ...job }, call, context);
    },
  },
  {
    name: "bxp_docs",
    title: "Language and config reference",
    description: "The bxp reference as JSON: functions, keywords, operators, tokens, date tokens, " +
      "operator precedence and the config schema (about 40 KB in full). Read it first to learn the " +
      "expression and config language. Narrow it with section (one of those parts) and/or name (one " +
      "function, e.g. DATE_CONVERT, or one config key, e.g. input_schema; case-insensitive). Answers " +
      "text only; the fields only bxp's GUI editor uses are left out.",
    inputSchema: objectSchema({
      section: {
        type: "string",
        enum: [...DOCS_SECTIONS],
        description: "Optional: only this part of the reference.",
      },
      name: stringProp(
        "Optional: only the entry of this function or config key (a dotted key or its last part, e.g. " +
          "csv_delimiter_in), case-insensitive; an unknown name is answered with the valid names.",
      ),
    }),
    allowStructured: false,
    annotations: READ_ONLY,
    narrowHint: "ask for one section or one name",
    async run(args, call) {
      const core = await loadToolCore();
      const answer = core.docsAnswer({
        section: typeof args?.section === "string" ? args.section : undefined,
        name: typeof args?.name === "string" ? args.name : undefined,
      });
      return answer.text === undefined ? call.fail(answer.error ?? "no such entry") : text(answer.text);
    },
  },
  {
    name: "bxp_list_templates",
    title: "List templates",
    description: "List the conversion templates of a bxp-cli config (JSON5), or with neither config nor " +
      "path the template library as bxp-cli --template resolves it: the built-ins (bxp's broker " +
      "conversions, e.g. revolutx_to_wealthfolio), overridden by id by the templates folders beside " +
      "bxp-cli and in the user's config folder. Answers " +
      "{templates:[{id,data_dir,file_pattern_in,file_pattern_out,file_type_in,file_type_out,description, " +
      "source?,file?}, ...]} (source 'program' or 'user' marks a folder's template). Nothing is validated, " +
      "so a broken template is still listed, with an error field.",
    inputSchema: objectSchema({ config: CONFIG_ARG, path: PATH_ARG }),
    outputSchema: TEMPLATE_LIST_SCHEMA,
    allowStructured: true,
    annotations: READ_ONLY,
    async run(args, call, context) {
      if (noConfigGiven(args)) {
        const core = await loadToolCore();
        return text(core.listLibraryJson(core.readLibrary()));
      }
      const config = await configText(args, call, context);
      if (isResult(config)) return config;
      return text(listTemplates(config.text));
    },
  },
  {
    name: "bxp_fetch_template",
    title: "Fetch a template",
    description: "Fetch one conversion template of a bxp-cli config (JSON5) by its id, as JSON. With " +
      "neither config nor path, fetch from the template library as bxp-cli --template resolves it (a " +
      "template in the user's or the program's templates folder replaces the built-in of its id): the " +
      "answer is then the library template's " +
      "whole config (commented JSON5, as bxp-cli --fetch-template prints it), ready to validate, simulate " +
      'or save. Answers {"$err_1":"...","available":[ids]} when the id is not there.',
    inputSchema: objectSchema({
      config: CONFIG_ARG,
      path: PATH_ARG,
      template: stringProp("The id of the template to fetch (as in bxp_simulate)."),
      id: stringProp("Older name of template, still accepted (bxp's name)."),
    }, ["template"]),
    allowStructured: true,
    annotations: READ_ONLY,
    aliases: { id: "template" },
    async run(args, call, context) {
      if (noConfigGiven(args)) {
        const id = required(args, call, "template");
        if (typeof id !== "string") return id;
        const core = await loadToolCore();
        const library = core.readLibrary();
        return text(core.findTemplate(library, id)?.text ?? core.fetchLibraryAnswer(library, id));
      }
      const config = await configText(args, call, context);
      if (isResult(config)) return config;
      const id = required(args, call, "template");
      if (typeof id !== "string") return id;
      const fetched = fetchTemplate(config.text, id);
      if (!fetched.notFound) return text(fetched.json);
      // bxp's {"$err_1":"template id '<id>' not found"} stays as it is; the ids go beside it.
      const json = fetched.json.trimEnd();
      return text(`${json.slice(0, -1)},"available":${JSON.stringify(templateIds(config.text))}}`);
    },
  },
  SIMULATE_TOOL,
  READ_RUN_TOOL,
  ...DISCOVERY_TOOLS,
  ...AUTHORING_TOOLS,
  WRITE_TOOL,
];

/** The tools a modern call may run as a task (tasks extension): those that can outlast a client's cut-off. */
export const TASK_TOOLS: ReadonlySet<string> = new Set([SIMULATE_TOOL.name]);

/** The inputSchema `tools/list` shows for `tool`: the entry's, plus the `max_bytes` every tool takes. */
export function listedInputSchema(tool: BxpTool): Record<string, unknown> {
  return withMaxBytes(tool.inputSchema);
}

/**
 * The schema a call's arguments are checked against: the listed one, with the older shapes the entry
 * still `accepts` in place of the declared ones (so clients written against them keep working).
 */
export function acceptedInputSchema(tool: BxpTool): JsonSchema {
  const listed = listedInputSchema(tool);
  if (tool.accepts === undefined) return listed;
  const properties = { ...listed.properties as Record<string, JsonSchema> };
  // Only arguments the tool declares: an accepted shape never adds an argument.
  for (const [name, shape] of Object.entries(tool.accepts)) {
    if (Object.hasOwn(properties, name)) properties[name] = shape;
  }
  return { ...listed, properties };
}

/**
 * Register the catalog tools on `server`, in catalog order, bound to `context`; a tool that
 * `requiresWrite` is registered (and so listed) only when `context.allowWrite`.
 */
export function registerBxpTools(
  server: McpServer,
  context: ToolContext,
  tools: readonly BxpTool[] = BXP_TOOLS,
): void {
  // The pool starts its workers on the first job too costly to answer inline (most sessions never have
  // one): started with the session, they cost every bxp-mcp process about 40 MB and some startup CPU.
  const bound: ToolContext = { ...context, evalPool: context.evalPool ?? sharedEvalPool() };
  // The handshake is answered and a model's first call is usually seconds away: load the tool core now,
  // so that call does not wait for it. A failed load is reported by the call that needs the core.
  server.afterInitialize(() => {
    loadToolCore().catch(() => {});
  });
  for (const tool of tools) {
    if (tool.requiresWrite && !context.allowWrite) continue;
    const inputSchema = listedInputSchema(tool);
    const accepted = acceptedInputSchema(tool);
    server.addTool({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      allowStructured: tool.allowStructured,
      taskSupport: TASK_TOOLS.has(tool.name),
      handler: async (rawArgs, call) => {
        const checked = checkArguments(accepted, rawArgs, tool.aliases);
        if (!checked.ok) return call.fail(checked.message);
        const budget = budgetOf(checked.args);
        // The entry's answer terms travel with the call (a direct answer written by a worker needs them too).
        const toolCall: BxpCall = { ...call, budget, allowStructured: tool.allowStructured };
        // The budget always reaches the tool, so one that can trim itself (bxp_simulate) knows it.
        // The root is asked with the call: a modern request carries its own roots (or is asked for them).
        const callContext: ToolContext = { ...bound, root: () => bound.root(call) };
        const ran = await tool.run({ ...checked.args, max_bytes: budget }, toolCall, callContext);
        if (ran.answered) return ran; // already written, within the budget
        // A summary text gets the structured answer beside it, so text-only clients see all of it.
        const result = withTextCopy(ran, tool.allowStructured, budget);
        const size = answerBytes(result, tool.allowStructured, budget);
        return size > budget ? overBudget(tool.name, size, budget, tool.narrowHint) : result;
      },
    });
  }
}
