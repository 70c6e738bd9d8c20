/**
 * One member's uncompressed bytes as a stream: its compressed range is read in chunks and written into an
 * {@link InflateSession} while its pieces are read out, so reading, inflating and the caller's work overlap.
 * Memory stays within a few chunks and their output, whatever the member's size.
 *
 * @example
 * ```ts
 * import { memberChunks } from "./member_stream.ts";
 * import { InflatePool } from "./pool.ts";
 * import { bytesReader, readZipEntries } from "../../formats/zip/archive.ts";
 * import { zipSync } from "fflate";
 * import assert from "node:assert/strict";
 * const data = new TextEncoder().encode("h\n" + "x,1\n".repeat(1000));
 * const reader = bytesReader(zipSync({ "m.csv": [data, { level: 9 }] }));
 * const [entry] = await readZipEntries(reader);
 * const pool = InflatePool.local(); // the calling thread; InflatePool.start(n) gives worker sessions
 * let size = 0;
 * for await (const piece of memberChunks(reader, entry, pool.session(entry), 512)) size += piece.length;
 * assert.equal(size, data.length);
 * ```
 * @module
 */

import { memberDataOffset, type RangeReader, type ZipEntry } from "../../formats/zip/archive.ts";
import type { InflateSession } from "./pool.ts";

/** Compressed bytes read and handed over at a time. */
export const MEMBER_CHUNK = 64 * 1024;

/**
 * The member's uncompressed pieces in order (read from the session while a feeder reads the compressed
 * range and writes it in). Throws what reading or inflating throws; the session is closed then, or when the
 * consumer stops early.
 */
export async function* memberChunks(
  reader: RangeReader,
  entry: ZipEntry,
  session: InflateSession,
  chunkSize = MEMBER_CHUNK,
): AsyncGenerator<Uint8Array> {
  let completed = false;
  let feedFailure: unknown = null;
  try {
    const start = await memberDataOffset(reader, entry);
    const end = start + entry.compressedSize;
    const feeding = (async () => {
      let at = start;
      do {
        const len = Math.min(chunkSize, end - at);
        const chunk = await reader.read(at, len);
        if (chunk.length !== len) throw new Error(`member '${entry.name}' is truncated`);
        at += len;
        await session.write(chunk, at >= end);
      } while (at < end);
    })().catch((err) => {
      feedFailure = err;
      // The reader side learns of it through the closed session.
      session.close();
    });
    try {
      for await (const piece of session.pieces()) yield piece;
    } catch (err) {
      throw feedFailure ?? err;
    }
    await feeding;
    if (feedFailure !== null) throw feedFailure;
    completed = true;
  } finally {
    if (!completed) session.close();
  }
}
