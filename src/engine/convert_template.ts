/**
 * One template over its data folder: select the input files by suffix, run each through
 * {@link convertFile} in name order, and maintain the optional combined output.
 *
 * @example
 * ```ts
 * import { convertTemplate } from "./convert_template.ts";
 * import { MemoryFs } from "./memory_fs.ts";
 * import { planTemplate } from "./plan.ts";
 * import { NULL_TRACE } from "./sinks.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const fs = new MemoryFs("/p");
 * fs.put("a.csv", new TextEncoder().encode("h\nx\n"));
 * fs.put("b.csv", new TextEncoder().encode("h\ny\nz\n"));
 * const quiet = { info() {}, warning() {}, fatal() {}, debug() {} };
 * const env = { fs, reporter: quiet, trace: NULL_TRACE, fresh: false, dryRun: false, debug: false,
 *   now: () => performance.now() };
 * const { stats } = await convertTemplate(planTemplate(config.templates[0], config.maps), ".", env);
 * assert.equal(stats.files, 2);
 * assert.equal(stats.rowsOut, 3);
 * assert.equal(new TextDecoder().decode(fs.get("b.o")), "v\ny\nz\n");
 * ```
 * @module
 */

import {
  blockInputBytes,
  convertFile,
  FileFatal,
  isPlainFileName,
  outputName,
  type ParallelOptions,
  type TemplateRun,
} from "./convert_file.ts";
import { findingWarning } from "./findings.ts";
import type { EngineFs, ProgressCounters, Reporter, StagedOutput } from "./host.ts";
import type { TemplatePlan } from "./plan.ts";
import { createRowWriter } from "./row_writers.ts";
import type { TraceSink } from "./sinks.ts";
import { newStats, type SectionStats } from "./stats.ts";
import type { WorkerSet } from "./worker_set.ts";

/** The run-wide settings a template conversion needs. */
export interface RunEnv {
  readonly fs: EngineFs;
  readonly reporter: Reporter;
  readonly trace: TraceSink;
  readonly fresh: boolean;
  readonly dryRun: boolean;
  readonly debug: boolean;
  /** Milliseconds clock for timings. */
  readonly now: () => number;
  /** Block workers for large CSV inputs; absent or null keeps every file on the serial path. */
  readonly parallel?: ParallelOptions | null;
  /**
   * Threads that inflate an archive's zip members at once: the run's evaluator count
   * (`../parallel/worker_count.ts`); 0 or 1 inflates on the calling thread. Absent: one per core when
   * {@link RunEnv.parallel} is set, else none.
   */
  readonly containerWorkers?: number;
  /**
   * The run's worker threads, shared by the preparation passes (inflating) and then the block pool; absent
   * or null: each starts threads of its own.
   */
  readonly workers?: WorkerSet | null;
  /** Live progress counters (absent: nobody watches). */
  readonly progress?: ProgressCounters | null;
  /** `--strict`: findings are errors and the outputs they concern are not written. */
  readonly strict?: boolean;
  /**
   * The reference mode: templates planned without any fast path (`PlanOptions.reference`). Not a user
   * feature: the differential tests compare every production path with it. Pair it with no
   * {@link RunEnv.parallel} and no container workers for the whole slow path.
   */
  readonly reference?: boolean;
}

/** The combined output name of a template (`1-<id>-combined<file_pattern_out>`). */
export function combinedName(t: TemplatePlan["template"]): string {
  return `1-${t.id}-combined${t.filePatternOut !== "" ? t.filePatternOut : "x"}`;
}

/**
 * The input files of a template in `listed` (the folder's names), in bxp's order, and the names left out
 * because they are named like this template's own outputs: a per-file output (`.csv` -> `.clean.csv` makes
 * every `*.clean.csv` one, whether or not its source is still there) or its combined output. Reading those
 * would convert a run's own output again on the next run. Other templates' outputs stay inputs (multi-stage
 * configs read them on purpose).
 *
 * @example
 * ```ts
 * import { selectInputs } from "./convert_template.ts";
 * import type { TemplatePlan } from "./plan.ts";
 * import assert from "node:assert/strict";
 * // Only the fields it reads: a real one comes from planTemplate.
 * const template = { id: "t", filePatternIn: ".csv", filePatternOut: ".clean.csv", combinedOutput: false };
 * assert.deepEqual(selectInputs(template as TemplatePlan["template"], ["a.csv", "a.clean.csv"]), {
 *   inputs: ["a.csv"],
 *   ownOutputs: ["a.clean.csv"],
 * });
 * ```
 */
