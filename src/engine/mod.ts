/**
 * The engine, the public face of `src/engine`: a run over an {@link EngineFs} (real files in bxp-cli, memory
 * in the playground and the drafter's self check), the plan of a template, the row evaluator, the block pool
 * for parallel runs, and the counters and summaries the adapters print. Everything else in this folder is
 * private to it; other areas import from here (`tests/architecture_test.ts` checks it).
 *
 * @example
 * ```ts
 * import { exitCodeOf, MemoryFs, NULL_TRACE, runConversion } from "./mod.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const text = `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
 *   input_schema: {$v: "[h] & '!'"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {v: "$v"}}}}`;
 * const fs = new MemoryFs("/p");
 * fs.put("a.csv", new TextEncoder().encode("h\nx\ny\n"));
 * const quiet = { info() {}, warning() {}, fatal() {}, debug() {} };
 * const run = await runConversion(
 *   { config: loadConfig(text, "c.json").config!, templateId: null, dataOverride: null, configLabel: "c.json" },
 *   { fs, reporter: quiet, trace: NULL_TRACE, fresh: false, dryRun: false, debug: false,
 *     now: () => performance.now(), parallel: null },
 * );
 * assert.equal(exitCodeOf(run.overall), 0);
 * assert.equal(run.overall.rowsOut, 2);
 * ```
 * @module
 */
export { newEvalContext } from "./context.ts";
export { inputStem, isPlainFileName, outputName, type ParallelOptions } from "./convert_file.ts";
export { combinedName, outputCollision, selectInputs } from "./convert_template.ts";
export { extractDateRange, outsideRange, UncomparableDateError } from "./date_range.ts";
export { FillDown } from "./fill_down.ts";
export { fileFindings, type Finding, findingWarning } from "./findings.ts";
export { capDataFields, checkHeader } from "./header_checks.ts";
export {
  type EngineFs,
  type ProgressCounters,
  type RandomAccessFile,
  type ReadChunksOptions,
  type Reporter,
  RunStopped,
  type StagedOutput,
  type StopCheck,
} from "./host.ts";
export { MemoryFs } from "./memory_fs.ts";
export { BlockSession } from "./parallel/block_eval.ts";
export { BlockSplitter } from "./parallel/lines.ts";
export { BlockPool } from "./parallel/pool.ts";
export { BufferRecycler } from "./parallel/recycler.ts";
export { evaluatorCount } from "./parallel/worker_count.ts";
export { planTemplate, type TemplatePlan } from "./plan.ts";
export {
  combinePartial,
  type KeyWritesEntry,
  mergeKeyWrites,
  newWrites,
  PrePassAggregateError,
  PrePassCollector,
  type PrePassWrites,
  writesEntries,
} from "./prepass.ts";
export { CsvRecordSource, JsonRecordSource, type RecordSource } from "./record_source.ts";
export { RowEvaluator } from "./row_eval.ts";
export { createRowWriter } from "./row_writers.ts";
export { reportOverall, runConversion, type TemplateSummary, templateSummary } from "./run.ts";
export { NULL_TRACE, type RowWriter, type TraceSink } from "./sinks.ts";
export { detailLines, exitCodeOf, newStats, overallLine, type SectionStats, summaryLine } from "./stats.ts";
export { mergeTally, newTally, type RowTally } from "./tally.ts";
export { WorkerSet } from "./worker_set.ts";
