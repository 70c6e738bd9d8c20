/**
 * Reading tool arguments the way bxp-mcp does: a required string is "missing" unless it is a string, and
 * a row (`headers` / `fields`) is a native array of strings or, for older callers, that array JSON-encoded
 * in a string.
 *
 * @module
 */

// The row reader alone, not the inspect API: a session answers its handshake before it loads the language.
import { rowArgument } from "../../inspect/row_argument.ts";

/** The tool's `arguments` object, or null when the request had none. */
export type ToolArgs = Record<string, unknown> | null;

/**
 * The string argument `name`, or null when absent or not a string (bxp treats both as missing).
 *
 * @example
 * ```ts
 * stringArg({ expr: "1 + 2" }, "expr"); // "1 + 2"
 * stringArg({ expr: 5 }, "expr"); // null
 * ```
 */
export function stringArg(args: ToolArgs, name: string): string | null {
  const value = args?.[name];
  return typeof value === "string" ? value : null;
}

/** The row of an eval call: header names and field values, each null when not given. */
export interface RowArgs {
  headers: string[] | null;
  fields: string[] | null;
}

/**
 * Read `headers` and `fields`. Throws a `TypeError` whose message is bxp's refusal text (e.g.
 * `'headers' must be an array of strings, e.g. ["Date","Price"]`) for any other shape.
 *
 * @example
 * ```ts
 * rowArgs({ headers: ["P"], fields: '["7"]' }); // { headers: ["P"], fields: ["7"] }
 * ```
 */
export function rowArgs(args: ToolArgs): RowArgs {
  return { headers: rowArgument(args?.headers, "headers"), fields: rowArgument(args?.fields, "fields") };
}

/**
 * The `bxp_eval_batch` request: the arguments themselves, with a legacy JSON-encoded `headers` / `fields`
 * string decoded; every other check is the batch evaluator's.
 */
export function batchRequest(args: ToolArgs): unknown {
  if (args === null) return null;
  const request: Record<string, unknown> = { ...args };
  for (const name of ["headers", "fields"] as const) {
    if (typeof request[name] === "string") request[name] = rowArgument(request[name], name);
  }
  return request;
}
