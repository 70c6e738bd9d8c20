/**
 * The byte budget of a tool answer. Every tool takes an optional `max_bytes` (default
 * {@link DEFAULT_MAX_BYTES}, at most {@link MAX_BYTES_CAP}); an answer whose `tools/call` result would be
 * larger becomes a tool failure that states its size and how to narrow the request, instead of flooding
 * the model's context. Tools that can trim themselves (bxp_simulate) read the budget from
 * `args.max_bytes`, which registration always fills in.
 *
 * @module
 */

import { toCallToolResult, type ToolResult } from "../protocol/mod.ts";
import { utf8Length } from "../../util/utf8.ts";
import type { JsonSchema } from "./schemas.ts";

/** The budget of a call that names none: room for the whole of bxp_docs twice over. */
export const DEFAULT_MAX_BYTES = 256 * 1024;

/** The largest budget a call may ask for. */
export const MAX_BYTES_CAP = 4 * 1024 * 1024;

/** The smallest budget a call may ask for (a failure message must fit). */
export const MIN_MAX_BYTES = 1024;

/** The `max_bytes` argument every tool's inputSchema gets. */
export const MAX_BYTES_PROP: JsonSchema = {
  type: "integer",
  minimum: MIN_MAX_BYTES,
  maximum: MAX_BYTES_CAP,
  description: `Optional answer budget in bytes (default ${DEFAULT_MAX_BYTES}, at most ${MAX_BYTES_CAP}): ` +
    "a larger answer is refused with its size and how to narrow the request.",
};

/**
 * `schema` with the `max_bytes` property added (a new object; the catalog entry stays as written). An
 * entry that declares its own `max_bytes` (a tool that trims itself to a narrower range) keeps it.
 */
export function withMaxBytes(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined ?? {};
  if (Object.hasOwn(properties, "max_bytes")) return schema;
  return { ...schema, properties: { ...properties, max_bytes: MAX_BYTES_PROP } };
}

/** The budget of a checked call: its `max_bytes`, or the default. */
export function budgetOf(args: Record<string, unknown>): number {
  const value = args.max_bytes;
  return typeof value === "number" ? value : DEFAULT_MAX_BYTES;
}

/**
 * The size in bytes of the `tools/call` result `result` becomes (content plus any structured copy), or a
 * cheap upper bound when that bound is already within `budget`.
 */
export function answerBytes(result: ToolResult, allowStructured: boolean, budget: number): number {
  if (result.json !== undefined) {
    return result.json.length * 3 <= budget ? result.json.length * 3 : utf8Length(result.json);
  }
  // JSON escaping grows a UTF-16 unit to at most 6 bytes; the text may be sent twice (text + structured).
  const bound = result.text.length * 12 + 1024;
  if (result.structured === undefined && (result.links?.length ?? 0) === 0 && bound <= budget) return bound;
  return utf8Length(JSON.stringify(toCallToolResult(result, allowStructured)));
}

/**
 * The failure that replaces an answer over its budget.
 *
 * @example
 * ```ts
 * import { overBudget } from "./budget.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   overBudget("bxp_docs", 300_000, 262_144, "ask for one section").text,
 *   "error: the bxp_docs answer is 300000 bytes, over this call's max_bytes budget of 262144: ask for one section, or raise max_bytes (at most 4194304)",
 * );
 * ```
 */
export function overBudget(tool: string, size: number, budget: number, narrow?: string): ToolResult {
  const how = narrow === undefined ? "narrow the request" : narrow;
  const raise = budget < MAX_BYTES_CAP ? `, or raise max_bytes (at most ${MAX_BYTES_CAP})` : "";
  return {
    text: `error: the ${tool} answer is ${size} bytes, over this call's max_bytes budget of ${budget}: ` +
      `${how}${raise}`,
    isError: true,
  };
}
