/**
 * One input file through one template: header, unknown-field check, pre_pass, the main pass with output
 * written through a staged (temporary, then renamed) file, and the per-file warnings and trace frames.
 *
 * @example
 * ```ts
 * import { convertFile } from "./convert_file.ts";
 * import { MemoryFs } from "./memory_fs.ts";
 * import { planTemplate } from "./plan.ts";
 * import { NULL_TRACE } from "./sinks.ts";
 * import { newStats } from "./stats.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const fs = new MemoryFs("/p");
 * fs.put("statement.csv", new TextEncoder().encode("h\nx\n"));
 * const quiet = { info() {}, warning() {}, fatal() {}, debug() {} };
 * const run = { plan: planTemplate(config.templates[0], config.maps), dir: ".", fs, reporter: quiet,
 *   trace: NULL_TRACE, fresh: false, dryRun: false, debug: false, combined: null, parallel: null,
 *   progress: null, strict: false };
 * const stats = newStats();
 * await convertFile(run, "statement.csv", stats);
 * assert.equal(new TextDecoder().decode(fs.get("statement.o")), "v\nx\n");
 * assert.equal(stats.rowsOut, 1);
 * ```
 * @module
 */

import { ExprError } from "../lang/mod.ts";
import { CsvRecordTooLongError } from "../formats/csv_reader.ts";
import { JsonInputError } from "../formats/json_input.ts";
import { type DateRange, extractDateRange, UncomparableDateError } from "./date_range.ts";
import { checkHeader } from "./header_checks.ts";
import {
  type EngineFs,
  type ProgressCounters,
  type Reporter,
  RunStopped,
  type StagedOutput,
} from "./host.ts";
import { fileFindings } from "./findings.ts";
import { FillDown } from "./fill_down.ts";
import type { TemplatePlan } from "./plan.ts";
import { PrePassAggregateError, PrePassCollector, type PrePassWrites } from "./prepass.ts";
import { CsvRecordSource, JsonRecordSource, type RecordSource } from "./record_source.ts";
import { RowEvaluator } from "./row_eval.ts";
import { createRowWriter } from "./row_writers.ts";
import type { RowWriter, TraceSink } from "./sinks.ts";
import type { SectionStats } from "./stats.ts";
import { newEvalContext } from "./context.ts";
import {
  parallelMainPass,
  parallelPrePass,
  type ParallelSetup,
  type PassCounts,
} from "./parallel/file_passes.ts";
import type { BlockPool } from "./parallel/pool.ts";
import { BlockError } from "./parallel/pool.ts";

/** Everything a file conversion shares with its template run. */
export interface TemplateRun {
  readonly plan: TemplatePlan;
  readonly dir: string;
  readonly fs: EngineFs;
  readonly reporter: Reporter;
  readonly trace: TraceSink;
  readonly fresh: boolean;
  readonly dryRun: boolean;
  readonly debug: boolean;
  /** The template's combined output (header already written), or null. */
  readonly combined: { writer: RowWriter; output: StagedOutput | null; path: string } | null;
  /** Block workers for large CSV inputs, or null to stay serial. */
  readonly parallel: ParallelOptions | null;
  /** Live progress counters, or null. */
  readonly progress: ProgressCounters | null;
  /** `--strict`: a file with findings fails and its output is discarded. */
  readonly strict: boolean;
}

/** When and how files are split across block workers. */
export interface ParallelOptions {
  /** The pool (created on first use). */
  pool(): BlockPool;
  /** Files smaller than this stay on the serial path. */
  minBytes: number;
  /** Bytes of whole lines per block. */
  blockSize: number;
}

/** A fatal problem with one file; the message is printed as is and the run stops with exit 1. */
export class FileFatal extends Error {}

/** The output name bxp derives: the input's `file_pattern_in` suffix replaced by `file_pattern_out`. */
export function outputName(filename: string, patternIn: string, patternOut: string): string {
  return patternOut !== "" && filename.endsWith(patternIn)
    ? filename.slice(0, filename.length - patternIn.length) + patternOut
    : filename + "x";
}

/**
 * True when `name` is a plain file name: writing it lands in the data folder itself. Names derived from
 * `file_pattern_out` or a template id could otherwise point elsewhere (`/../x`), so they are checked.
 */
export function isPlainFileName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/\\\0]/.test(name);
}

