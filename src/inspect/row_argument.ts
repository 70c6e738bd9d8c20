/**
 * Reading a row tool argument (`headers` / `fields`) the way bxp-mcp does. Its own module, free of the
 * expression language, so a server can check arguments before it has loaded the language.
 *
 * @example
 * ```ts
 * import { rowArgument } from "./row_argument.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(rowArgument('["Date","Price"]', "headers"), ["Date", "Price"]);
 * ```
 * @module
 */

/**
 * Read a `headers`/`fields` tool argument: an array of strings, or (legacy) a JSON-encoded array string.
 * `undefined`/`null` mean "no row". Throws a `TypeError` with bxp-mcp's wording otherwise.
 *
 * @example
 * ```ts
 * import { rowArgument } from "./row_argument.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(rowArgument(["a"], "fields"), ["a"]);
 * assert.equal(rowArgument(undefined, "fields"), null);
 * ```
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
