/**
 * A small, safe glob for `bxp_list_files`: `*` (any characters within one path component), `?` (one
 * character, not `/`) and `**` (any number of whole components, none included). Every other character is
 * literal, so a pattern from a model can never inject regular-expression syntax, and the compiled matcher
 * works component by component (no backtracking blow-up on hostile patterns).
 *
 * @example
 * ```ts
 * import { compileGlob } from "./glob.ts";
 * import assert from "node:assert/strict";
 * const match = compileGlob("data/**\/*.csv");
 * assert.equal(match("data/2024/jan.csv"), true);
 * assert.equal(match("data/jan.csv"), true);
 * assert.equal(match("configs/a.csv"), false);
 * ```
 * @module
 */

/** Longest accepted pattern, in characters. */
export const MAX_GLOB_LENGTH = 256;

/** A pattern that cannot be used. */
export class GlobError extends Error {
  /** Create the error. */
  constructor(message: string) {
    super(message);
    this.name = "GlobError";
  }
}

/** Whether one path component matches one pattern component (`*` and `?` only), iteratively. */
export function matchComponent(pattern: string, name: string): boolean {
  const p = [...pattern];
  const n = [...name];
  let pi = 0;
  let ni = 0;
  let starP = -1;
  let starN = 0;
  while (ni < n.length) {
    if (pi < p.length && (p[pi] === "?" || p[pi] === n[ni])) {
      pi++;
      ni++;
    } else if (pi < p.length && p[pi] === "*") {
      starP = pi++;
      starN = ni;
    } else if (starP !== -1) {
      pi = starP + 1;
      ni = ++starN;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === "*") pi++;
  return pi === p.length;
}

/**
 * Compile `pattern` into a matcher over `/`-separated relative paths. Throws {@link GlobError} for an
 * empty, over-long, absolute or `..`-holding pattern, or one with a NUL or control character.
 */
export function compileGlob(pattern: string): (path: string) => boolean {
  if (pattern.length === 0) throw new GlobError("glob must not be empty");
  if (pattern.length > MAX_GLOB_LENGTH) {
    throw new GlobError(`glob is too long (${pattern.length} characters; the limit is ${MAX_GLOB_LENGTH})`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(pattern)) throw new GlobError("glob must not contain control characters");
  if (pattern.startsWith("/") || pattern.includes("\\")) {
    throw new GlobError("glob must be relative to the project root and use '/' as its separator");
  }
  const parts = pattern.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new GlobError("glob must not contain '..'");
  if (parts.length === 0) throw new GlobError("glob must name files");
  // Consecutive ** are one **.
  const compact = parts.filter((part, i) => !(part === "**" && parts[i - 1] === "**"));
  return (path: string) => matchParts(compact, path.split("/"));
}

/** Component-wise match with `**`, by dynamic programming (linear in pattern × path components). */
function matchParts(pattern: readonly string[], path: readonly string[]): boolean {
  // can[i][j]: pattern[i..] matches path[j..]
  let next = new Array<boolean>(path.length + 1).fill(false);
  next[path.length] = true;
  for (let i = pattern.length - 1; i >= 0; i--) {
    const here = new Array<boolean>(path.length + 1).fill(false);
    for (let j = path.length; j >= 0; j--) {
      if (pattern[i] === "**") {
        here[j] = next[j] || (j < path.length && here[j + 1]);
      } else {
        here[j] = j < path.length && matchComponent(pattern[i], path[j]) && next[j + 1];
      }
    }
    next = here;
  }
  return next[0];
}
