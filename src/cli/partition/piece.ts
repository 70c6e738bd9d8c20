/**
 * One piece of one input file (whole lines of its body) through pre_pass or the main pass, exactly as the
 * serial engine would evaluate the same records: the piece is streamed in blocks of whole lines through the
 * engine's own block evaluator (the one its worker threads use), numbering records from `firstRecord`.
 *
 * @example
 * ```ts
 * import { convertPiece } from "./piece.ts";
 * import { fileFacts } from "./setup.ts";
 * import { planTemplate } from "../../engine/mod.ts";
 * import { loadConfig } from "../../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h] & '!'"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const template = config.templates[0];
 * const setup = { config, template, plan: planTemplate(template, config.maps), countedConfigWarnings: 0,
 *   configMessages: [] }; // what loadSetup gives
 * const facts = fileFacts(setup, "a.csv", new TextEncoder().encode("h\n")); // from the file's head
 * async function* chunks() { // the piece: whole lines of the body, here records 1001 and 1002
 *   yield new TextEncoder().encode("x\ny\n");
 * }
 * const parts: string[] = [];
 * const out = await convertPiece(setup, facts, null, 1001, chunks(), (bytes) => {
 *   parts.push(new TextDecoder().decode(bytes));
 *   return Promise.resolve();
 * });
 * assert.equal(out.records, 2);
 * assert.equal(parts.join(""), "x!\ny!\n");
 * ```
 * @module
 */

import { CsvParser, CsvRecordTooLongError, MAX_BUFFERED_RECORD_BYTES } from "../../formats/csv_reader.ts";
import { newEvalContext } from "../../engine/mod.ts";
import { capDataFields } from "../../engine/mod.ts";
import { BlockSplitter } from "../../engine/mod.ts";
import { BlockSession } from "../../engine/mod.ts";
import {
  combinePartial,
  type KeyWritesEntry,
  mergeKeyWrites,
  newWrites,
  PrePassCollector,
  type PrePassWrites,
  writesEntries,
} from "../../engine/mod.ts";
import type { TemplatePlan } from "../../engine/mod.ts";
import type { PrePassAggregate } from "../../config/mod.ts";
import type { TraceSink } from "../../engine/mod.ts";
import { mergeTally, newTally, type RowTally } from "../../engine/mod.ts";
import type { LookupTables } from "../../lang/mod.ts";
import type { FileFacts, PartitionSetup } from "./setup.ts";

/** Bytes of whole lines evaluated at a time (bounded memory whatever the piece size). */
const BLOCK_BYTES = 1024 * 1024;

/**
 * One pre_pass table entry of a piece: block, key, field, value, and a record. Under last-wins the value is
 * the piece's last write and the record wrote it; under `first` the record is the first that wrote it; under
 * `sum` and `count` the value is the piece's partial result (and the record its first write).
 */
export type LookupEntry = [block: string, key: string, field: string, value: string, record: number];

/** What a piece's pre_pass found: its records, its table entries and who wrote each key. */
export interface PrePassPiece {
  records: number;
  entries: LookupEntry[];
  /** Per key of a block with last-wins fields: block, key, how many records wrote it, the first two. */
  writes: KeyWritesEntry[];
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

/** A trace sink that only notes which records wrote each (block, key, field): the first and the last. */
class EntryRecorder implements TraceSink {
  readonly enabled = false;
  record = 0;
  /** "block\0key\0field" -> [first record, last record], in the order of the final writes. */
  readonly seen = new Map<string, [number, number]>();
  prepassEntry(block: string, key: string, field: string): void {
    const id = `${block}\0${key}\0${field}`;
    const had = this.seen.get(id);
    this.seen.delete(id); // re-inserted last: entries stay in the order of their final write
    this.seen.set(id, [had?.[0] ?? this.record, this.record]);
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

/** Each block's field -> aggregate word. */
function opsOf(plan: TemplatePlan): Map<string, Map<string, PrePassAggregate>> {
  return new Map(plan.prePass.map((b) => [b.name, new Map(b.values.map((v, i) => [v.name, b.ops[i]]))]));
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
  const collector = new PrePassCollector(setup.plan, ctx, recorder, null, facts.name);
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
  const ops = opsOf(setup.plan);
  const entries: LookupEntry[] = [];
  for (const [id, [first, last]] of recorder.seen) {
    const [block, key, field] = id.split("\0");
    const value = collector.tables.get(block)?.get(key)?.get(field);
    if (value === undefined) continue;
    const how = ops.get(block)?.get(field) ?? "last";
    entries.push([block, key, field, value, how === "last" ? last : first]);
  }
  return { records: n - (firstRecord - 1), entries, writes: writesEntries(collector.writes) };
}

/**
 * Merges pieces' pre_pass entries into the tables of the whole file, whatever order the pieces come in:
 * for each (block, key, field) under last-wins the entry of the highest record wins (bxp's "later rows
 * overwrite earlier ones"), under `first` the lowest; `sum` and `count` partials are added. A list that is
 * already merged (one list of last-wins entries) merges to itself.
 */
export function mergeLookups(plan: TemplatePlan, pieces: readonly LookupEntry[][]): LookupTables {
  const ops = opsOf(plan);
  const best = new Map<string, LookupEntry>();
  for (const entries of pieces) {
    for (const e of entries) {
      const id = `${e[0]}\0${e[1]}\0${e[2]}`;
      const seen = best.get(id);
      const how = ops.get(e[0])?.get(e[2]) ?? "last";
      if (seen === undefined) best.set(id, e);
      else if (how === "last" ? seen[4] <= e[4] : how === "first" ? e[4] < seen[4] : false) best.set(id, e);
      else if (how === "sum" || how === "count") {
        // Exact decimals and counts: the order of the additions does not change the total.
        const [early, late] = seen[4] <= e[4] ? [seen, e] : [e, seen];
        best.set(id, [e[0], e[1], e[2], combinePartial(how, early[3], late[3]), early[4]]);
      }
    }
  }
  const tables: LookupTables = new Map(plan.prePass.map((b) => [b.name, new Map()]));
  for (const [block, key, field, value] of [...best.values()].sort((a, b) => a[4] - b[4])) {
    let table = tables.get(block);
    if (table === undefined) tables.set(block, table = new Map());
    let entry = table.get(key);
    if (entry === undefined) table.set(key, entry = new Map());
    entry.set(field, value);
  }
  return tables;
}

/** Merges pieces' key writes (see {@link PrePassPiece.writes}) into the whole file's. */
export function mergeWrites(plan: TemplatePlan, pieces: readonly KeyWritesEntry[][]): PrePassWrites {
  const writes = newWrites(plan);
  for (const entries of pieces) {
    for (const e of entries) {
      const table = writes.get(e[0]);
      if (table !== undefined) mergeKeyWrites(table, e);
    }
  }
  return writes;
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