/** The stem FILENAME() returns and the date range is read from. */
export function inputStem(filename: string, patternIn: string): string {
  return filename.length > patternIn.length
    ? filename.slice(0, filename.length - patternIn.length)
    : filename;
}

/** The plan's maps as plain Maps for the workers (global with the template's own laid over; re-merging is a no-op). */
function globalMapsOf(plan: TemplatePlan): Map<string, Map<string, string>> {
  const maps = new Map<string, Map<string, string>>();
  for (const [name, map] of plan.maps) maps.set(name, new Map(map));
  return maps;
}

/** Prints the "processing" line, and warns about a filename date range that cannot be used. */
function announceFile(
  run: TemplateRun,
  filename: string,
  stem: string,
  warn: (text: string) => void,
): DateRange {
  const t = run.plan.template;
  const range: DateRange = t.dateFilterFromFilename ? extractDateRange(stem) : { kind: "none" };
  if (range.kind === "valid") {
    run.reporter.info(`processing '${filename}' with date range from ${range.min} to ${range.max}\n`);
    return range;
  }
  if (range.kind === "invalid") {
    warn(
      `warning: '${filename}' has a malformed YYYY-MM-DD_YYYY-MM-DD range (min > max or bad component); ` +
        `processing all rows\n`,
    );
  } else if (t.dateFilterFromFilename) {
    warn(
      `warning: '${filename}' has no YYYY-MM-DD_YYYY-MM-DD range in filename; date_filter_from_filename is ` +
        `enabled but no rows will be filtered\n`,
    );
  }
  run.reporter.info(`processing '${filename}'\n`);
  return range;
}

/**
 * The staged per-file output, or null when nothing is written for this file (--dry-run, or --fresh found it
 * already there but a combined output still needs the rows), or "skip" when the file needs no processing.
 */
async function openOutput(
  run: TemplateRun,
  filename: string,
): Promise<{ staged: StagedOutput | null; path: string } | "skip"> {
  const t = run.plan.template;
  const name = outputName(filename, t.filePatternIn, t.filePatternOut);
  if (!isPlainFileName(name)) {
    throw new FileFatal(
      `fatal error: template '${t.id}': output name '${name}' for '${filename}' is not a plain file name ` +
        `(file_pattern_out must not contain path separators)\n`,
    );
  }
  const path = run.fs.join(run.dir, name);
  if (run.dryRun) {
    if (run.fresh && await run.fs.exists(path)) {
      run.reporter.info(`  skipping '${filename}' (output exists)\n`);
      return "skip";
    }
    return { staged: null, path };
  }
  const staged = await run.fs.createOutput(path, run.fresh);
  if (staged !== "exists") return { staged, path };
  if (run.combined === null) {
    run.reporter.info(`  skipping '${filename}' (output exists)\n`);
    return "skip";
  }
  run.reporter.info(`  skipping per-file '${filename}' (exists; combined still being built)\n`);
  return { staged: null, path };
}

/**
 * The size of the input at `path` when it is converted in blocks (a CSV file of at least the parallel
 * minimum), else 0.
 */
export async function blockInputBytes(run: TemplateRun, path: string): Promise<number> {
  // fill_down carries each column's last value from record to record: such a file stays serial.
  const t = run.plan.template;
  if (run.parallel === null || t.fileTypeIn !== "csv" || t.fillDown.length > 0) return 0;
  const size = await run.fs.fileSize(path);
  return size >= run.parallel.minBytes && size > 0 ? size : 0;
}

/**
 * Converts one input file. Throws {@link FileFatal} on a problem that stops the run. `laterBytes`: the
 * inputs of this template still to convert in blocks after this one (see {@link blockInputBytes}); a
 * ramped block pool counts them as work to come.
 */
