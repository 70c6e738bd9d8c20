/**
 * Reading tool arguments the way bxp-mcp does: a required string is "missing" unless it is a string, a
 * row (`headers` / `fields`) is a native array of strings or, for older callers, that array JSON-encoded
 * in a string, and `maps` / `lookups` are lists of entries (as declared), bxp's objects, or either
 * JSON-encoded in a string; they reach the evaluator as bxp's objects.
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
 * import { stringArg } from "./args.ts";
 * import assert from "node:assert/strict";
 * assert.equal(stringArg({ expr: "1 + 2" }, "expr"), "1 + 2");
 * assert.equal(stringArg({ expr: 5 }, "expr"), null);
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
 * import { rowArgs } from "./args.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(rowArgs({ headers: ["P"], fields: '["7"]' }), { headers: ["P"], fields: ["7"] });
 * ```
 */
export function rowArgs(args: ToolArgs): RowArgs {
  return { headers: rowArgument(args?.headers, "headers"), fields: rowArgument(args?.fields, "fields") };
}

/**
 * The `bxp_eval_batch` request: the arguments themselves, with a legacy JSON-encoded `headers` / `fields`
 * string decoded (and `exprs`: a client rewriter may degrade an array argument to a string), and
 * `maps` / `lookups` in bxp's shapes ({@link tableArgs}); every other check is the
 * batch evaluator's. Throws a `TypeError` naming a malformed argument.
 */
export function batchRequest(args: ToolArgs): unknown {
  if (args === null) return null;
  const request: Record<string, unknown> = { ...args };
  for (const name of ["headers", "fields"] as const) {
    if (typeof request[name] === "string") request[name] = rowArgument(request[name], name);
  }
  if (typeof request.exprs === "string") request.exprs = decoded(request.exprs, "exprs", EXPRS_EXAMPLE);
  return { ...request, ...tableArgs(args) };
}

/** `maps` / `lookups` as the evaluator reads them (bxp's objects); absent ones are left out. */
export interface TableArgs {
  maps?: unknown;
  lookups?: unknown;
}

const EXPRS_EXAMPLE = `["[Price]*2","UPPER([Sym])"]`;
const MAP_EXAMPLE = '[{"map":"sym","key":"BTC","value":"BTC-EUR"}]';
const LOOKUP_EXAMPLE = '[{"pre_pass":"rates","key":"EUR","field":"rate","value":"1.1"}]';

/**
 * Read `maps` and `lookups` in any accepted shape: the declared lists of entries, bxp's objects
 * (`{name: {key: value}}`, `{"name\u0000key\u0000field": value}`), or either JSON-encoded in a string.
 * Lists become bxp's objects (without a prototype, so a name such as `__proto__` stays a name); objects
 * pass as they are, for the evaluator's own checks. Throws a `TypeError` naming the malformed entry.
 *
 * @example
 * ```ts
 * import { tableArgs } from "./args.ts";
 * import assert from "node:assert/strict";
 * // The objects have no prototype (a key named "__proto__" is just a key): compared as JSON here.
 * const json = (args: Parameters<typeof tableArgs>[0]) => JSON.stringify(tableArgs(args));
 * assert.equal(json({ maps: [{ map: "m", key: "a", value: "b" }] }), '{"maps":{"m":{"a":"b"}}}');
 * assert.equal(
 *   json({ lookups: [{ pre_pass: "rates", key: "EUR", field: "rate", value: "1.1" }] }),
 *   '{"lookups":{"rates\\u0000EUR\\u0000rate":"1.1"}}',
 * );
 * ```
 */
export function tableArgs(args: ToolArgs): TableArgs {
  const out: TableArgs = {};
  const maps = decoded(args?.maps, "maps", MAP_EXAMPLE);
  if (maps !== undefined) out.maps = Array.isArray(maps) ? mapsFromEntries(maps) : maps;
  const lookups = decoded(args?.lookups, "lookups", LOOKUP_EXAMPLE);
  if (lookups !== undefined) out.lookups = Array.isArray(lookups) ? lookupsFromEntries(lookups) : lookups;
  return out;
}

/** The value, a JSON-encoded string decoded; undefined when absent. */
function decoded(value: unknown, name: string, example: string): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new TypeError(`'${name}' must be a list, e.g. ${example} (or that list as JSON text)`);
  }
}

/** The string members `names` of entry `i` of `name`, or the refusal naming what is wrong. */
function entryOf(
  entry: unknown,
  i: number,
  name: string,
  names: readonly string[],
  example: string,
): string[] {
  const record = typeof entry === "object" && entry !== null && !Array.isArray(entry)
    ? entry as Record<string, unknown>
    : null;
  const values = names.map((member) => record?.[member]);
  if (record === null || values.some((v) => typeof v !== "string")) {
    throw new TypeError(
      `'${name}[${i}]' must be an object of strings {${names.join(", ")}}, e.g. ${example}`,
    );
  }
  return values as string[];
}

function mapsFromEntries(entries: unknown[]): Record<string, Record<string, string>> {
  const maps: Record<string, Record<string, string>> = Object.create(null);
  entries.forEach((entry, i) => {
    const [map, key, value] = entryOf(entry, i, "maps", ["map", "key", "value"], MAP_EXAMPLE);
    const named = Object.hasOwn(maps, map) ? maps[map] : (maps[map] = Object.create(null));
    // A key given twice is a model's slip: say so rather than keep one of them silently.
    if (Object.hasOwn(named, key)) {
      throw new TypeError(`'maps[${i}]' gives key ${clipped(key)} of map ${clipped(map)} a second time`);
    }
    named[key] = value;
  });
  return maps;
}

function lookupsFromEntries(entries: unknown[]): Record<string, string> {
  const flat: Record<string, string> = Object.create(null);
  const members = ["pre_pass", "key", "field", "value"] as const;
  entries.forEach((entry, i) => {
    const [block, key, field, value] = entryOf(entry, i, "lookups", members, LOOKUP_EXAMPLE);
    // bxp's table joins the three names with NUL: one inside a name would split it elsewhere.
    if ([block, key, field].some((part) => part.includes("\0"))) {
      throw new TypeError(`'lookups[${i}]': pre_pass, key and field must not contain a NUL character`);
    }
    const joined = `${block}\0${key}\0${field}`;
    if (Object.hasOwn(flat, joined)) {
      throw new TypeError(
        `'lookups[${i}]' gives field ${clipped(field)} of key ${clipped(key)} in ${
          clipped(block)
        } a second time`,
      );
    }
    flat[joined] = value;
  });
  return flat;
}

/** A name quoted for a message, at most 64 characters. */
function clipped(text: string): string {
  return JSON.stringify(text.length <= 64 ? text : `${text.slice(0, 64)}...`);
}
