/**
 * A whole conversion run: zip and xlsx preparation, then the selected templates in declaration order,
 * with bxp's summary lines and the counters of `--debug=json`.
 *
 * @example
 * ```ts
 * import { runConversion } from "./run.ts";
 * import { exitCodeOf } from "./stats.ts";
 * import { MemoryFs } from "./memory_fs.ts";
 * import { NULL_TRACE } from "./sinks.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const fs = new MemoryFs("/p");
 * fs.put("a.csv", new TextEncoder().encode("h\nx\n"));
 * const reporter = { info() {}, warning() {}, fatal() {}, debug() {} }; // where bxp's lines go
 * const result = await runConversion(
 *   { config, templateId: null, dataOverride: null, configLabel: "c.json" },
 *   { fs, reporter, trace: NULL_TRACE, fresh: false, dryRun: false, debug: false, now: () => performance.now() },
 * );
 * assert.equal(exitCodeOf(result.overall), 0); // 0, 1 or 2
 * assert.deepEqual(result.templates.map((t) => t.id), ["t"]);
 * assert.equal(new TextDecoder().decode(fs.get("a.o")), "v\nx\n");
 * ```
 * @module
 */

import type { BxpConfig } from "../config/mod.ts";
import { ExprError } from "../lang/mod.ts";
import {
  combinedName,
  convertTemplate,
  duplicateInput,
  outputCollision,
  type RunEnv,
  selectInputs,
} from "./convert_template.ts";
import { outputName } from "./convert_file.ts";
import type { Finding } from "./findings.ts";
import { planTemplate, type TemplatePlan } from "./plan.ts";
import { extractSheets, type SelectedTemplate, unpackZips } from "./prepare_inputs.ts";
import { detailLines, mergeStats, newStats, overallLine, type SectionStats, summaryLine } from "./stats.ts";

/** What to run. */
export interface RunRequest {
  readonly config: BxpConfig;
  /** Run only this template (`--template`). */
  readonly templateId: string | null;
  /** Data folder for the selected template (`--data`). */
  readonly dataOverride: string | null;
  /** The config path as the user gave it, for messages. */
  readonly configLabel: string;
  /** Warnings the config's checks counted (printed by the caller), included in the overall counts. */
  readonly configWarnings?: number;
}

/** One template's counters in the `--debug=json` document. */
export interface TemplateSummary {
  id: string;
  files: number;
  rows_in: number;
  rows_out: number;
  warnings: number;
  errors: number;
  time_ms: number;
  /** Rows dropped, by reason (the BXTB filter reasons). */
  filtered: { no_rule_match: number; rule_skip: number; date_filter: number };
  /** input_schema expression failures. */
  expr_errors: number;
  /** Outputs written (committed), in order. */
  outputs: string[];
  /** What the run found suspicious (errors under --strict). */
  findings: Finding[];
}

/** The outcome of a run. */
export interface RunResult {
  overall: SectionStats;
  templates: TemplateSummary[];
  /**
   * The run was cut short by a fatal error (bxp's `error.Fatal` leaving `run()`): `--debug=json` then
   * reports `fatal: true` with no per-template entries. A template whose data folder is missing is an
   * error without aborting: the run goes on and this stays false.
   */
  aborted: boolean;
}

/** A section's counters in the `--debug=json` shape. */
export function templateSummary(id: string, s: SectionStats): TemplateSummary {
  return {
    id,
    files: s.files,
    rows_in: s.rowsIn,
    rows_out: s.rowsOut,
    warnings: s.warnings,
    errors: s.hasFatal ? 1 : 0,
    time_ms: Math.floor(s.timeMs),
    filtered: {
      no_rule_match: s.filteredNoRuleMatch,
      rule_skip: s.filteredRuleSkip,
      date_filter: s.filteredDate,
    },
    expr_errors: s.exprErrors,
    outputs: [...s.outputs],
    findings: [...s.findings],
  };
}

/** Sets the progress total: the bytes of every input the selected templates will read. */
async function measureInputs(selected: readonly SelectedTemplate[], env: RunEnv): Promise<void> {
  const progress = env.progress;
  if (!progress) return;
  let total = 0;
  for (const s of selected) {
    for (const dir of s.dirs) {
      const listed = await env.fs.listFiles(dir);
      if (listed === null) continue;
      for (const name of selectInputs(s.template, listed).inputs) {
        try {
          total += await env.fs.fileSize(env.fs.join(dir, name));
        } catch {
          // vanished or unreadable: the template run reports it
        }
      }
    }
  }
  progress.totalBytes = total;
}

/**
 * Why the selected templates cannot all write their outputs, or null: one template's outputs collide
 * ({@link outputCollision}), or two templates would write the same file of a shared data folder (the later
 * would replace the earlier's output). Predicted from the folders' listings before anything is written, each
 * template seeing the outputs the earlier ones add (multi-stage configs read them).
 */