export function selectInputs(
  t: TemplatePlan["template"],
  listed: readonly string[],
): { inputs: string[]; ownOutputs: string[] } {
  const candidates = listed.filter((n) => n.endsWith(t.filePatternIn)).sort(compareNames);
  const combined = t.combinedOutput ? combinedName(t) : null;
  const inputs: string[] = [];
  const ownOutputs: string[] = [];
  for (const n of candidates) {
    // An output name never equals its own input name (config validation refuses that pattern pair).
    const ownForm = t.filePatternOut !== "" && n.endsWith(t.filePatternOut) &&
      outputName(n, t.filePatternIn, t.filePatternOut) !== n;
    if (ownForm || n === combined) ownOutputs.push(n);
    else inputs.push(n);
  }
  return { inputs, ownOutputs };
}

/** Reports and counts the warnings among `stats.findings` from index `from` on (see {@link findingWarning}). */
function countFindingWarnings(
  stats: SectionStats,
  from: number,
  delimiter: string,
  dir: string,
  reporter: Reporter,
): void {
  for (const f of stats.findings.slice(from)) {
    const warning = findingWarning(f, delimiter, dir);
    if (warning === null) continue;
    reporter.warning(warning);
    stats.warnings++;
  }
}

/**
 * Why the outputs of `inputs` (from {@link selectInputs}) cannot all be written, or null: an output named like
 * an input (writing it would overwrite that input), two inputs writing the same output, or an input's output
 * named like the combined output (`1-<id>-combined.csv` with `.csv` -> `.out.csv` writes the combined
 * output's name). bxp would list the file twice and keep whichever was written last; here nothing is written.
 *
 * @example
 * ```ts
 * import { outputCollision } from "./convert_template.ts";
 * import type { TemplatePlan } from "./plan.ts";
 * import assert from "node:assert/strict";
 * // Only the fields it reads: a real one comes from planTemplate.
 * const t = { id: "t", filePatternIn: ".csv", filePatternOut: ".out.csv", combinedOutput: true } as TemplatePlan["template"];
 * assert.match(
 *   outputCollision(t, ["1-t-combined.csv", "a.csv"])!,
 *   /^template 't': input '1-t-combined\.csv' would write '1-t-combined\.out\.csv', the combined output's name/,
 * );
 * ```
 */
export function outputCollision(t: TemplatePlan["template"], inputs: readonly string[]): string | null {
  const isInput = new Set(inputs);
  const writer = new Map<string, string>();
  if (t.combinedOutput) writer.set(combinedName(t), "the combined output's name");
  for (const n of inputs) {
    const out = outputName(n, t.filePatternIn, t.filePatternOut);
    const what = isInput.has(out) ? `the name of input '${out}' itself` : writer.get(out);
    if (what !== undefined) {
      return `template '${t.id}': input '${n}' would write '${out}', ${what}: one file would overwrite ` +
        `the other; rename '${n}' or change file_pattern_out`;
    }
    writer.set(out, `also the output of input '${n}'`);
  }
  return null;
}

/**
 * Why input names of a `data_dir` list collide, or null: one name in two of its folders. The outputs would
 * not overwrite each other (each is beside its input), but messages, findings and `FILENAME()` name an input
 * by its name alone, so two of them could not be told apart. `seen` maps the names of earlier folders.
 */
export function duplicateInput(
  t: TemplatePlan["template"],
  names: readonly string[],
  dir: string,
  seen: Map<string, string>,
): string | null {
  for (const n of names) {
    const other = seen.get(n);
    if (other !== undefined) {
      return `template '${t.id}': input '${n}' is in both '${other}' and '${dir}' (data_dir list): ` +
        `messages, findings and FILENAME() name inputs by name alone; rename one of them`;
    }
    seen.set(n, dir);
  }
  return null;
}

function mentionsLookup(plan: TemplatePlan): boolean {
  const has = (s: string) => s.includes("LOOKUP(");
  return plan.inputVars.some((v) => has(v.source)) ||
    plan.rules.some((r) => has(r.whenSource) || r.rows.some((row) => row.some((o) => has(o.source))));
}

/** Byte-order comparison, the order bxp sorts file names in. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Converts every matching file of one template in `dirs` (a `data_dir` list: folders in list order, each
 * folder's files in bxp's name order, each output beside its input, the combined output in the first
 * folder). Problems are reported and flagged in the returned stats (`hasFatal`); `stopped` says the run must
 * not go on (a file failed midway), while a missing data folder only fails this template, as in bxp.
 */
