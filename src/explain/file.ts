/**
 * Reads the records of one input file the way the engine does (dialect, preamble, header checks, the
 * filename date range, pre_pass tables) so a single record can be listed or explained in its real context.
 * Pure: the file system is the engine's injected {@link EngineFs}.
 *
 * @example
 * ```ts
 * import { explainFileRecord, readFileRecords } from "./file.ts";
 * import { MemoryFs, planTemplate } from "../engine/mod.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$n: "[Amount] * 2"},
 *   row_rules: [{when: "[Type] = 'Buy'", rows: [{}]}], output_schema: {n: "$n"}}}}`, "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps);
 * const fs = new MemoryFs("/p");
 * fs.put("statement.csv", new TextEncoder().encode("Type,Amount\nBuy,10\nSell,5\n"));
 * const file = await readFileRecords(fs, plan, "./statement.csv", "statement.csv", { limit: 1000 });
 * assert.deepEqual(file.records.map((r) => r.fields), [["Buy", "10"], ["Sell", "5"]]);
 * const ex = await explainFileRecord(fs, plan, "./statement.csv", "statement.csv", 2);
 * assert.equal(ex?.outcome, "no_rule_match");
 * ```
 * @module
 */

import { inputStem } from "../engine/mod.ts";
import { newEvalContext } from "../engine/mod.ts";
import { extractDateRange } from "../engine/mod.ts";
import { FillDown } from "../engine/mod.ts";
import { checkHeader } from "../engine/mod.ts";
import type { EngineFs } from "../engine/mod.ts";
import type { TemplatePlan } from "../engine/mod.ts";
import { PrePassCollector } from "../engine/mod.ts";
import { CsvRecordSource, JsonRecordSource, type RecordSource } from "../engine/mod.ts";
import { NULL_TRACE } from "../engine/mod.ts";
import type { LookupTables } from "../lang/mod.ts";
import { explainRecord, type RecordExplanation } from "./explain.ts";

/** One data record: its 1-based number, the byte offset of its first byte (BXTB locator) and its fields. */
export interface FileRecord {
  readonly recordNum: number;
  readonly locator: number;
  readonly fields: readonly string[];
}

/** A file's header, context and (up to a limit) records. */
export interface FileRecords {
  readonly names: readonly string[];
  readonly columns: ReadonlyMap<string, number>;
  readonly stem: string;
  readonly dateMin: string;
  readonly dateMax: string;
  /** Records kept (the first `limit`). */
  readonly records: readonly FileRecord[];
  /** How many data records the file has; null when the reading stopped at the limit (`countAll: false`). */
  readonly total: number | null;
}

/** Ends a pass early once enough records are kept. */
class Enough extends Error {}

function sourceFor(fs: EngineFs, plan: TemplatePlan, path: string, filename: string): RecordSource {
  return plan.template.fileTypeIn === "json"
    ? new JsonRecordSource(fs, path, filename)
    : new CsvRecordSource(fs, path, plan.template, filename);
}

async function openFile(fs: EngineFs, plan: TemplatePlan, path: string, filename: string) {
  const t = plan.template;
  const source = sourceFor(fs, plan, path, filename);
  const header = await source.readHeader();
  const { names, columns } = checkHeader(header.names, plan, filename);
  const stem = inputStem(filename, t.filePatternIn);
  const range = t.dateFilterFromFilename ? extractDateRange(stem) : { kind: "none" as const };
  const dateMin = range.kind === "valid" ? range.min : "";
  const dateMax = range.kind === "valid" ? range.max : "";
  return { source, names, columns, stem, dateMin, dateMax };
}

/**
 * The records of a file with its header and date range; keeps the first `limit` records. With
 * `countAll: false` the reading stops there (`total` is then null), which spares a second full parse when
 * the caller already knows the count.
 */
export async function readFileRecords(
  fs: EngineFs,
  plan: TemplatePlan,
  path: string,
  filename: string,
  opts: { limit: number; countAll?: boolean },
): Promise<FileRecords> {
  const { source, names, columns, stem, dateMin, dateMax } = await openFile(fs, plan, path, filename);
  const records: FileRecord[] = [];
  const countAll = opts.countAll ?? true;
  let n = 0;
  // fill_down applies to every record in order, so a shown record carries what the run's record carries.
  const fill = FillDown.of(plan, columns);
  try {
    await source.forEachRecord((raw, locator) => {
      n++;
      const fields = fill === null ? raw : fill.apply(raw);
      if (records.length < opts.limit) records.push({ recordNum: n, locator, fields });
      else if (!countAll) throw new Enough();
    }, () => Promise.resolve());
  } catch (err) {
    if (!(err instanceof Enough)) throw err;
    return { names, columns, stem, dateMin, dateMax, records, total: null };
  }
  return { names, columns, stem, dateMin, dateMax, records, total: n };
}

/**
 * Explains record `recordNum` (1-based) of a file: pre_pass runs over the whole file first, as in a real
 * run, so LOOKUP() sees the same tables. Null when the file has fewer records.
 */
export async function explainFileRecord(
  fs: EngineFs,
  plan: TemplatePlan,
  path: string,
  filename: string,
  recordNum: number,
): Promise<RecordExplanation | null> {
  const { source, names, columns, stem, dateMin, dateMax } = await openFile(fs, plan, path, filename);
  let lookups: LookupTables | null = null;
  if (plan.prePass.length > 0) {
    const collector = new PrePassCollector(plan, newEvalContext(plan, columns, stem), NULL_TRACE, null);
    const fill = FillDown.of(plan, columns);
    let k = 0;
    await source.forEachRecord(
      (fields) => collector.evalRecord(fill === null ? fields : fill.apply(fields), ++k),
      () => Promise.resolve(),
    );
    lookups = collector.tables;
  }
  let found: string[] | null = null;
  let n = 0;
  const fill = FillDown.of(plan, columns);
  await source.forEachRecord((raw) => {
    const fields = fill === null ? raw : fill.apply(raw);
    if (++n === recordNum) found = fields as string[];
  }, () => Promise.resolve());
  if (found === null) return null;
  return explainRecord({
    plan,
    columnNames: names,
    columns,
    fields: found,
    recordNum,
    stem,
    lookups,
    dateMin,
    dateMax,
  });
}
