/**
 * Stateless expression services with bxp's result shapes (the `bxp_validate_expr`, `bxp_eval`,
 * `bxp_eval_batch` and `bxp_eval_trace` tool results).
 *
 * @example
 * ```ts
 * import { evalExpr, validateExprJson } from "./eval.ts";
 * evalExpr("1 + 2"); // '{"ok":true,"value":"3"}'
 * validateExprJson("SPLIT_PART('a/b', '/', 0)"); // '{"ok":false,"error":"SplitPartBadIndex",...}'
 * ```
 * @module
 */

import { emitJson, type OutValue } from "../config/emit.ts";
import {
  type CallTrace,
  compileExpression,
  emptyContext,
  type EvalContext,
  ExprError,
  type LookupTables,
  validateExpression,
} from "../lang/mod.ts";

const str = (v: string): OutValue => ({ t: "string", v });
const int = (n: number): OutValue => ({ t: "number", text: String(n) });
const obj = (entries: [string, OutValue][]): OutValue => ({ t: "object", entries });

/** An unexpected exception becomes an expression error rather than a stack trace. */
function asExprError(err: unknown): ExprError {
  if (err instanceof ExprError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ExprError("InternalError", message);
}

/** `{ok:false, error, detail, off?, len?}` entries (off/len only when the span is pinned). */
function errorEntries(e: ExprError): [string, OutValue][] {
  const entries: [string, OutValue][] = [["ok", { t: "bool", v: false }], ["error", str(e.error)], [
    "detail",
    str(e.detail),
  ]];
  if (e.len > 0) entries.push(["off", int(e.off)], ["len", int(e.len)]);
  return entries;
}

/** Row context from header names and field values (a later duplicate header wins, as in bxp). */
function rowContext(
  headers: readonly string[] | null | undefined,
  fields: readonly string[] | null | undefined,
) {
  const columns = new Map<string, number>();
  (headers ?? []).forEach((h, i) => columns.set(h, i));
  return { ...emptyContext(), columns, fields: [...(fields ?? [])] };
}

function evaluate(src: string, ctx: EvalContext): string {
  return compileExpression(src).evaluate(ctx);
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
  return emitJson(obj(e ? errorEntries(e) : [["ok", { t: "bool", v: true }]]), 0);
}

/**
 * Evaluate one expression against an optional row: `{"ok":true,"value":"..."}` or the error shape.
 * Column references resolve to "" when no row is given.
 */
export function evalExpr(
  src: string,
  headers?: readonly string[] | null,
  fields?: readonly string[] | null,
): string {
  try {
    const value = evaluate(src, rowContext(headers, fields));
    return emitJson(obj([["ok", { t: "bool", v: true }], ["value", str(value)]]), 0);
  } catch (err) {
    return emitJson(obj(errorEntries(asExprError(err))), 0);
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
  return emitJson(
    obj([["fn", str(rec.fn)], ["src_start", int(rec.src_start)], ["src_end", int(rec.src_end)], [
      "value",
      str(rec.value),
    ]]),
    0,
  );
}

/**
 * Evaluate with a per-call trace. Lines already traced survive a mid-expression error; the error sentinel
 * is returned separately so the caller can route it.
 */
export function evalTrace(
  src: string,
  headers?: readonly string[] | null,
  fields?: readonly string[] | null,
): TraceResult {
  const lines: string[] = [];
  const ctx = {
    ...rowContext(headers, fields),
    trace: (rec: CallTrace) => lines.push(traceLine(rec) + "\n"),
  };
  try {
    const value = evaluate(src, ctx);
    lines.push(emitJson(obj([["t", str("final")], ["value", str(value)]]), 0) + "\n");
    return { lines: lines.join(""), errorJson: null, exitCode: 0 };
  } catch (err) {
    const entries = errorEntries(asExprError(err)).filter(([k]) => k !== "ok");
    return {
      lines: lines.join(""),
      errorJson: emitJson(obj([["t", str("error")], ...entries]), 0),
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const batchError = (message: string): BatchResult => ({ json: "", errorMessage: message, exitCode: 1 });

/**
 * Evaluate many expressions against one row. `request` is the parsed
 * `{headers, fields, exprs, maps?, lookups?, single_prepass_name?}` object; lookups are flat
 * `"block\u0000key\u0000field": value` entries. Ragged rows are fine: extra fields are ignored, missing
 * ones read as "".
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

  const maps = new Map<string, Map<string, string>>();
  if ("maps" in request) {
    if (!isObject(request.maps)) return batchError("maps must be a JSON object");
    for (const [name, entries] of Object.entries(request.maps)) {
      if (!isObject(entries)) return batchError("maps entries must be JSON objects");
      const map = new Map<string, string>();
      for (const [k, v] of Object.entries(entries)) {
        if (typeof v !== "string") return batchError("map values must be strings");
        map.set(k, v);
      }
      maps.set(name, map);
    }
  }

  let lookups: LookupTables | null = null;
  if ("lookups" in request) {
    if (!isObject(request.lookups)) return batchError("lookups must be a JSON object");
    for (const [flat, value] of Object.entries(request.lookups)) {
      if (typeof value !== "string") return batchError("lookups values must be strings");
      const [block, key = "", field = ""] = flat.split("\0");
      lookups ??= new Map();
      const byKey = lookups.get(block) ?? new Map<string, Map<string, string>>();
      lookups.set(block, byKey);
      const byField = byKey.get(key) ?? new Map<string, string>();
      byKey.set(key, byField);
      byField.set(field, value);
    }
  }

  if ("single_prepass_name" in request) {
    const single = request.single_prepass_name;
    if (single !== null && typeof single !== "string") {
      return batchError("single_prepass_name must be a string");
    }
    // 2-arg LOOKUP reads the legacy `_default` block; point it at the template's only block.
    if (typeof single === "string" && single !== "" && lookups?.has(single) && !lookups.has("_default")) {
      lookups.set("_default", lookups.get(single) as Map<string, Map<string, string>>);
    }
  }

  const ctx: EvalContext = { ...rowContext(headers as string[], fields as string[]), maps, lookups };
  const results: OutValue[] = exprs.map((src) => {
    if (typeof src !== "string") {
      return obj([["ok", { t: "bool", v: false }], ["error", str("BadInput")], [
        "detail",
        str("exprs entries must be strings"),
      ]]);
    }
    try {
      return obj([["ok", { t: "bool", v: true }], ["value", str(evaluate(src, ctx))]]);
    } catch (err) {
      return obj(errorEntries(asExprError(err)));
    }
  });
  return { json: emitJson(obj([["results", { t: "array", items: results }]]), 0), exitCode: 0 };
}

/**
 * Read a `headers`/`fields` tool argument: an array of strings, or (legacy) a JSON-encoded array string.
 * `undefined`/`null` mean "no row". Throws a `TypeError` with bxp-mcp's wording otherwise.
 */
export function rowArgument(value: unknown, name: "headers" | "fields"): string[] | null {
  if (value === undefined || value === null) return null;
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw new TypeError(`'headers' and 'fields' must be arrays of strings, e.g. ["Date","Price"]`);
    }
  }
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  if (typeof value === "string") {
    throw new TypeError(`'headers' and 'fields' must be arrays of strings, e.g. ["Date","Price"]`);
  }
  throw new TypeError(`'${name}' must be an array of strings, e.g. ["Date","Price"]`);
}
