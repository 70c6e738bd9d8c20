/**
 * Bounded reading: keep at most a fixed number of bytes of a stream or file, so a runaway child or a huge
 * output file cannot exhaust memory.
 *
 * @module
 */

import { concatBytes } from "../../util/bytes.ts";

/** Cap on each of bxp-cli's captured stdout and stderr, and on each file read back. */
export const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;

/** What {@link readCapped} kept. */
export interface Captured {
  /** The first `cap` bytes. */
  bytes: Uint8Array;
  /** Bytes seen beyond the cap and dropped. */
  dropped: number;
}

/**
 * Drain `stream` to its end, keeping the first `cap` bytes and counting (not buffering) the rest, so the
 * writer never blocks on a full pipe.
 *
 * Here a stream of two 3-byte chunks stands in for a child's stdout, capped at 4 bytes:
 *
 * @example
 * ```ts
 * import { readCapped } from "./capture.ts";
 * import assert from "node:assert/strict";
 * const stdout = ReadableStream.from([new Uint8Array([1, 2, 3]), new Uint8Array([4, 5, 6])]);
 * const { bytes, dropped } = await readCapped(stdout, 4);
 * assert.deepEqual(bytes, new Uint8Array([1, 2, 3, 4]));
 * assert.equal(dropped, 2);
 * ```
 */
export async function readCapped(stream: ReadableStream<Uint8Array>, cap: number): Promise<Captured> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let dropped = 0;
  for await (const chunk of stream) {
    const room = cap - kept;
    if (room >= chunk.length) {
      chunks.push(chunk);
      kept += chunk.length;
    } else {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      kept += Math.max(room, 0);
      dropped += chunk.length - Math.max(room, 0);
    }
  }
  return { bytes: concatBytes(chunks), dropped };
}

/**
 * Decode captured output as UTF-8 (invalid bytes become U+FFFD), noting a truncation at the end so the
 * reader knows the text is incomplete.
 */
export function capturedText(captured: Captured, what: string): string {
  const text = new TextDecoder().decode(captured.bytes);
  if (captured.dropped === 0) return text;
  return `${text}\n[bxp-mcp: ${what} truncated: ${captured.dropped} bytes beyond the ${captured.bytes.length}-byte cap were dropped]\n`;
}

/** Why a file was not read back. */
export class FileTooLargeError extends Error {
  /** Create the error for a file of `size` bytes over `cap`. */
  constructor(size: number, cap: number) {
    super(`file is ${size} bytes, over the ${cap}-byte read-back cap`);
    this.name = "FileTooLargeError";
  }
}

/**
 * Read a file of at most `cap` bytes; a larger one throws {@link FileTooLargeError}, found from the open
 * handle's size before reading and re-checked while reading in case the file grows.
 */
export async function readFileCapped(path: string, cap: number): Promise<Uint8Array> {
  const file = await Deno.open(path, { read: true });
  try {
    const { size } = await file.stat();
    if (size > cap) throw new FileTooLargeError(size, cap);
    const chunks: Uint8Array[] = [];
    let total = 0;
    while (true) {
      const buffer = new Uint8Array(64 * 1024);
      const n = await file.read(buffer);
      if (n === null) break;
      total += n;
      if (total > cap) throw new FileTooLargeError(total, cap);
      chunks.push(buffer.subarray(0, n));
    }
    return concatBytes(chunks);
  } finally {
    file.close();
  }
}
