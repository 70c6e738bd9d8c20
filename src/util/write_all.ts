/**
 * Writing a whole byte array through a writer whose `write` may take only part of it (a file, stdout).
 *
 * Not run as a test: it writes to the real stdout.
 *
 * @example
 * ```ts ignore
 * await writeAll(Deno.stdout, new TextEncoder().encode("done\n"));
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