export async function convertFile(
  run: TemplateRun,
  filename: string,
  stats: SectionStats,
  laterBytes = 0,
): Promise<void> {
  const { plan, fs, reporter, trace } = run;
  const t = plan.template;
  let fileWarnings = 0;
  const warn = (text: string) => {
    reporter.warning(text);
    stats.warnings++;
    fileWarnings++;
  };

  const stem = inputStem(filename, t.filePatternIn);
  const range = announceFile(run, filename, stem, warn);

  const path = fs.join(run.dir, filename);
  const source: RecordSource = t.fileTypeIn === "json"
    ? new JsonRecordSource(fs, path, filename)
    : new CsvRecordSource(fs, path, t, filename);

  let output: StagedOutput | null = null;
  try {
    const header = await source.readHeader();
    if (header.invalidUtf8) {
      stats.warnings++;
      reporter.warning(`warning: '${filename}' is not valid UTF-8; non-ASCII characters may be garbled\n`);
    }
    const checked = checkHeader(header.names, plan, filename);
    for (const w of checked.warnings) {
      stats.warnings++;
      reporter.warning(w);
    }
    for (const w of checked.typos) reporter.warning(w);
    if (checked.typos.length > 0) stats.warnings++;
    const { names, columns } = checked;

    trace.fileStart(source.format, t.id, path, names);

    const ctx = newEvalContext(plan, columns, stem);
    const progressBase = { records: run.progress?.records ?? 0, bytes: run.progress?.bytes ?? 0 };
    const debug = run.debug ? (text: string) => reporter.debug(text) : null;
    const dateMin = range.kind === "valid" ? range.min : "";
    const dateMax = range.kind === "valid" ? range.max : "";
    const fileBytes = await blockInputBytes(run, path);
    const parallel: ParallelSetup | null = run.parallel !== null && fileBytes > 0
      ? {
        pool: run.parallel.pool(),
        fileBytes,
        laterBytes,
        blockSize: run.parallel.blockSize,
        recycleOutput: fs.writesCopy === true,
        relativeRecords: !plan.readsRecordNumber && dateMin === "" && dateMax === "" && !run.debug,
        fs,
        path,
        name: filename,
        trace,
        reporter,
        dateChecks: plan.dateChecks.length,
        onProgress: run.progress === null ? undefined : (records, offset) => {
          run.progress!.records = progressBase.records + records;
          run.progress!.bytes = progressBase.bytes + offset;
        },
        context: {
          template: t,
          globalMaps: globalMapsOf(plan),
          columnNames: names,
          stem,
          dateMin,
          dateMax,
          debug: run.debug,
          trace: trace.enabled,
          sourceName: filename,
          lookups: null,
        },
      }
      : null;
    let prepassWrites: PrePassWrites | undefined;
    if (plan.prePass.length > 0) {
      if (parallel !== null) {
        const collected = await parallelPrePass(parallel, plan);
        ctx.lookups = collected.tables;
        prepassWrites = collected.writes;
      } else {
        const collector = new PrePassCollector(plan, ctx, trace, debug, filename);
        const stop = run.progress?.stop ?? null;
        const fill = FillDown.of(plan, columns);
        let n = 0;
        await source.forEachRecord((fields) => {
          collector.evalRecord(fill === null ? fields : fill.apply(fields), ++n);
          // A chunk is parsed and evaluated in one go: only this check can stop an expensive pass early.
          if ((n & 3) === 0 && stop !== null && stop.requested()) throw new RunStopped();
        }, () => trace.flush());
        ctx.lookups = collector.tables;
        prepassWrites = collector.writes;
      }
    }

    const target = await openOutput(run, filename);
    if (target === "skip") return;
    output = target.staged;
    const progress = run.progress;

    const writer = createRowWriter(t, plan.outputHeaders);
    writer.writeHeader(plan.outputHeaders);
    const combined = run.combined;
    // A write that copies its bytes lets the writer fill the same buffer again (no fresh memory per chunk).
    const reusable = fs.writesCopy === true;
    const drain = async () => {
      const bytes = writer.drain();
      if (bytes !== null && output !== null) {
        await output.write(bytes);
        if (reusable) writer.reuse?.(bytes);
      }
      if (combined !== null) {
        const c = combined.writer.drain();
        if (c !== null && combined.output !== null) {
          await combined.output.write(c);
          if (reusable) combined.writer.reuse?.(c);
        }
      }
      await trace.flush();
    };
    let counts: PassCounts;
    if (parallel !== null) {
      counts = await parallelMainPass(parallel, ctx.lookups, writer, combined?.writer ?? null, drain);
    } else {
      const rows = new RowEvaluator(plan, ctx, {
        out: writer,
        combined: combined?.writer ?? null,
        trace,
        debug,
      }, {
        dateMin,
        dateMax,
        columnNames: names,
      });
      let n = 0;
      let reached = 0;
      const fill = FillDown.of(plan, columns);
      const afterChunk = progress === null ? drain : () => {
        progress.records = progressBase.records + n;
        progress.bytes = progressBase.bytes + reached;
        return drain();
      };
      const stop = progress?.stop ?? null;
      await source.forEachRecord(
        progress === null
          ? (fields, offset, raw) => {
            reached = offset;
            rows.evalRecord(fill === null ? fields : fill.apply(fields), offset, ++n, raw);
          }
          : (fields, offset, raw) => {
            reached = offset;
            rows.evalRecord(fill === null ? fields : fill.apply(fields), offset, ++n, raw);
            // A whole chunk is parsed and evaluated synchronously, so a signal handler never runs during
            // it: the stop flag is read every four records (a shared-memory read: a few ns) and the
            // counters, read by another thread, move every eight, so expensive rows neither block a stop
            // nor freeze the progress line.
            if ((n & 3) === 0) {
              if (stop !== null && stop.requested()) throw new RunStopped();
              if ((n & 7) === 0) {
                progress.records = progressBase.records + n;
                progress.bytes = progressBase.bytes + offset;
              }
            }
          },
        afterChunk,
        rows.lazyFields,
      );
      counts = {
        records: n,
        rowsWritten: rows.rowsWritten,
        exprErrors: rows.exprErrors,
        unbalancedQuotes: source.unbalancedQuotes,
        tally: rows.tally,
      };
    }
    writer.finish();
    await drain();
    if (progress !== null) {
      progress.records = progressBase.records + counts.records;
      progress.bytes = progressBase.bytes + await fs.fileSize(path);
    }
    const found = fileFindings({
      plan,
      dateChecks: plan.dateChecks,
      file: filename,
      header: names,
      records: counts.records,
      rowsWritten: counts.rowsWritten,
      tally: counts.tally,
      prepassWrites,
    });
    stats.findings.push(...found);
    if (run.strict && found.length > 0) {
      // Nothing suspicious is written under --strict: the staged output is dropped, the run fails.
      if (output !== null) await output.abort();
      output = null;
      for (const f of found) reporter.fatal(`error: --strict: ${f.message}\n`);
      reporter.fatal(`error: --strict: no output written for '${filename}' (template: ${t.id})\n`);
      stats.hasFatal = true;
    } else if (output !== null) {
      await output.commit();
      output = null;
      stats.outputs.push(target.path);
    }

    const records = counts.records;
    if (records === 0) {
      stats.warnings++;
      reporter.warning(
        `warning: no rows in '${filename}' (template: ${t.id}, file: ${run.dir}/${filename})\n`,
      );
    }
    if (counts.exprErrors > 0) {
      stats.warnings++;
      reporter.warning(
        `warning: ${counts.exprErrors} input_schema expression error(s) in '${filename}' (run with --debug to see details)\n`,
      );
    }
    if (counts.unbalancedQuotes > 0) {
      warn(
        `warning: ${counts.unbalancedQuotes} row(s) in '${filename}' had an unbalanced quote — treated as literal ` +
          `text (set csv_text_quote_in:"none" if the file is not quoted)\n`,
      );
    }
    trace.fileEnd(records, counts.rowsWritten, counts.exprErrors, fileWarnings);
    stats.files++;
    stats.rowsIn += records;
    stats.rowsOut += counts.rowsWritten;
    stats.exprErrors += counts.exprErrors;
    stats.filteredNoRuleMatch += counts.tally.noRuleMatch;
    stats.filteredRuleSkip += counts.tally.ruleSkip;
    stats.filteredDate += counts.tally.dateFilter;
  } catch (err) {
    if (output !== null) await output.abort();
    if (err instanceof CsvRecordTooLongError) throw new FileFatal(`fatal error: ${err.message}\n`);
    if (err instanceof UncomparableDateError) throw new FileFatal(`fatal error: ${err.message}\n`);
    if (err instanceof PrePassAggregateError) throw new FileFatal(`fatal error: ${err.message}\n`);
    if (err instanceof BlockError && err.fatal) throw new FileFatal(`fatal error: ${err.message}\n`);
    if (err instanceof JsonInputError) throw new FileFatal(`fatal error: '${filename}': ${err.message}\n`);
    if (err instanceof ExprError) {
      throw new FileFatal(`fatal error: '${filename}': ${err.error}: ${err.detail}\n`);
    }
    throw err;
  }
}
