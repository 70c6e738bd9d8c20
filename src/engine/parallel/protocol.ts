/**
 * Messages between the engine and its block workers. Everything is structured-clone friendly; block bytes
 * and output buffers are shared (views over a `SharedArrayBuffer`, see recycler.ts), never transferred.
 * @module
 */

import type { NamedMaps, TemplateConfig } from "../../config/mod.ts";
import type { LookupTables } from "../../lang/mod.ts";
import type { RowTally } from "../tally.ts";
import type { KeyWritesEntry } from "../prepass.ts";

/** Per-file context a worker needs before it evaluates blocks of that file. */
export interface FileContext {
  template: TemplateConfig;
  globalMaps: NamedMaps;
  columnNames: string[];
  stem: string;
  dateMin: string;
  dateMax: string;
  debug: boolean;
  trace: boolean;
  sourceName: string;
  /** pre_pass tables for the main pass; null before/without pre_pass. */
  lookups: LookupTables | null;
}

/** A block of whole CSV lines cut from the file. */
export interface BlockJob {
  kind: "prepass" | "main";
  bytes: Uint8Array;
  /** Offset of `bytes[0]` in the file. */
  baseOffset: number;
  /** Records of the file before this block (for RECORD_NUM()). */
  baseRecord: number;
  /**
   * A buffer the main pass writes its output rows into (a recycled one, shared with the worker), or null
   * for a fresh one. Rows that do not fit go to fresh buffers.
   */
  out?: Uint8Array | null;
  /** True for the last block of the file (its last line may lack a `\n`). */
  last: boolean;
}

/** What a worker returns for a block. */
export interface BlockResult {
  /** Output row bytes (no header), ready to append; for JSON output, rows joined by `,\n`. */
  out: Uint8Array;
  /** BXTB frames (no magic); output_row indexes count from 0 within the block. */
  trace: Uint8Array;
  /** `--debug` text. */
  debug: string;
  records: number;
  rowsWritten: number;
  exprErrors: number;
  unbalancedQuotes: number;
  /** Main-pass blocks only: filter counts and findings observations; null for pre_pass blocks. */
  tally: RowTally | null;
  /**
   * The output buffer the job lent (`BlockJob.out`) when the rows are not in it (none, or more than it
   * holds), handed back so the engine can lend it again; null when `out` is a view of it.
   */
  spareOut: Uint8Array | null;
  /** The job's input bytes, handed back (shared, or a copy) so the engine can reuse the buffer. */
  input: Uint8Array | null;
  /**
   * pre_pass blocks only: the block's partial tables (each field's value combined over the block's records
   * as its `aggregate` says), merged in block order.
   */
  lookups: [block: string, key: string, field: string, value: string][] | null;
  /** pre_pass blocks only: who wrote each key of the blocks whose collisions are reported. */
  writes: KeyWritesEntry[] | null;
}

/** Engine -> worker. */
export type WorkerRequest =
  | { type: "file"; context: FileContext }
  | { type: "block"; id: number; job: BlockJob };

/** Worker -> engine. */
export type WorkerResponse =
  | { type: "result"; id: number; result: BlockResult }
  | {
    type: "error";
    id: number;
    message: string;
    fatal: boolean;
    /** A fatal block's trace frames up to the failing record (see `BlockError.trace`). */
    trace?: Uint8Array | null;
  };

/** The data problems that stop a block's file (the run reports them; any other failure is a crash). */
const FATAL_NAMES = new Set(["CsvRecordTooLongError", "UncomparableDateError", "PrePassAggregateError"]);

/** True for an error a block evaluation throws for a data problem (see `BlockError.fatal`). */
export function isFatalBlockFailure(err: unknown): boolean {
  return err instanceof Error && FATAL_NAMES.has(err.name);
}