export async function plannedCollision(
  plans: readonly TemplatePlan[],
  folders: readonly (string | readonly string[])[],
  env: Pick<RunEnv, "fs">,
): Promise<string | null> {
  const listings = new Map<string, Set<string>>();
  const writers = new Map<string, string>();
  for (let i = 0; i < plans.length; i++) {
    const t = plans[i].template;
    const dirs = typeof folders[i] === "string" ? [folders[i] as string] : folders[i] as readonly string[];
    // One input name in two folders of a list: refused (bxp-cli names files by name alone).
    const seenIn = new Map<string, string>();
    for (const dir of dirs) {
      const found = await folderCollision(t, dir, listings, writers, seenIn, env);
      if (found !== null) return found;
    }
    // The combined output goes into the first folder, once any folder has inputs.
    if (t.combinedOutput && seenIn.size > 0) {
      const found = claim(env.fs.join(dirs[0], combinedName(t)), t.id, "its combined output", writers);
      if (found !== null) return found;
      listings.get(dirs[0])?.add(combinedName(t));
    }
  }
  return null;
}

/** Notes that template `id` writes `path`, or says which earlier template writes it too. */
function claim(path: string, id: string, what: string, writers: Map<string, string>): string | null {
  const earlier = writers.get(path);
  if (earlier !== undefined) {
    return `templates ${earlier} and '${id}' (${what}) would both write '${path}': the later ` +
      `would replace the earlier's output; give them different file_pattern_out or data_dir`;
  }
  writers.set(path, `'${id}' (${what})`);
  return null;
}

/** {@link plannedCollision} for one folder of one template; the combined output goes to the first folder. */
async function folderCollision(
  t: TemplatePlan["template"],
  dir: string,
  listings: Map<string, Set<string>>,
  writers: Map<string, string>,
  seenIn: Map<string, string>,
  env: Pick<RunEnv, "fs">,
): Promise<string | null> {
  let names = listings.get(dir);
  if (names === undefined) {
    const listed = await env.fs.listFiles(dir);
    if (listed === null) return null; // the template run reports the missing folder
    names = new Set(listed);
    listings.set(dir, names);
  }
  const { inputs } = selectInputs(t, [...names]);
  const own = outputCollision(t, inputs) ?? duplicateInput(t, inputs, dir, seenIn);
  if (own !== null) return `${own} (in '${dir}')`;
  const outputs = inputs.map((n) => ({
    name: outputName(n, t.filePatternIn, t.filePatternOut),
    what: `the output of '${n}'`,
  }));
  for (const o of outputs) {
    const found = claim(env.fs.join(dir, o.name), t.id, o.what, writers);
    if (found !== null) return found;
    names.add(o.name);
  }
  return null;
}

/** Prints bxp's closing lines: the overall banner and counts. */
export function reportOverall(env: Pick<RunEnv, "reporter">, overall: SectionStats): void {
  env.reporter.info("\n=== overall summary ===\n");
  env.reporter.info(overallLine(overall) + "\n");
}

/** Runs the conversion; never throws for data problems (they are reported and counted). */
export async function runConversion(req: RunRequest, env: RunEnv): Promise<RunResult> {
  const started = env.now();
  const overall = newStats();
  overall.warnings = req.configWarnings ?? 0;
  const templates: TemplateSummary[] = [];
  const done = (aborted = false): RunResult => {
    overall.timeMs = env.now() - started;
    reportOverall(env, overall);
    return { overall, templates, aborted };
  };

  let chosen = req.config.templates;
  if (req.templateId !== null) {
    chosen = chosen.filter((t) => t.id === req.templateId);
    if (chosen.length === 0) {
      env.reporter.fatal(`error: template '${req.templateId}' is not defined in ${req.configLabel}\n`);
      overall.hasFatal = true;
      return done(true);
    }
  }
  const selected: SelectedTemplate[] = chosen.map((template) => {
    const dirs = req.templateId !== null && req.dataOverride !== null
      ? [req.dataOverride]
      : template.dataDirs;
    return { template, dir: dirs[0], dirs };
  });

  const plans: TemplatePlan[] = [];
  for (const s of selected) {
    try {
      plans.push(planTemplate(s.template, req.config.maps, { reference: env.reference === true }));
    } catch (err) {
      if (!(err instanceof ExprError)) throw err;
      env.reporter.fatal(`error: template '${s.template.id}': ${err.error}: ${err.detail}\n`);
      overall.hasFatal = true;
      return done(true);
    }
  }

  for (const pass of [unpackZips, extractSheets]) {
    const stats = await pass(selected, env);
    mergeStats(overall, stats);
    if (stats.hasFatal) return done(true);
  }

  const collision = await plannedCollision(plans, selected.map((s) => s.dirs), env);
  if (collision !== null) {
    env.reporter.fatal(`error: ${collision}; nothing was written\n`);
    overall.hasFatal = true;
    return done(true);
  }

  await measureInputs(selected, env);
  for (let i = 0; i < plans.length; i++) {
    const { stats, stopped } = await convertTemplate(plans[i], selected[i].dirs, env);
    if (stopped) {
      // bxp's fatal leaves the template loop and the run at once: no template summary, no overall summary.
      mergeStats(overall, stats);
      overall.timeMs = env.now() - started;
      return { overall, templates, aborted: true };
    }
    env.reporter.info(summaryLine(stats) + "\n");
    env.reporter.info(detailLines(stats, env.dryRun).map((l) => l + "\n").join(""));
    for (const f of stats.findings) {
      if (!env.strict) env.reporter.info(`  finding (${f.code}): ${f.message}\n`);
    }
    templates.push(templateSummary(plans[i].template.id, stats));
    mergeStats(overall, stats);
  }
  return done();
}
