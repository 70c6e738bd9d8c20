/**
 * Reading the environment without asking: bxp-mcp's permission list grants only the temp-folder variables,
 * so any other name is read as unset. A module of its own, so the main thread can read the temp folder
 * without loading the simulation code.
 *
 * @module
 */

/**
 * An environment variable, or undefined when unset or when this process may not read it (the bxp-mcp
 * task grants only the temp-folder variables; the rest are simply not passed on).
 *
 * @example
 * ```ts
 * import { readEnvQuietly } from "./read_env.ts";
 * import assert from "node:assert/strict";
 * assert.equal(readEnvQuietly("TMPDIR"), Deno.env.get("TMPDIR")); // undefined when unset or not granted
 * ```
 */
export function readEnvQuietly(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
