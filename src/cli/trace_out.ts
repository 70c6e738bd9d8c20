/**
 * The BXTB trace of a CLI run, fanned out to stdout (`--trace`) and/or a file (`--trace-file`): frames are
 * encoded once and the same bytes go to both.
 *
 * @example
 * ```ts ignore
 * const trace = await TraceOut.open({ toStdout: true, file: null });
 * trace.done(0);
 * await trace.close();
 * ```
 * @module
 */

import { BxtbWriter } from "../trace/bxtb.ts";
import type { TraceSink } from "../engine/sinks.ts";

async function writeAll(w: { write(p: Uint8Array): Promise<number> }, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await w.write(bytes.subarray(at));
}

/** A {@link TraceSink} writing BXTB to stdout and/or a file. */
export class TraceOut implements TraceSink {
  readonly enabled = true;
  readonly #writer: BxtbWriter;
  readonly #file: Deno.FsFile | null;
  readonly #toStdout: boolean;
  #pending: Uint8Array[] = [];

  private constructor(toStdout: boolean, file: Deno.FsFile | null) {
    this.#toStdout = toStdout;
    this.#file = file;
    this.#writer = new BxtbWriter((chunk) => this.#pending.push(chunk), { chunkSize: 256 * 1024 });
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
  appendFrames(bytes: Uint8Array): void {
    this.#writer.appendRaw(bytes);
  }

  async flush(): Promise<void> {
    this.#writer.flush();
    if (this.#pending.length === 0) return;
    const chunks = this.#pending;
    this.#pending = [];
    for (const c of chunks) {
      if (this.#toStdout) await writeAll(Deno.stdout, c);
      if (this.#file !== null) await writeAll(this.#file, c);
    }
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    await this.flush();
    this.#file?.close();
  }
}
