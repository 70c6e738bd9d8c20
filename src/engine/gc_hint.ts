/**
 * A full garbage collection at the end of a phase that left much dead native memory behind, when the
 * runtime offers one (bxp-cli runs with V8's `--expose-gc`; elsewhere, a browser page or a test, this does
 * nothing).
 *
 * Why: inflating a zip member makes one native buffer per piece, freed only when a collection finds its
 * small JS wrapper dead. Few collections run while bytes merely stream through, so tens of megabytes of
 * dead pieces wait in the allocator when the conversion starts; the conversion's own buffers were then
 * allocated beside them, and the peak of an archive's run was 10-15 MB higher than after a collection
 * at the boundary (`zip-4x500k-c16`). One collection costs a few milliseconds at these heap sizes, once
 * per member and once per archive.
 *
 * The same holds between the inputs of a run: each file converted in blocks leaves its reader's and block
 * splitter's buffers (and the rest of its pass) behind on the main thread, and V8 collected them only once
 * tens of megabytes had piled up. Twelve 144 MB inputs in one run peaked at 140-160 MB, and at 127-132 MB
 * with a collection after each file's main pass (the main thread's alone; the worker's added nothing). That
 * collection now runs when the next file's pass starts, so a run's last input does not pay for it.
 *
 * @example
 * ```ts
 * import { collectGarbageHint } from "./gc_hint.ts";
 * import assert from "node:assert/strict";
 * // true when a collection ran (deno run --v8-flags=--expose-gc)
 * assert.equal(typeof collectGarbageHint(), "boolean");
 * ```
 * @module
 */

/** Runs a full collection when `globalThis.gc` exists; true when it did. */
export function collectGarbageHint(): boolean {
  const gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== "function") return false;
  gc();
  return true;
}
