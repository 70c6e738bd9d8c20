/**
 * The parallel versions of a file's two passes: the body is cut into blocks of whole lines, workers evaluate
 * blocks concurrently, and results are applied strictly in block order, so outputs, trace frames, lookup
 * tables and counters are identical to the serial passes.
 *
 * @example
 * ```ts
 * import { parallelMainPass } from "./file_passes.ts";
 * import { BlockPool } from "./pool.ts";
 * import { MemoryFs } from "../memory_fs.ts";
 * import { createRowWriter } from "../row_writers.ts";
 * import { NULL_TRACE } from "../sinks.ts";
 * import { loadConfig } from "../../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h] & '!'"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const context = { template: config.templates[0], globalMaps: config.maps, columnNames: ["h"], stem: "a",
 *   dateMin: "", dateMax: "", debug: false, trace: false, sourceName: "a.csv", lookups: null };
 * const fs = new MemoryFs("/p");
 * fs.put("a.csv", new TextEncoder().encode("h\n" + "x\n".repeat(100)));
 * const pool = new BlockPool(1); // the calling thread only; a run's pool has worker threads too
 * const setup = { pool, blockSize: 64, fs, path: "a.csv", fileBytes: 202, name: "a.csv", context,
 *   trace: NULL_TRACE, reporter: { info() {}, warning() {}, fatal() {}, debug() {} }, dateChecks: 0 };
 * const out = createRowWriter(context.template, ["v"]);
 * try {
 *   const counts = await parallelMainPass(setup, null, out, null, () => Promise.resolve());
 *   assert.equal(counts.records, 100);
 *   assert.equal(new TextDecoder().decode(out.drain()!), "x!\n".repeat(100));
 * } finally {
 *   pool.close();
 * }
 * ```
 * @module
 */

import type { LookupTables } from "../../lang/mod.ts";
import { shiftOutputIndexes } from "../../trace/bxtb.ts";
import type { EngineFs, Reporter } from "../host.ts";
import { csvBodyBlocks } from "../record_source.ts";
import type { RowWriter, TraceSink } from "../sinks.ts";
import { countRecords } from "./lines.ts";
import { BufferRecycler } from "./recycler.ts";
import { BlockError, type BlockPool } from "./pool.ts";
import type { BlockResult, FileContext } from "./protocol.ts";
import { mergeTally, newTally, type RowTally } from "../tally.ts";
import { collectGarbageHint } from "../gc_hint.ts";
import type { TemplatePlan } from "../plan.ts";
import { combinePartial, mergeKeyWrites, newWrites, type PrePassWrites } from "../prepass.ts";

/** What both passes share. */
export interface ParallelSetup {
  readonly pool: BlockPool;
  readonly blockSize: number;
  readonly fs: EngineFs;
  readonly path: string;
  /** The file's size: what remains after each block is the pool's forecast of the pass's work. */
  readonly fileBytes: number;
  /**
   * The template's later inputs converted in blocks: with the main pass that follows a pre_pass, work to
   * come that a ramped pool counts in its forecast.
   */
  readonly laterBytes?: number;
  readonly name: string;
  readonly context: FileContext;
  readonly trace: TraceSink;
  readonly reporter: Reporter;
  /** Watched date variables, to size the tally. */
  readonly dateChecks: number;
  /**
   * The output's `write` is done with what it is given when it returns (see `EngineFs.writesCopy`), so a
   * block's output buffer can be reused for a later block once applied.
   */
  readonly recycleOutput?: boolean;
  /**
   * The main pass cannot observe a record's number (no `RECORD_NUM()`, no filename date filter, no debug
   * output): its blocks then number their records from 0 and the reader need not count them up front; the
   * one number a block reports (the first unquoted value's record) is shifted when the block is applied.
   */
  readonly relativeRecords?: boolean;
  /** Called after each applied main-pass block with the records so far and the file offset reached. */
  readonly onProgress?: (records: number, offset: number) => void;
}

/** Counters of a main pass. */
export interface PassCounts {
  records: number;
  rowsWritten: number;
  exprErrors: number;
  unbalancedQuotes: number;
  /** Filter counts and findings observations of the whole file. */
  tally: RowTally;
}

