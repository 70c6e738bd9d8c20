/**
 * The BXTB trace of a CLI run, fanned out to stdout (`--trace`) and/or a file (`--trace-file`): frames are
 * encoded once and the same bytes go to both.
 *
 * The example writes a trace file in a temporary folder (`toStdout: true` would write to the real stdout).
 *
 * @example
 * ```ts
 * import { TraceOut } from "./trace_out.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * try {
 *   const trace = await TraceOut.open({ toStdout: false, file: `${dir}/run.bxtb` }); // --trace-file
 *   trace.fileStart(0, "t", "a.csv", ["h"]);
 *   trace.done(0);
 *   await trace.close();
 *   const bytes = await Deno.readFile(`${dir}/run.bxtb`);
 *   assert.equal(new TextDecoder().decode(bytes.subarray(0, 4)), "BXTB");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 * @module
 */

import { BxtbWriter } from "../trace/bxtb.ts";
import { writeAll } from "../util/write_all.ts";
import type { TraceSink } from "../engine/mod.ts";

/** Size of a trace chunk written at once. */
const CHUNK_BYTES = 256 * 1024;
/** Written chunks kept for reuse; more are only needed when frames outrun a flush, and those go. */
const MAX_SPARE_CHUNKS = 4;

/**
 * A {@link TraceSink} writing BXTB to stdout and/or a file.
 *
 * Memory: the encoder's chunks come from a small free list and go back to it once written, and frames
 * appended with {@link TraceOut.appendFrames} are released (their buffer detached) as soon as they are
 * written. Both matter because a buffer that waits for a write outlives a few young-generation collections,
 * ends in the old generation and is freed only by a full collection, which a run with a flat heap rarely
 * has: one fresh buffer per parallel block left about 20 MB of dead trace blocks behind at 2M rows.
 */
export class TraceOut implements TraceSink {
  readonly enabled = true;
  /** Chunk buffers allocated so far (for tests and diagnostics): a handful, however long the run. */
  chunksAllocated = 0;
  readonly #writer: BxtbWriter;
  readonly #file: Deno.FsFile | null;
  readonly #toStdout: boolean;
  #pending: Uint8Array[] = [];
  readonly #spare: Uint8Array[] = [];
  /** The buffers of the encoder's chunks (everything else in `#pending` is appended frames). */
  readonly #chunkBuffers = new WeakSet<ArrayBufferLike>();

  private constructor(toStdout: boolean, file: Deno.FsFile | null) {
    this.#toStdout = toStdout;
    this.#file = file;
    this.#writer = new BxtbWriter((chunk) => this.#pending.push(chunk), {
      chunkSize: CHUNK_BYTES,
      newChunk: (size) => this.#takeChunk(size),
    });
  }

  /** Opens the sinks; the file (created or truncated) is opened before any processing, as bxp does. */
  static async open(opts: { toStdout: boolean; file: string | null }): Promise<TraceOut> {
    const file = opts.file === null
      ? null
      : await Deno.open(opts.file, { write: true, create: true, truncate: true });
    return new TraceOut(opts.toStdout, file);
  }

  fileStart(format: number, template: string, path: string, headers: readonly string[]): void {
    this.#writer.fileStart(format, template, path, headers);
  }
  fileEnd(sourceRows: number, writtenRows: number, errors: number, warnings: number): void {
    this.#writer.fileEnd(sourceRows, writtenRows, errors, warnings);
  }
  outputRow(locator: number, outputIdx: number, ruleIdx: number, action: string): void {
    this.#writer.outputRow(locator, outputIdx, ruleIdx, action);
  }
  filteredRow(locator: number, reason: string): void {
    this.#writer.filteredRow(locator, reason);
  }
  errorRow(locator: number, varName: string, kind: string, detail: string, origin: string): void {
    this.#writer.errorRow(locator, varName, kind, detail, origin);
  }
  prepassEntry(name: string, key: string, field: string, value: string): void {
    this.#writer.prepassEntry(name, key, field, value);
  }
  done(exitCode: number): void {
    this.#writer.done(exitCode);
  }
  /**
   * Appends a parallel block's frames. `bytes` becomes this sink's: a large piece is written as is, a small
   * one copied, and once written or copied, a buffer it covers whole is detached (transferred to nothing) so
   * its memory goes back at once instead of at the next full collection. The caller must not use `bytes`
   * afterwards.
   */
  appendFrames(bytes: Uint8Array): void {
    this.#writer.appendRaw(bytes);
    if (this.#pending.at(-1) !== bytes) releaseWhole(bytes); // copied into a chunk
  }

  async flush(): Promise<void> {
    this.#writer.flush();
    if (this.#pending.length === 0) return;
    const chunks = this.#pending;
    this.#pending = [];
    for (const c of chunks) {
      if (this.#toStdout) await writeAll(Deno.stdout, c);
      if (this.#file !== null) await writeAll(this.#file, c);
      this.#release(c);
    }
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    await this.flush();
    this.#file?.close();
  }

  #takeChunk(size: number): Uint8Array {
    const spare = this.#spare.pop();
    if (spare !== undefined && spare.length >= size) return spare;
    const chunk = new Uint8Array(size);
    this.#chunkBuffers.add(chunk.buffer);
    this.chunksAllocated++;
    return chunk;
  }

  /** After `c` was written: an encoder chunk goes back to the free list, an appended buffer is released. */
  #release(c: Uint8Array): void {
    if (!this.#chunkBuffers.has(c.buffer)) releaseWhole(c);
    else if (this.#spare.length < MAX_SPARE_CHUNKS) this.#spare.push(new Uint8Array(c.buffer));
  }
}

/**
 * Frees the memory behind `bytes` now when the view covers its whole buffer (a view into more is left be).
 * Detaching a buffer that ever had a second view makes V8 drop its ArrayBufferDetaching protector for the
 * thread (optimised typed-array code then checks for detachment, see engine/parallel/recycler.ts), so the
 * code between a block's frames arriving and this call makes no other view of them.
 */
function releaseWhole(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) {
    buffer.transfer(0);
  }
}
