/**
 * Stateless expression services with bxp's result shapes (the `bxp_validate_expr`, `bxp_eval`,
 * `bxp_eval_batch` and `bxp_eval_trace` tool results).
 *
 * @example
 * ```ts
 * import { evalExpr, validateExprJson } from "./eval.ts";
 * import assert from "node:assert/strict";
 * assert.equal(evalExpr("1 + 2"), '{"ok":true,"value":"3"}');
 * assert.equal(JSON.parse(validateExprJson("SPLIT_PART('a/b', '/', 0)")).error, "SplitPartBadIndex");
 * ```
 * @module
 */

import { zigJsonString } from "../config/mod.ts";
import { type TemplateSettings, templateSettings } from "./template_settings.ts";
import {
  type CallTrace,
  compileExpression,
  emptyContext,
  type EvalContext,
  ExprError,
  lastEvaluationWork,
  type LookupTables,
  MAX_EVAL_WORK,
  memoBySource,
  validateExpression,
} from "../lang/mod.ts";

/**
 * Per-request budget of {@link evalBatch}: the values of one request may add up to at most this many
 * characters (16 Mi, the size of the largest message bxp-mcp reads). Expressions past it answer
 * `ResultTooLarge` unevaluated, so a few thousand small expressions cannot add up to gigabytes.
 */
export const MAX_BATCH_RESULT_CHARS = 16 * 1024 * 1024;

/**
 * Per-request work budget of {@link evalBatch}: sixteen evaluations' worth (2 Gi units, tens of seconds
 * at most), so thousands of expressions cannot add up to hours. Inside bxp-mcp the evaluation time limit
 * usually stops a costly request first.
 */
export const MAX_BATCH_WORK = 16 * MAX_EVAL_WORK;

/** Longest trace {@link evalTrace} writes, in characters of NDJSON (16 Mi). */
export const MAX_TRACE_CHARS = 16 * 1024 * 1024;

// JSON text is written here directly rather than through a generic tree: a value may be millions of
// characters, and one flat escaped string (std.json's escapes, as bxp writes them) keeps it cheap.
const jsonString = zigJsonString;

const okValue = (value: string): string => `{"ok":true,"value":${jsonString(value)}}`;