/**
 * One recycler per pool, so every pass over every file of a run (both passes, an archive's members, a
 * template's many inputs) borrows the same few buffers. A recycler per pass left the previous file's
 * buffers for the next full collection to free: an archive of four members peaked 20-25 MB higher than one
 * file of the same size.
 */
const recyclers = new WeakMap<BlockPool, BufferRecycler>();

/**
 * The block buffers of `pool` (shared by every pass that runs on it), made anew when the size changes. A
 * pool that may start worker threads takes `SharedArrayBuffer`s, so no block is ever transferred (see
 * recycler.ts).
 */
export function recyclerFor(pool: BlockPool, capacity: number, maxSpare: number): BufferRecycler {
  let r = recyclers.get(pool);
  if (r === undefined || r.capacity !== capacity) {
    r = new BufferRecycler(capacity, maxSpare, pool.size > 1 && typeof SharedArrayBuffer === "function");
    recyclers.set(pool, r);
  }
  return r;
}

/**
 * Pools whose last main pass left its reader's and splitter's buffers dead on this thread. The next pass on
 * the pool collects them before it allocates its own (see gc_hint.ts); collecting at the end of each pass
 * instead cost every run's last input 8-14 ms (at 14 MB) for memory that nothing would reuse.
 */
const deadPassBuffers = new WeakSet<BlockPool>();

/** A full collection when an earlier pass on `pool` left its buffers behind. */
function collectEarlierPass(pool: BlockPool): void {
  if (deadPassBuffers.delete(pool)) collectGarbageHint();
}

async function forEachResult(
  setup: ParallelSetup,
  kind: "prepass" | "main",
  apply: (r: BlockResult, endOffset: number) => Promise<void>,
  failedTrace: (frames: Uint8Array) => void,
): Promise<void> {
  const inflight: Promise<BlockResult>[] = [];
  const ends: number[] = [];
  // Room for every worker's queue (see pool.ts) and the calling thread's share.
  const limit = setup.pool.size * 3;
  // Blocks borrow their buffers and give them back once applied, so a file allocates about `limit` input
  // buffers (and as many output buffers) instead of fresh ones per block: fresh memory is slow to come by,
  // and freed buffers linger in the allocator until a collection releases them.
  const capacity = setup.blockSize * 2;
  const buffers = recyclerFor(setup.pool, capacity, 2 * limit + 2);
  const take = (size: number) => buffers.take(size);
  const recycleOutput = kind === "main" && setup.recycleOutput === true;
  const applyAndRecycle = async (pending: Promise<BlockResult>, endOffset: number) => {
    let r: BlockResult;
    try {
      r = await pending;
    } catch (err) {
      // Blocks before this one are applied: its frames up to the fatal record follow theirs, as serially.
      if (err instanceof BlockError && err.trace !== null && err.trace.length > 0) {
        failedTrace(err.trace);
        await setup.trace.flush();
      }
      throw err;
    }
    await apply(r, endOffset);
    if (r.input !== null) buffers.give(r.input);
    if (recycleOutput && r.out.byteOffset === 0) buffers.give(r.out);
    if (r.spareOut !== null) buffers.give(r.spareOut);
  };
  let baseRecord = 0;
  const after = (setup.laterBytes ?? 0) + (kind === "prepass" ? setup.fileBytes : 0);
  const counting = kind === "prepass" || setup.relativeRecords !== true;
  try {
    const headerLine = setup.context.template.csvHeaderLine;
    const blocks = csvBodyBlocks(setup.fs, setup.path, headerLine, setup.blockSize, setup.name, take);
    for await (const block of blocks) {
      // Measured before submitting: once submitted, the block is the pool's until its result is in.
      const length = block.bytes.length;
      const records = counting ? countRecords(block.bytes, 0, length) : 0;
      const result = setup.pool.submit({
        kind,
        bytes: block.bytes,
        out: recycleOutput ? buffers.take(capacity) : null,
        baseOffset: block.offset,
        baseRecord,
        last: false,
      }, Math.max(0, setup.fileBytes - block.offset - length) + after);
      // A later block may fail while an earlier one is awaited: handled here, its error still reaches the
      // await below in file order (an unhandled rejection would end the process on its own).
      result.catch(() => {});
      inflight.push(result);
      ends.push(block.offset + length);
      baseRecord += records;
      while (inflight.length >= limit) await applyAndRecycle(inflight.shift()!, ends.shift()!);
    }
    while (inflight.length > 0) await applyAndRecycle(inflight.shift()!, ends.shift()!);
  } finally {
    for (const p of inflight) p.catch(() => {}); // results of an abandoned file are dropped
  }
}

