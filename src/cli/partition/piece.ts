/**
 * One piece of one input file (whole lines of its body) through pre_pass or the main pass, exactly as the
 * serial engine would evaluate the same records: the piece is streamed in blocks of whole lines through the
 * engine's own block evaluator (the one its worker threads use), numbering records from `firstRecord`.
 *
 * @example
 * ```ts ignore
 * const out = await convertPiece(setup, facts, lookups, 1001, chunks, (bytes) => write(bytes));
 * out.records; // records of the piece
 * ```
 * @module
 */

import { CsvParser, CsvRecordTooLongError, MAX_BUFFERED_RECORD_BYTES } from "../../formats/csv_reader.ts";
import { newEvalContext } from "../../engine/context.ts";
import { capDataFields } from "../../engine/header_checks.ts";
import { BlockSplitter } from "../../engine/parallel/lines.ts";
import { BlockSession } from "../../engine/parallel/block_eval.ts";
import { PrePassCollector } from "../../engine/prepass.ts";
import type { TraceSink } from "../../engine/sinks.ts";
import { mergeTally, newTally, type RowTally } from "../../engine/tally.ts";
import type { LookupTables } from "../../lang/mod.ts";
import type { FileFacts, PartitionSetup } from "./setup.ts";

/** Bytes of whole lines evaluated at a time (bounded memory whatever the piece size). */
const BLOCK_BYTES = 1024 * 1024;

/** One pre_pass table write: block, key, field, value, and the record that wrote it. */
export type LookupEntry = [block: string, key: string, field: string, value: string, record: number];

/** What a piece's pre_pass found: its records and, per (block, key, field), the last write. */
export interface PrePassPiece {
  records: number;
  entries: LookupEntry[];
}

/** What a piece's main pass counted (its rows went to the output callback). */
export interface ConvertPiece {
  records: number;
  rows_written: number;
  expr_errors: number;
  unbalanced_quotes: number;
  tally: RowTally;
}

/** Cuts a stream into blocks of whole lines (the last one may lack its `\n`). */
async function* lineBlocks(chunks: AsyncIterable<Uint8Array>, name: string): AsyncGenerator<Uint8Array> {
  const splitter = new BlockSplitter(BLOCK_BYTES, MAX_BUFFERED_RECORD_BYTES, () => {
    throw new CsvRecordTooLongError(name, MAX_BUFFERED_RECORD_BYTES);
  });
  for await (const chunk of chunks) yield* splitter.push(chunk);
  const rest = splitter.finish();
  if (rest !== null) yield rest;
}

/** A trace sink that only notes pre_pass table writes, with the record being evaluated. */
class EntryRecorder implements TraceSink {
  readonly enabled = false;
  record = 0;
  /** "block\0key\0field" -> the last write. */
  readonly last = new Map<string, LookupEntry>();
  prepassEntry(block: string, key: string, field: string, value: string): void {
    const id = `${block}\0${key}\0${field}`;
    this.last.delete(id); // re-inserted last: entries stay in the order of their final write
    this.last.set(id, [block, key, field, value, this.record]);
  }
  fileStart(): void {}
  fileEnd(): void {}
  done(): void {}
  appendFrames(): void {}
  outputRow(): void {}
  filteredRow(): void {}
  errorRow(): void {}
  flush(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * pre_pass over a piece: every block of the template against each record, numbered from `firstRecord`.
 * Expression errors skip the block or field silently, as in a normal run.
 */
export async function prePassPiece(
  setup: PartitionSetup,
  facts: FileFacts,
  firstRecord: number,
  chunks: AsyncIterable<Uint8Array>,
): Promise<PrePassPiece> {
  const t = setup.template;
  const columns = new Map<string, number>();
  facts.names.forEach((n, i) => columns.set(n, i));
  const ctx = newEvalContext(setup.plan, columns, facts.stem);
  const recorder = new EntryRecorder();
  const collector = new PrePassCollector(setup.plan, ctx, recorder, null);
  let n = firstRecord - 1;
  for await (const block of lineBlocks(chunks, facts.name)) {
    const parser = new CsvParser(
      { delimiter: t.csvDelimiterIn, quote: t.csvTextQuoteIn, encoding: t.csvInputEncoding },
      (fields) => {
        recorder.record = ++n;
        collector.evalRecord(capDataFields(fields), n);
      },
      { sourceName: facts.name, skipBom: false },
    );
    parser.push(block);
    parser.finish();
  }
  return { records: n - (firstRecord - 1), entries: [...recorder.last.values()] };
}

/**
 * Merges pieces' pre_pass entries into the tables of the whole file: for each (block, key, field) the entry
 * of the highest record wins (bxp's "later rows overwrite earlier ones"), whatever order the pieces come in.
 */
export function mergeLookups(blockNames: readonly string[], pieces: readonly LookupEntry[][]): LookupTables {
  const best = new Map<string, LookupEntry>();
  for (const entries of pieces) {
    for (const e of entries) {
      const id = `${e[0]}\0${e[1]}\0${e[2]}`;
      const seen = best.get(id);
      if (seen === undefined || seen[4] <= e[4]) best.set(id, e);
    }
  }
  const tables: LookupTables = new Map(blockNames.map((b) => [b, new Map()]));
  for (const [block, key, field, value] of [...best.values()].sort((a, b) => a[4] - b[4])) {
    let table = tables.get(block);
    if (table === undefined) tables.set(block, table = new Map());
    let entry = table.get(key);
    if (entry === undefined) table.set(key, entry = new Map());
    entry.set(field, value);
  }
  return tables;
}

/**
 * The main pass over a piece: output rows (CSV, no header) go to `write` in record order; the counters come
 * back. Throws the engine's fatal errors (a record over 10 MiB, an uncomparable date under the filename
 * date filter, ...) for the caller to report.
 */
export async function convertPiece(
  setup: PartitionSetup,
  facts: FileFacts,
  lookups: LookupTables | null,
  firstRecord: number,
  chunks: AsyncIterable<Uint8Array>,
  write: (bytes: Uint8Array) => Promise<void>,
): Promise<ConvertPiece> {
  const plan = setup.plan;
  const session = new BlockSession({
    template: setup.template,
    globalMaps: setup.config.maps,
    columnNames: facts.names,
    stem: facts.stem,
    dateMin: facts.dateMin,
    dateMax: facts.dateMax,
    debug: false,
    trace: false,
    sourceName: facts.name,
    lookups: plan.prePass.length > 0 ? lookups ?? new Map() : null,
  });
  const totals: ConvertPiece = {
    records: 0,
    rows_written: 0,
    expr_errors: 0,
    unbalanced_quotes: 0,
    tally: newTally(plan.dateChecks.length),
  };
  for await (const block of lineBlocks(chunks, facts.name)) {
    const r = session.run({
      kind: "main",
      bytes: block,
      baseOffset: 0,
      baseRecord: firstRecord - 1 + totals.records,
      last: false,
    });
    if (r.out.length > 0) await write(r.out);
    totals.records += r.records;
    totals.rows_written += r.rowsWritten;
    totals.expr_errors += r.exprErrors;
    totals.unbalanced_quotes += r.unbalancedQuotes;
    if (r.tally !== null) mergeTally(totals.tally, r.tally);
  }
  return totals;
}