/** An unexpected exception becomes an expression error rather than a stack trace. */
function asExprError(err: unknown): ExprError {
  if (err instanceof ExprError) return err;
  if (err instanceof RangeError) {
    // V8's own ceiling on string length or stack depth: the input is too large, not the program wrong.
    return new ExprError("ResultTooLarge", `evaluation ran out of room: ${err.message}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ExprError("InternalError", message);
}

/** `"error":..,"detail":..[,"off":..,"len":..]` (off/len only when the span is pinned). */
function errorMembers(e: ExprError): string {
  let out = `"error":${jsonString(e.error)},"detail":${jsonString(e.detail)}`;
  if (e.len > 0) out += `,"off":${e.off},"len":${e.len}`;
  return out;
}

/** `{ok:false, error, detail, off?, len?}`. */
const errorObject = (e: ExprError): string => `{"ok":false,${errorMembers(e)}}`;

/** bxp's `Context.field()`: a field value read by an expression loses its surrounding ASCII spaces. */
function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === 32) start++;
  while (end > start && s.charCodeAt(end - 1) === 32) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/**
 * Row context from header names and field values (a later duplicate header wins, as in bxp). Field
 * values are trimmed of ASCII spaces, as bxp reads them; header names are taken as given.
 */
function rowContext(
  headers: readonly string[] | null | undefined,
  fields: readonly string[] | null | undefined,
): EvalContext {
  const columns = new Map<string, number>();
  (headers ?? []).forEach((h, i) => columns.set(h, i));
  return { ...emptyContext(), columns, fields: (fields ?? []).map(trimSpaces) };
}

function evaluate(src: string, ctx: EvalContext): string {
  return compiled(src).evaluate(ctx);
}

/**
 * `src` compiled, or the same text's compiled expression from a recent call: an agent tries one
 * expression on row after row, and compiling it was about a third of a one-row `bxp_eval`. Reuse changes
 * no answer: a compiled expression holds only what its text determines (NOW and RAND run at evaluation,
 * as in a conversion, where one compiled expression serves every row). At most 256 are kept, of sources up
 * to 4 Ki characters.
 */
const compiled = memoBySource(compileExpression, 256, 4096);

/**
 * Named maps and pre_pass tables an evaluation may read, in {@link evalBatch}'s request shapes:
 * `maps` is `{name: {key: value}}`, `lookups` is flat `{"block\u0000key\u0000field": value}`, and
 * `single_prepass_name` names the block a 2-argument LOOKUP reads. The run's dialect: `config` (config
 * text) and `template` (one of its ids; may be left out when it holds one) give the template's decimal
 * separator, maps, sheet name and output quote (see `template_settings.ts`), and `decimal_separator`
 * (`.` or `,`) sets the separator field reads normalize, over the template's; maps given here replace the
 * template's of the same name. Every member is optional; each is checked as the batch request's is (the
 * values come from a model: treat them as hostile).
 */
export interface EvalOptions {
  maps?: unknown;
  lookups?: unknown;
  single_prepass_name?: unknown;
  decimal_separator?: unknown;
  config?: unknown;
  template?: unknown;
}

/** The option names of {@link EvalOptions}, as a request spells them. */
export const EVAL_OPTION_NAMES = [
  "maps",
  "lookups",
  "single_prepass_name",
  "decimal_separator",
  "config",
  "template",
] as const;

/** What {@link evalTables} makes of {@link EvalOptions}. */
export interface EvalTables {
  maps: Map<string, Map<string, string>>;
  lookups: LookupTables | null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Check and convert {@link EvalOptions}: the tables, or bxp's message for the first malformed member
 * (`"maps must be a JSON object"`, `"lookups values must be strings"`, ...).
 *
 * @example
 * ```ts
 * import { evalTables } from "./eval.ts";
 * import assert from "node:assert/strict";
 * evalTables({ maps: { m: { BTC: "BTC-EUR" } } }); // { maps: Map { "m" => Map {...} }, lookups: null }
 * assert.equal(evalTables({ maps: [] }), "maps must be a JSON object");
 * ```
 */
export function evalTables(options: EvalOptions | null | undefined): EvalTables | string {
  const maps = new Map<string, Map<string, string>>();
  let lookups: LookupTables | null = null;
  if (options === null || options === undefined) return { maps, lookups };
  if (options.maps !== undefined) {
    if (!isObject(options.maps)) return "maps must be a JSON object";
    for (const [name, entries] of Object.entries(options.maps)) {
      if (!isObject(entries)) return "maps entries must be JSON objects";
      const map = new Map<string, string>();
      for (const [k, v] of Object.entries(entries)) {
        if (typeof v !== "string") return "map values must be strings";
        map.set(k, v);
      }
      maps.set(name, map);
    }
  }
  if (options.lookups !== undefined) {
    if (!isObject(options.lookups)) return "lookups must be a JSON object";
    for (const [flat, value] of Object.entries(options.lookups)) {
      if (typeof value !== "string") return "lookups values must be strings";
      const [block, key = "", field = ""] = flat.split("\0");
      lookups ??= new Map();
      const byKey = lookups.get(block) ?? new Map<string, Map<string, string>>();
      lookups.set(block, byKey);
      const byField = byKey.get(key) ?? new Map<string, string>();
      byKey.set(key, byField);
      byField.set(field, value);
    }
  }
  if (options.single_prepass_name !== undefined) {
    const single = options.single_prepass_name;
    if (single !== null && typeof single !== "string") return "single_prepass_name must be a string";
    // 2-arg LOOKUP reads the legacy `_default` block; point it at the template's only block.
    if (typeof single === "string" && single !== "" && lookups?.has(single) && !lookups.has("_default")) {
      lookups.set("_default", lookups.get(single) as Map<string, Map<string, string>>);
    }
  }
  return { maps, lookups };
}

/** The decimal separators a call may name (a template may have set another character). */
const DECIMAL_SEPARATORS = [".", ","];

/**
 * The context members {@link EvalOptions} decide (tables, and the template's dialect), or the message for
 * the first malformed or unknown member. Without `config`, `template` and `decimal_separator` the members
 * are those of an empty context, so an answer is what it was before they existed.
 */
function optionMembers(options: EvalOptions | null | undefined): Partial<EvalContext> | string {
  const tables = evalTables(options);
  if (typeof tables === "string") return tables;
  const members: Partial<EvalContext> = { maps: tables.maps, lookups: tables.lookups };
  if (options === null || options === undefined) return members;
  const { config, template, decimal_separator: separator } = options;
  if (config !== undefined && typeof config !== "string") return "config must be a string (the config text)";
  if (template !== undefined && typeof template !== "string") {
    return "template must be a string (a template id)";
  }
  if (template !== undefined && config === undefined) return "template needs the config it is in (config)";
  if (typeof config === "string") {
    const settings: TemplateSettings | string = templateSettings(config, template ?? null);
    if (typeof settings === "string") return settings;
    // The call's own maps replace the template's of the same name.
    const maps = new Map(settings.maps);
    for (const [name, map] of tables.maps) maps.set(name, map);
    Object.assign(members, { ...settings, maps });
  }
  if (separator !== undefined) {
    if (typeof separator !== "string" || !DECIMAL_SEPARATORS.includes(separator)) {
      return `decimal_separator must be "." or ","`;
    }
    members.decimalSeparator = separator;
  }
  return members;
}

/** The row context plus checked options; throws a `TypeError` with bxp's wording for bad options. */
function fullContext(
  headers: readonly string[] | null | undefined,
  fields: readonly string[] | null | undefined,
  options: EvalOptions | null | undefined,
): EvalContext {
  const members = optionMembers(options);
  if (typeof members === "string") throw new TypeError(members);
  return { ...rowContext(headers, fields), ...members };
}

/**
 * Authoring-time verdict for one expression: `{"ok":true}` or the first finding
 * `{"ok":false,"error","detail","off"?,"len"?}`.
 */
export function validateExprJson(src: string): string {
  let e: ExprError | null;
  try {
    e = validateExpression(src);
  } catch (err) {
    e = asExprError(err);
  }
  return e ? errorObject(e) : '{"ok":true}';
}

/**
 * Evaluate one expression against an optional row: `{"ok":true,"value":"..."}` or the error shape.
 * Column references resolve to "" when no row is given. `options` adds named maps and pre_pass tables
 * (REMAP, REPLACE, LOOKUP), exactly as {@link evalBatch} reads them.
 *
 * @throws TypeError with bxp's message when `options` is malformed (e.g. "maps must be a JSON object").
 */
export function evalExpr(
  src: string,
  headers?: readonly string[] | null,
  fields?: readonly string[] | null,
  options?: EvalOptions | null,
): string {
  const ctx = fullContext(headers, fields, options);
  try {
    return okValue(evaluate(src, ctx));
  } catch (err) {
    return errorObject(asExprError(err));
  }
}

/** Result of {@link evalTrace}: NDJSON call lines (+ final sentinel on success) and the error sentinel. */
export interface TraceResult {
  /** One JSON line per function call, then `{"t":"final","value":...}` on success; newline-terminated. */
  lines: string;
  /** `{"t":"error","error",...}` (no newline) when evaluation failed, else null. */
  errorJson: string | null;
  exitCode: 0 | 1;
}

function traceLine(rec: CallTrace): string {
  return `{"fn":${jsonString(rec.fn)},"src_start":${rec.src_start},"src_end":${rec.src_end},` +
    `"value":${jsonString(rec.value)}}\n`;
}

/**
 * Evaluate with a per-call trace. Lines already traced survive a mid-expression error; the error sentinel
 * is returned separately so the caller can route it. `options` as for {@link evalExpr}. The trace is
 * capped at {@link MAX_TRACE_CHARS}: past it the evaluation stops with `ResultTooLarge`.
 *
 * @throws TypeError with bxp's message when `options` is malformed.
 */
export function evalTrace(
  src: string,
  headers?: readonly string[] | null,
  fields?: readonly string[] | null,
  options?: EvalOptions | null,
): TraceResult {
  const lines: string[] = [];
  let size = 0;
  const ctx: EvalContext = {
    ...fullContext(headers, fields, options),
    trace: (rec: CallTrace) => {
      const line = traceLine(rec);
      size += line.length;
      if (size > MAX_TRACE_CHARS) {
        throw new ExprError(
          "ResultTooLarge",
          `the trace would exceed ${MAX_TRACE_CHARS} characters (16 Mi); trace a smaller part of the expression`,
        );
      }
      lines.push(line);
    },
  };
  try {
    const value = evaluate(src, ctx);
    lines.push(`{"t":"final","value":${jsonString(value)}}\n`);
    return { lines: lines.join(""), errorJson: null, exitCode: 0 };
  } catch (err) {
    return {
      lines: lines.join(""),
      errorJson: `{"t":"error",${errorMembers(asExprError(err))}}`,
      exitCode: 1,
    };
  }
}

/** Result of {@link evalBatch}: `json` is `{"results":[...]}`, or "" with `errorMessage` for a malformed request. */
export interface BatchResult {
  json: string;
  errorMessage?: string;
  exitCode: 0 | 1;
}

const batchError = (message: string): BatchResult => ({ json: "", errorMessage: message, exitCode: 1 });

/**
 * Evaluate many expressions against one row. `request` is the parsed
 * `{headers, fields, exprs, maps?, lookups?, single_prepass_name?, decimal_separator?, config?, template?}`
 * object (the options as {@link EvalOptions}); lookups are flat
 * `"block\u0000key\u0000field": value` entries. Ragged rows are fine: extra fields are ignored, missing
 * ones read as "". One request may spend at most {@link MAX_BATCH_RESULT_CHARS} characters of values
 * and {@link MAX_BATCH_WORK} units of work; expressions past either answer an error unevaluated.
 */
export function evalBatch(request: unknown): BatchResult {
  if (!isObject(request)) return batchError("eval_batch request must be a JSON object");
  for (const k of ["headers", "fields", "exprs"]) {
    if (!(k in request)) return batchError(`missing '${k}' in eval_batch request`);
  }
  const { headers, fields, exprs } = request;
  if (!Array.isArray(headers) || !Array.isArray(fields) || !Array.isArray(exprs)) {
    return batchError("headers/fields/exprs must be JSON arrays");
  }
  if (!headers.every((h) => typeof h === "string")) return batchError("headers entries must be strings");
  if (!fields.every((f) => typeof f === "string")) return batchError("fields entries must be strings");
  const options: EvalOptions = {};
  for (const name of EVAL_OPTION_NAMES) if (name in request) options[name] = request[name];
  const members = optionMembers(options);
  if (typeof members === "string") return batchError(members);

  const ctx: EvalContext = { ...rowContext(headers as string[], fields as string[]), ...members };
  let resultChars = 0;
  let work = 0;
  const results: string[] = exprs.map((src) => {
    if (typeof src !== "string") {
      return '{"ok":false,"error":"BadInput","detail":"exprs entries must be strings"}';
    }
    if (work >= MAX_BATCH_WORK) return errorObject(batchWorkSpent(work));
    if (resultChars >= MAX_BATCH_RESULT_CHARS) return errorObject(batchResultsFull(resultChars));
    try {
      const value = evaluate(src, ctx);
      work += lastEvaluationWork();
      if (resultChars + value.length > MAX_BATCH_RESULT_CHARS) {
        resultChars = MAX_BATCH_RESULT_CHARS; // nothing after a refused value may slip in
        return errorObject(batchResultsFull(resultChars, value.length));
      }
      resultChars += value.length;
      return okValue(value);
    } catch (err) {
      work += lastEvaluationWork();
      return errorObject(asExprError(err));
    }
  });
  return { json: `{"results":[${results.join(",")}]}`, exitCode: 0 };
}

function batchWorkSpent(work: number): ExprError {
  return new ExprError(
    "WorkLimitExceeded",
    `not evaluated: earlier expressions of this eval_batch request spent ${work} work units, ` +
      `over the request's budget of ${MAX_BATCH_WORK}; send fewer or cheaper expressions per request`,
  );
}

function batchResultsFull(chars: number, wanted = 0): ExprError {
  return new ExprError(
    "ResultTooLarge",
    (wanted > 0 ? `this value (${wanted} characters) does not fit: ` : "not evaluated: ") +
      `the values of one eval_batch request may add up to ${MAX_BATCH_RESULT_CHARS} characters (16 Mi)` +
      (wanted > 0 ? "" : `, and earlier expressions reached ${chars}`) +
      "; send fewer expressions per request",
  );
}
