/**
 * Writing a whole byte array through a writer whose `write` may take only part of it (a file, stdout).
 *
 * A writer that takes at most two bytes per call still receives every byte, in order:
 *
 * @example
 * ```ts
 * import { writeAll } from "./write_all.ts";
 * import assert from "node:assert/strict";
 * const got: number[] = [];
 * const twoAtATime = {
 *   write: (bytes: Uint8Array) => {
 *     got.push(...bytes.subarray(0, 2));
 *     return Promise.resolve(Math.min(2, bytes.length));
 *   },
 * };
 * await writeAll(twoAtATime, new TextEncoder().encode("done\n"));
 * assert.equal(new TextDecoder().decode(new Uint8Array(got)), "done\n");
 * ```
 * @module
 */

/** Something bytes are written to, a part at a time: answers how many of them it took. */
export interface PartialWriter {
  write(bytes: Uint8Array): Promise<number>;
}

/**
 * Writes all of `bytes` to `w` (nothing for none). The first write is handed `bytes` itself, and only a short write makes a
 * view of the rest: a buffer released later by detaching it (trace frames) must not have had a second view,
 * or V8 drops its ArrayBufferDetaching protector for the thread (see engine/parallel/recycler.ts).
 */
export async function writeAll(w: PartialWriter, bytes: Uint8Array): Promise<void> {
  if (bytes.length === 0) return;
  let at = await w.write(bytes);
  while (at < bytes.length) at += await w.write(bytes.subarray(at));
}
