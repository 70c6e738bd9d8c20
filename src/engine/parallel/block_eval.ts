/**
 * Evaluates one block of CSV lines exactly as the serial path evaluates the same records, into buffers the
 * engine appends in block order. Runs inside a worker (or in-process, for tests).
 *
 * @example
 * ```ts
 * import { BlockSession } from "./block_eval.ts";
 * import { loadConfig } from "../../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h] & '!'"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const context = { template: config.templates[0], globalMaps: config.maps, columnNames: ["h"], stem: "a",
 *   dateMin: "", dateMax: "", debug: false, trace: false, sourceName: "a.csv", lookups: null };
 * const session = new BlockSession(context); // one per file, in a worker
 * const bytes = new TextEncoder().encode("x\ny\n"); // whole lines of the file's body
 * const result = session.run({ kind: "main", bytes, baseOffset: 2, baseRecord: 0, last: true });
 * assert.equal(new TextDecoder().decode(result.out), "x!\ny!\n");
 * assert.equal(result.records, 2);
 * ```
 * @module
 */

import { CsvParser, CsvRecordTooLongError } from "../../formats/csv_reader.ts";
import { type CopySource, CsvWriter } from "../../formats/csv_writer.ts";
import { JsonRowEncoder } from "../../formats/json_output.ts";
import { BxtbWriter } from "../../trace/bxtb.ts";
import { newEvalContext } from "../context.ts";
import { capDataFields } from "../header_checks.ts";
import { planTemplate, type TemplatePlan } from "../plan.ts";
import { PrePassCollector, writesEntries } from "../prepass.ts";
import { RowEvaluator } from "../row_eval.ts";
import { NULL_TRACE, type RowWriter, type TraceSink } from "../sinks.ts";
import { concatBytes, GrowableBytes } from "../../util/bytes.ts";
import type { BlockJob, BlockResult, FileContext } from "./protocol.ts";
import type { EvalContext } from "../../lang/mod.ts";
import { RunStopped, type StopCheck } from "../host.ts";

/** Rows only (no header, no brackets): CSV lines, or JSON objects joined by `,\n`. */
class FragmentWriter implements RowWriter {
  #chunks: Uint8Array[] = [];
  readonly #csv: CsvWriter | null;
  readonly #json: JsonRowEncoder | null;

  /** `buffer`: where the rows go first (a recycled buffer), else a fresh one. */
  constructor(plan: TemplatePlan, buffer: Uint8Array | null) {
    const t = plan.template;
    const sink = (c: Uint8Array) => this.#chunks.push(c);
    const options = { bufferSize: 1024 * 1024, initialBuffer: buffer ?? undefined };
    this.#json = t.fileTypeOut === "json" ? new JsonRowEncoder(plan.outputHeaders, sink, options) : null;
    this.#csv = this.#json !== null ? null : new CsvWriter(
      {
        delimiter: t.csvDelimiterOut,
        quote: t.csvTextQuoteOut,
        encoding: t.csvOutputEncoding,
        decimalSeparator: t.csvDecimalSeparatorOut,
      },
      sink,
      options,
    );
  }
  /** Starts the next block's rows in `buffer` (a recycled one), else a fresh one. */
  begin(buffer: Uint8Array | null): void {
    this.#chunks = [];
    this.#csv?.restart(buffer);
    this.#json?.restart(buffer);
  }
  writeHeader(): void {}
  writeFragment(): void {
    throw new Error("fragments are not nested");
  }
  writeRowRaw(values: readonly string[], starts: Int32Array, ends: Int32Array, source: CopySource): void {
    if (this.#csv !== null) this.#csv.writeRowRaw(values, starts, ends, source);
    else this.#json!.writeRowRaw(values, starts, ends, source);
  }
  get specialColumn(): number | undefined {
    return this.#csv?.specialColumn;
  }
  writeRow(values: readonly string[]): void {
    if (this.#csv !== null) this.#csv.writeRow(values);
    else this.#json!.writeRow(values);
  }
  finish(): void {}
  drain(): Uint8Array | null {
    this.#csv?.flush();
    this.#json?.flush();
    return this.#chunks.length === 0 ? null : concatBytes(this.#chunks);
  }
}

/**
 * A trace sink collecting a block's frames. The encoder and its scratch bytes live as long as the session, so
 * a block costs one allocation of exactly its frames instead of fresh chunk buffers.
 */
class BufferTrace implements TraceSink {
  readonly enabled = true;
  readonly #scratch = new GrowableBytes(64 * 1024);
  readonly #writer = new BxtbWriter((c) => this.#scratch.append(c), {
    writeMagic: false,
    chunkSize: 64 * 1024,
    reuseBuffer: true,
  });
  fileStart(): void {}
  fileEnd(): void {}
  done(): void {}
  appendFrames(): void {}
  outputRow(loc: number, idx: number, rule: number, action: string): void {
    this.#writer.outputRow(loc, idx, rule, action);
  }
  filteredRow(loc: number, reason: string): void {
    this.#writer.filteredRow(loc, reason);
  }
  errorRow(loc: number, v: string, kind: string, detail: string, origin: string): void {
    this.#writer.errorRow(loc, v, kind, detail, origin);
  }
  prepassEntry(name: string, key: string, field: string, value: string): void {
    this.#writer.prepassEntry(name, key, field, value);
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  /** The frames since the last call (a fresh array, the caller's to keep). */
  bytes(): Uint8Array {
    this.#writer.flush();
    const out = this.#scratch.data.slice(0, this.#scratch.length);
    this.#scratch.length = 0;
    return out;
  }
}

