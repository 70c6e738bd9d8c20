/**
 * `node:fs`, loaded on first need. The guarded reads and writes need its descriptor-level calls (an open
 * with `O_NOFOLLOW`, `fstat`, `fchmod`, `fsync`), which Deno's own API lacks; but loading it costs every
 * isolate that imports it about 60-90 ms on a two-core machine, and bxp-mcp's main thread and session
 * worker both paid that at each start, though most sessions never read a file by path.
 *
 * Async entry points call {@link loadNodeFs} first; the synchronous checks they run next (every check
 * next to the system call it guards) then take it from {@link nodeFs}.
 *
 * @example
 * ```ts
 * import { loadNodeFs, nodeFs } from "./node_fs.ts";
 * import assert from "node:assert/strict";
 * const fs = await loadNodeFs();
 * assert.equal(fs.constants.O_RDONLY, 0);
 * assert.equal(nodeFs() === fs, true);
 * ```
 * @module
 */

import type * as NodeFs from "node:fs";

/** The `node:fs` module's type. */
export type NodeFsModule = typeof NodeFs;

/** `fs.Stats`. */
export type NodeStats = NodeFs.Stats;

let loaded: NodeFsModule | null = null;

/** Load `node:fs` (once) and return it. */
export async function loadNodeFs(): Promise<NodeFsModule> {
  return loaded ??= await import("node:fs");
}

/** `node:fs` once {@link loadNodeFs} has resolved; a programming error before. */
export function nodeFs(): NodeFsModule {
  if (loaded === null) throw new Error("internal error: node:fs used before loadNodeFs()");
  return loaded;
}
