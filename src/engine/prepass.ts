/**
 * pre_pass: the first pass over a file that fills the lookup tables LOOKUP reads in the main pass.
 * Later rows overwrite earlier ones for the same block, key and field (bxp's rule), unless the block's
 * `aggregate` says otherwise (`first`, `sum`, `count`). Keys written by several records under last-wins are
 * noted, for the `prepass_key_collision` finding.
 *
 * @example
 * ```ts
 * import { PrePassCollector } from "./prepass.ts";
 * import { newEvalContext } from "./context.ts";
 * import { planTemplate } from "./plan.ts";
 * import { NULL_TRACE } from "./sinks.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", pre_pass: {fees: {when: "[Type] = 'Fee'", key: "[Order]", values: {fee: "[Amt]"}}},
 *   input_schema: {$v: "[Order]"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {v: "$v"}}}}`,
 *   "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps);
 * const ctx = newEvalContext(plan, new Map([["Type", 0], ["Order", 1], ["Amt", 2]]), "a");
 * const pp = new PrePassCollector(plan, ctx, NULL_TRACE, null, "a.csv");
 * pp.evalRecord(["Buy", "7", "100"], 1);
 * pp.evalRecord(["Fee", "7", "2.5"], 2);
 * assert.equal(pp.tables.get("fees")!.get("7")!.get("fee"), "2.5"); // block -> key -> field -> value
 * ```
 * @module
 */

import {
  type EvalContext,
  ExprError,
  formatNumber,
  type LookupTables,
  parseDecimal,
  parseNumber,
} from "../lang/mod.ts";
import type { PrePassAggregate } from "../config/mod.ts";
import type { PlannedPrePass, TemplatePlan } from "./plan.ts";
import type { TraceSink } from "./sinks.ts";

function describe(err: unknown): string {
  if (err instanceof ExprError) return err.error;
  throw err;
}

/** How many records wrote one key of a block, and the first two of them (0: none). */
export interface KeyWrites {
  count: number;
  first: number;
  second: number;
}

/** block -> key -> its writes, for the blocks whose collisions are reported (see `PlannedPrePass.collides`). */
export type PrePassWrites = Map<string, Map<string, KeyWrites>>;

/** One key's writes as pieces and blocks hand them over: block, key, count, first record, second (0: none). */
export type KeyWritesEntry = [block: string, key: string, count: number, first: number, second: number];

/**
 * A `sum` over a value that is not a number (or a sum past the decimal range): the file stops, as a fatal
 * record does, since every LOOKUP of that key would read a wrong total. The message names the record.
 */
export class PrePassAggregateError extends Error {
  constructor(message: string) {
    super(message);
    // The block pool tells fatal failures by name (an in-process block has no class identity to lose, but
    // a worker's error crosses as text).
    this.name = "PrePassAggregateError";
  }
}

/** The raw decimal range (a signed 128-bit integer), as the language's arithmetic keeps it. */
const MAX_RAW = (1n << 127n) - 1n;
const MIN_RAW = -(1n << 127n);

function label(block: PlannedPrePass): string {
  return block.name === "_default" ? "pre_pass" : `pre_pass block '${block.name}'`;
}

/** The exact decimal of a stored partial sum (always written by {@link formatNumber}). */
function storedSum(text: string): bigint {
  const raw = parseDecimal(text);
  if (typeof raw !== "bigint") throw new Error(`not a stored sum: ${text}`);
  return raw;
}

function checkedSum(raw: bigint, what: () => string): string {
  if (raw > MAX_RAW || raw < MIN_RAW) throw new PrePassAggregateError(`${what()}: the sum is out of range`);
  return formatNumber(raw);
}

/**
 * Combines two partial results of one field, the `later` one from later records (a later block or piece):
 * what the blocks' and pieces' merges do, so they equal one pass over the whole file.
 *
 * @example
 * ```ts
 * import { combinePartial } from "./prepass.ts";
 * import assert from "node:assert/strict";
 * assert.equal(combinePartial("sum", "1.5", "2"), "3.5");
 * assert.equal(combinePartial("first", "a", "b"), "a");
 * ```
 */
export function combinePartial(
  how: PrePassAggregate,
  earlier: string | undefined,
  later: string,
  what: () => string = () => "pre_pass",
): string {
  if (earlier === undefined) return later;
  switch (how) {
    case "last":
      return later;
    case "first":
      return earlier;
    case "count":
      return String(Number(earlier) + Number(later));
    case "sum":
      return checkedSum(storedSum(earlier) + storedSum(later), what);
  }
}

/** Notes one more write of `key` by `record` (records come in order within one pass). */
function noteWrite(table: Map<string, KeyWrites>, key: string, record: number): void {
  const w = table.get(key);
  if (w === undefined) table.set(key, { count: 1, first: record, second: 0 });
  else {
    if (w.count === 1) w.second = record;
    w.count++;
  }
}