/**
 * Bytes decoded to text at once. A block is fed to the parser in slices this size so each decoded string
 * stays below V8's large-object threshold (128 KiB) and dies young with the rows cut from it; a whole
 * 1 MiB block decoded at once lands in old space, where only a full collection frees it.
 */
const PARSE_SLICE = 64 * 1024;

/**
 * Feeds `bytes` to the parser slice by slice. A block in shared memory is copied slice by slice into this
 * thread's own slice buffer first (see `own`): the parser keeps nothing of a slice once `push` returns.
 */
function pushInSlices(parser: CsvParser, bytes: Uint8Array): void {
  const shared = isShared(bytes);
  for (let at = 0; at < bytes.length; at += PARSE_SLICE) {
    const slice = bytes.subarray(at, Math.min(bytes.length, at + PARSE_SLICE));
    if (shared) {
      own.slice.set(slice);
      parser.push(own.slice.subarray(0, slice.length));
    } else {
      parser.push(slice);
    }
  }
  parser.finish();
}

/** True when `bytes` views shared memory (a recycled block buffer of a pool with workers). */
function isShared(bytes: Uint8Array): boolean {
  return typeof SharedArrayBuffer === "function" && bytes.buffer instanceof SharedArrayBuffer;
}

/**
 * This thread's own slice buffer for a block in shared memory (see recycler.ts): the block is copied in a
 * parse slice at a time, because the text decoder copies shared memory anew for every call (a pool decoding
 * shared blocks directly took more CPU and 50 MB more memory). Rows are written straight into a shared
 * output buffer: measured as fast as writing them here and copying them there once.
 */
const own = { slice: new Uint8Array(PARSE_SLICE) };

/**
 * A block's rows as the result hands them over, and the output buffer the job lent when the rows ended up
 * elsewhere (they outgrew it), so the engine can lend it again. Rows outside the lent buffer are copied
 * into a buffer of exactly their size, whose one view a worker can transfer without costing V8's
 * ArrayBufferDetaching protector (see recycler.ts): the writer's own buffers have had other views.
 */
function handOut(
  rows: Uint8Array | null,
  lent: Uint8Array | null,
): { out: Uint8Array; spareOut: Uint8Array | null } {
  if (rows === null) return { out: new Uint8Array(0), spareOut: lent };
  if (lent !== null && rows.buffer === lent.buffer) return { out: rows, spareOut: null };
  return { out: rows.slice(), spareOut: lent };
}

/** One file's evaluation state inside a worker. */
export class BlockSession {
  readonly #context: FileContext;
  readonly #plan: TemplatePlan;
  readonly #ctx: EvalContext;
  #trace: BufferTrace | null = null;
  /** `--debug` text of the block being evaluated. */
  #debugText = "";
  readonly #debug: ((text: string) => void) | null;
  /**
   * The main pass's writer and evaluator, kept from block to block of the file (each block restarts their
   * counts): built per block, a wide template's arrays were most of a block's garbage.
   */
  #mainPass: { writer: FragmentWriter; rows: RowEvaluator } | null = null;

  /** Asked once a record on the calling thread (see `StopCheck`); workers are terminated instead. */
  readonly #stop: StopCheck | null;

  constructor(context: FileContext, stop: StopCheck | null = null) {
    this.#stop = stop;
    this.#context = context;
    this.#plan = planTemplate(context.template, context.globalMaps);
    const columns = new Map<string, number>();
    context.columnNames.forEach((n, i) => columns.set(n, i));
    this.#ctx = newEvalContext(this.#plan, columns, context.stem);
    this.#ctx.lookups = context.lookups;
    this.#debug = context.debug ? (text: string) => void (this.#debugText += text) : null;
  }