/**
 * pre_pass over the file's blocks: the merged tables and key writes. Blocks are merged in file order, each
 * field as its `aggregate` says (later rows winning, sums adding, the earliest `first` kept), so the result
 * is the serial pass's.
 */
export async function parallelPrePass(
  setup: ParallelSetup,
  plan: TemplatePlan,
): Promise<{ tables: LookupTables; writes: PrePassWrites }> {
  collectEarlierPass(setup.pool);
  const tables: LookupTables = new Map(plan.prePass.map((b) => [b.name, new Map()]));
  const ops = new Map(plan.prePass.map((b) => [b.name, new Map(b.values.map((v, i) => [v.name, b.ops[i]]))]));
  const writes = newWrites(plan);
  setup.pool.setFile({ ...setup.context, lookups: null }, setup.fileBytes);
  await forEachResult(setup, "prepass", async (r) => {
    for (const [block, key, field, value] of r.lookups ?? []) {
      const table = tables.get(block)!;
      let entry = table.get(key);
      if (entry === undefined) {
        entry = new Map();
        table.set(key, entry);
      }
      const how = ops.get(block)!.get(field)!;
      entry.set(field, how === "last" ? value : combinePartial(how, entry.get(field), value));
    }
    for (const e of r.writes ?? []) mergeKeyWrites(writes.get(e[0])!, e);
    if (r.trace.length > 0) setup.trace.appendFrames(r.trace);
    if (r.debug !== "") setup.reporter.debug(r.debug);
    await setup.trace.flush();
  }, (frames) => setup.trace.appendFrames(frames));
  return { tables, writes };
}

/**
 * The main pass over the file's blocks. Output rows go to `out` (and `combined`); `drain` writes what the
 * writers buffered, called after each block.
 */
export async function parallelMainPass(
  setup: ParallelSetup,
  lookups: LookupTables | null,
  out: RowWriter,
  combined: RowWriter | null,
  drain: () => Promise<void>,
): Promise<PassCounts> {
  const counts: PassCounts = {
    records: 0,
    rowsWritten: 0,
    exprErrors: 0,
    unbalancedQuotes: 0,
    tally: newTally(setup.dateChecks),
  };
  collectEarlierPass(setup.pool);
  setup.pool.setFile({ ...setup.context, lookups }, setup.fileBytes);
  await forEachResult(setup, "main", async (r, endOffset) => {
    if (r.rowsWritten > 0) {
      out.writeFragment(r.out, r.rowsWritten);
      combined?.writeFragment(r.out, r.rowsWritten);
    }
    if (r.trace.length > 0) {
      shiftOutputIndexes(r.trace, counts.rowsWritten);
      setup.trace.appendFrames(r.trace);
    }
    if (r.debug !== "") setup.reporter.debug(r.debug);
    counts.records += r.records;
    counts.rowsWritten += r.rowsWritten;
    counts.exprErrors += r.exprErrors;
    counts.unbalancedQuotes += r.unbalancedQuotes;
    if (r.tally !== null) {
      const unquoted = r.tally.unquoted;
      if (setup.relativeRecords === true && unquoted !== null) unquoted.record += counts.records - r.records;
      mergeTally(counts.tally, r.tally);
    }
    setup.onProgress?.(counts.records, endOffset);
    await drain();
  }, (frames) => {
    shiftOutputIndexes(frames, counts.rowsWritten);
    setup.trace.appendFrames(frames);
  });
  // The file's reader and block buffers are dead now: the next pass collects them before it starts.
  deadPassBuffers.add(setup.pool);
  return counts;
}