/**
 * Merges one piece's or block's writes of a key into `table`, whatever order they come in: counts add, the
 * first two records are the two smallest.
 */
export function mergeKeyWrites(table: Map<string, KeyWrites>, e: KeyWritesEntry): void {
  const [, key, count, first, second] = e;
  const w = table.get(key);
  if (w === undefined) {
    table.set(key, { count, first, second });
    return;
  }
  const records = [w.first, w.second, first, second].filter((r) => r > 0).sort((a, b) => a - b);
  w.count += count;
  w.first = records[0];
  w.second = records[1] ?? 0;
}

/** The writes as a flat list, for a block's or piece's result. */
export function writesEntries(writes: PrePassWrites): KeyWritesEntry[] {
  const out: KeyWritesEntry[] = [];
  for (const [block, table] of writes) {
    for (const [key, w] of table) out.push([block, key, w.count, w.first, w.second]);
  }
  return out;
}

/** An empty writes table for every block of `plan` whose collisions are reported. */
export function newWrites(plan: TemplatePlan): PrePassWrites {
  const writes: PrePassWrites = new Map();
  for (const block of plan.prePass) if (block.collides) writes.set(block.name, new Map());
  return writes;
}

/** Collects pre_pass tables record by record. */
export class PrePassCollector {
  /** The tables filled so far. */
  readonly tables: LookupTables = new Map();
  /** Who wrote each key of the blocks whose collisions are reported. */
  readonly writes: PrePassWrites;
  readonly #plan: TemplatePlan;
  readonly #ctx: EvalContext;
  readonly #trace: TraceSink;
  readonly #debug: ((text: string) => void) | null;
  readonly #file: string;

  constructor(
    plan: TemplatePlan,
    ctx: EvalContext,
    trace: TraceSink,
    debug: ((text: string) => void) | null,
    file = "",
  ) {
    this.#plan = plan;
    this.#ctx = ctx;
    this.#trace = trace;
    this.#debug = debug;
    this.#file = file;
    for (const block of plan.prePass) this.tables.set(block.name, new Map());
    this.writes = newWrites(plan);
  }

  /**
   * Runs every block against one record. Expression errors skip the block (or field) silently; a `sum` over
   * a non-number throws {@link PrePassAggregateError}.
   */
  evalRecord(fields: readonly string[], recordNum: number): void {
    const ctx = this.#ctx;
    ctx.fields = fields;
    ctx.recordNum = recordNum;
    for (const block of this.#plan.prePass) {
      let stage = "when";
      let source = block.whenSource;
      let wrote = false;
      let key = "";
      try {
        if (!block.when.evaluateBool(ctx)) continue;
        stage = "key";
        source = block.keySource;
        key = block.key.evaluate(ctx);
        if (key === "") continue;
        const table = this.tables.get(block.name)!;
        let entry = table.get(key);
        for (let i = 0; i < block.values.length; i++) {
          const v = block.values[i];
          let value: string;
          try {
            value = v.expr.evaluate(ctx);
          } catch (err) {
            this.#debug?.(
              `[pre_pass ${block.name} error] values.${v.name} = "${v.source}": ${describe(err)}\n`,
            );
            continue;
          }
          if (entry === undefined) {
            entry = new Map();
            table.set(key, entry);
          }
          wrote = true;
          const how = block.ops[i];
          if (how === "last") entry.set(v.name, value);
          else this.#aggregate(block, how, entry, v.name, value, recordNum);
          // The frame carries this record's own value: the same whatever block or piece the record is in.
          this.#trace.prepassEntry(block.name, key, v.name, value);
        }
      } catch (err) {
        if (err instanceof PrePassAggregateError) throw err;
        this.#debug?.(`[pre_pass ${block.name} error] ${stage} = "${source}": ${describe(err)}\n`);
      }
      if (wrote && block.collides) noteWrite(this.writes.get(block.name)!, key, recordNum);
    }
  }

  #aggregate(
    block: PlannedPrePass,
    how: PrePassAggregate,
    entry: Map<string, string>,
    field: string,
    value: string,
    recordNum: number,
  ): void {
    const had = entry.get(field);
    const what = () =>
      `${label(block)} record ${recordNum}${
        this.#file === "" ? "" : ` of '${this.#file}'`
      }: aggregate "sum" of '${field}'`;
    if (how === "first") {
      if (had === undefined) entry.set(field, value);
    } else if (how === "count") {
      entry.set(field, had === undefined ? "1" : String(Number(had) + 1));
    } else {
      let n: bigint;
      try {
        n = parseNumber(value);
      } catch {
        throw new PrePassAggregateError(`${what()} needs a number, got "${value}"`);
      }
      entry.set(field, checkedSum(had === undefined ? n : storedSum(had) + n, what));
    }
  }
}