  /**
   * The trace frames of the block that just failed, up to its failing record (null without a trace): the
   * serial pass has written those when a fatal record stops it.
   */
  takeTrace(): Uint8Array | null {
    return this.#trace?.bytes() ?? null;
  }

  /** Evaluates one block; throws `CsvRecordTooLongError` like the serial reader. */
  run(job: BlockJob): BlockResult {
    const c = this.#context;
    const t = c.template;
    this.#debugText = "";
    const trace = c.trace ? (this.#trace ??= new BufferTrace()) : null;
    // Records are evaluated as the parser delivers them, so each row's strings die young (cheap GC).
    let onRecord: (fields: string[], offset: number) => void;
    const dialect = { delimiter: t.csvDelimiterIn, quote: t.csvTextQuoteIn, encoding: t.csvInputEncoding };
    const stop = this.#stop;
    const newParser = () =>
      new CsvParser(dialect, (fields, offset) => {
        if (stop?.requested()) throw new RunStopped();
        onRecord(capDataFields(fields), offset);
      }, {
        sourceName: c.sourceName,
        baseOffset: job.baseOffset,
        skipBom: false,
      });
    let n = job.baseRecord;

    if (job.kind === "prepass") {
      const collector = new PrePassCollector(
        this.#plan,
        this.#ctx,
        trace ?? NULL_TRACE,
        this.#debug,
        c.sourceName,
      );
      onRecord = (fields) => collector.evalRecord(fields, ++n);
      const parser = newParser();
      pushInSlices(parser, job.bytes);
      const entries: [string, string, string, string][] = [];
      for (const [block, table] of collector.tables) {
        for (const [key, fields] of table) {
          for (const [field, value] of fields) entries.push([block, key, field, value]);
        }
      }
      return {
        out: new Uint8Array(0),
        spareOut: null,
        trace: trace?.bytes() ?? new Uint8Array(0),
        debug: this.#debugText,
        records: n - job.baseRecord,
        rowsWritten: 0,
        exprErrors: 0,
        unbalancedQuotes: parser.unbalancedQuotes,
        tally: null,
        input: job.bytes,
        lookups: entries,
        writes: writesEntries(collector.writes),
      };
    }

    const { writer, rows } = this.#mainPassFor(job, trace);
    if (rows.lazyFields !== null) {
      // Only the fields expressions read are decoded; bare column copies go from the text to the output.
      const lazy = new CsvParser(
        dialect,
        (fields, offset) => {
          if (stop?.requested()) throw new RunStopped();
          rows.evalRecord(capDataFields(fields), offset, ++n, lazy.raw);
        },
        {
          sourceName: c.sourceName,
          baseOffset: job.baseOffset,
          skipBom: false,
          lazyFields: rows.lazyFields,
        },
      );
      pushInSlices(lazy, job.bytes);
      return this.#mainResult(job, writer, trace, n - job.baseRecord, rows, lazy);
    }
    onRecord = (fields, offset) => rows.evalRecord(fields, offset, ++n);
    const parser = newParser();
    pushInSlices(parser, job.bytes);
    return this.#mainResult(job, writer, trace, n - job.baseRecord, rows, parser);
  }

  /** The file's main-pass writer and evaluator, made at its first block and restarted at each later one. */
  #mainPassFor(job: BlockJob, trace: BufferTrace | null): { writer: FragmentWriter; rows: RowEvaluator } {
    if (this.#mainPass !== null) {
      this.#mainPass.writer.begin(job.out ?? null);
      this.#mainPass.rows.resetCounts();
      return this.#mainPass;
    }
    const c = this.#context;
    const writer = new FragmentWriter(this.#plan, job.out ?? null);
    const rows = new RowEvaluator(this.#plan, this.#ctx, {
      out: writer,
      combined: null,
      trace: trace ?? NULL_TRACE,
      debug: this.#debug,
    }, { dateMin: c.dateMin, dateMax: c.dateMax, columnNames: c.columnNames });
    return this.#mainPass = { writer, rows };
  }

  #mainResult(
    job: BlockJob,
    writer: FragmentWriter,
    trace: BufferTrace | null,
    records: number,
    rows: RowEvaluator,
    parser: CsvParser,
  ): BlockResult {
    return {
      ...handOut(writer.drain(), job.out ?? null),
      trace: trace?.bytes() ?? new Uint8Array(0),
      debug: this.#debugText,
      records,
      rowsWritten: rows.rowsWritten,
      exprErrors: rows.exprErrors,
      unbalancedQuotes: parser.unbalancedQuotes,
      tally: rows.tally,
      input: job.bytes,
      lookups: null,
      writes: null,
    };
  }
}

export { CsvRecordTooLongError };