export async function convertTemplate(
  plan: TemplatePlan,
  dirs: string | readonly string[],
  env: RunEnv,
): Promise<{ stats: SectionStats; stopped: boolean }> {
  const folders = typeof dirs === "string" ? [dirs] : dirs;
  const dir = folders[0];
  const stats = newStats();
  let stopped = false;
  const started = env.now();
  const { fs, reporter } = env;
  const t = plan.template;
  const finish = () => {
    stats.timeMs = env.now() - started;
    return { stats, stopped };
  };
  reporter.info(`\n=== template: ${t.id} ===\n`);

  if (plan.prePass.length === 0 && mentionsLookup(plan)) {
    reporter.warning(
      `warning: template '${t.id}' uses LOOKUP() but has no pre_pass blocks defined; LOOKUP calls will silently return ""\n`,
    );
    stats.warnings++;
  }

  const listings: string[][] = [];
  for (const d of folders) {
    const listed = await fs.listFiles(d);
    if (listed === null) {
      reporter.fatal(`error: directory not found: '${d}'\n`);
      stats.hasFatal = true;
    } else listings.push(listed);
  }
  if (stats.hasFatal) return finish();
  /** Every input as (folder, name), folders in list order. */
  const inputs: { dir: string; name: string }[] = [];
  const seenIn = new Map<string, string>();
  for (let k = 0; k < folders.length; k++) {
    const d = folders[k];
    for (const line of await fs.sweepStaleTemps?.(d) ?? []) reporter.warning(`note: ${line}\n`);
    const { inputs: names, ownOutputs } = selectInputs(t, listings[k]);
    for (const n of ownOutputs) {
      reporter.warning(`note: skipping '${n}': it is an output of template '${t.id}', not an input\n`);
    }
    const collision = outputCollision(t, names) ?? duplicateInput(t, names, d, seenIn);
    if (collision !== null) {
      reporter.fatal(`error: ${collision} (in '${d}'); nothing was written\n`);
      stats.hasFatal = true;
      return finish();
    }
    for (const name of names) inputs.push({ dir: d, name });
  }
  if (inputs.length === 0) {
    reporter.info(`No input files for template '${t.id}' in ${folders.map((d) => `'${d}'`).join(", ")}\n`);
    return finish();
  }

  let combined: TemplateRun["combined"] = null;
  let combinedOutput: StagedOutput | null = null;
  try {
    if (t.combinedOutput) {
      const name = combinedName(t);
      if (!isPlainFileName(name)) {
        throw new FileFatal(
          `fatal error: template '${t.id}': combined output name '${name}' is not a plain file name ` +
            `(template id and file_pattern_out must not contain path separators)\n`,
        );
      }
      if (!env.dryRun) {
        const staged = await fs.createOutput(fs.join(dir, name), false);
        combinedOutput = staged === "exists" ? null : staged;
      }
      const writer = createRowWriter(t, plan.outputHeaders);
      writer.writeHeader(plan.outputHeaders);
      combined = { writer, output: combinedOutput, path: fs.join(dir, name) };
    }
    const run: TemplateRun = {
      plan,
      dir,
      fs,
      reporter,
      trace: env.trace,
      fresh: env.fresh,
      dryRun: env.dryRun,
      debug: env.debug,
      combined,
      parallel: env.parallel ?? null,
      progress: env.progress ?? null,
      strict: env.strict ?? false,
    };
    // What each file leaves to convert in blocks after it, for the block pool's forecast.
    const blockBytes: number[] = [];
    for (const input of inputs) {
      blockBytes.push(await blockInputBytes(run, fs.join(input.dir, input.name)).catch(() => 0));
    }
    let later = blockBytes.reduce((a, b) => a + b, 0);
    for (let i = 0; i < inputs.length; i++) {
      later -= blockBytes[i];
      const found = stats.findings.length;
      const at = inputs[i].dir;
      await convertFile(at === dir ? run : { ...run, dir: at }, inputs[i].name, stats, later);
      // Under --strict every finding is already an error; otherwise the ones that mean a broken output count
      // as warnings, so such a run never ends "ok" (exit 0).
      if (!env.strict) countFindingWarnings(stats, found, t.csvDelimiterOut, at, reporter);
    }
    if (combined !== null) {
      combined.writer.finish();
      const bytes = combined.writer.drain();
      if (bytes !== null && combinedOutput !== null) await combinedOutput.write(bytes);
      if (env.strict && stats.findings.length > 0) {
        if (combinedOutput !== null) {
          await combinedOutput.abort();
          reporter.fatal(
            `error: --strict: combined output '${combined.path}' not written (template: ${t.id})\n`,
          );
        }
        stats.hasFatal = true;
      } else if (combinedOutput !== null) {
        await combinedOutput.commit();
        stats.outputs.push(combined.path);
      }
      combinedOutput = null;
    }
  } catch (err) {
    if (combinedOutput !== null) await combinedOutput.abort();
    if (err instanceof FileFatal) {
      reporter.fatal(err.message);
    } else {
      reporter.fatal(`fatal error: ${err instanceof Error ? err.message : String(err)}\n`);
    }
    stats.hasFatal = true;
    stopped = true;
  }
  return finish();
}
