/**
 * One member's uncompressed bytes as a stream: its compressed range is read in chunks and pushed through an
 * {@link InflateSession}, with the next chunks already read and inflating while the caller handles the
 * current pieces. Memory stays within a few chunks and their output, whatever the member's size.
 *
 * @example
 * ```ts ignore
 * for await (const piece of memberChunks(reader, entry, pool.session({ ...entry }))) await out.write(piece);
 * ```
 * @module
 */

import { memberDataOffset, type RangeReader, type ZipEntry } from "../../formats/zip/archive.ts";
import type { InflateSession } from "./pool.ts";

/** Compressed bytes read and pushed at a time. */
export const MEMBER_CHUNK = 256 * 1024;
/** Chunks in flight ahead of the one being consumed. */
const AHEAD = 2;

/**
 * The member's uncompressed pieces in order. Throws what reading or inflating throws (the session is
 * closed then).
 */
export async function* memberChunks(
  reader: RangeReader,
  entry: ZipEntry,
  session: InflateSession,
  chunkSize = MEMBER_CHUNK,
): AsyncGenerator<Uint8Array> {
  const start = await memberDataOffset(reader, entry);
  const end = start + entry.compressedSize;
  const total = Math.max(1, Math.ceil(entry.compressedSize / chunkSize));
  let issued = 0;
  // Each push is posted only after the previous one was (the session needs them in order); the wrapper
  // object keeps `posted` from waiting for the inflated answer itself.
  let posted: Promise<unknown> = Promise.resolve();
  const queue: Promise<{ answer: Promise<Uint8Array[]> }>[] = [];
  const issue = () => {
    const off = start + issued * chunkSize;
    const len = Math.min(chunkSize, end - off);
    const final = ++issued === total;
    const read = reader.read(off, len);
    const next = Promise.all([read, posted]).then(([chunk]) => {
      if (chunk.length !== len) throw new Error(`member '${entry.name}' is truncated`);
      const answer = session.push(chunk, final);
      answer.catch(() => {});
      return { answer };
    });
    next.catch(() => {});
    posted = next;
    queue.push(next);
  };
  let completed = false;
  try {
    while (issued < total && queue.length < AHEAD) issue();
    while (queue.length > 0) {
      const { answer } = await queue.shift()!;
      const pieces = await answer;
      if (issued < total) issue();
      for (const piece of pieces) yield piece;
    }
    completed = true;
  } finally {
    // A failure, or a consumer that stopped early: the worker may drop the member's state.
    if (!completed) session.close();
  }
}
