/**
 * A conversion run of a config held as text over a file system of the caller's choosing: `--preview`
 * runs it over an overlay that keeps outputs in memory. The same validation and engine as a normal bxp-cli
 * run (real runs, library templates included, go through `../conversion_run.ts`). The flags it honours: `--data`, `--dry-run`, `--fresh`, `--quiet`, `--debug`, `--debug=json`,
 * `--strict`, `--trace`, `--trace-file` and `--check-fs` (large inputs run on one thread here).
 * @module
 */

import { resolve } from "node:path";
import { bxpCliLine, loadConfigChecked } from "../../config/model.ts";
import type { DirProbe } from "../../config/check_cross.ts";
import { reportOverall, runConversion } from "../../engine/run.ts";
import { exitCodeOf, newStats } from "../../engine/stats.ts";
import { NULL_TRACE, type TraceSink } from "../../engine/sinks.ts";
import type { EngineFs } from "../../engine/host.ts";
import { type CliOptions, isSafeCliPath } from "../args.ts";
import { DenoEngineFs } from "../deno_fs.ts";
import { CliReporter } from "../reporter.ts";
import { TraceOut } from "../trace_out.ts";

/** A data-folder probe for the config checks, relative to `base`. */
export function probeDir(base: string) {
  return async (dataDir: string): Promise<DirProbe> => {
    try {
      const files: string[] = [];
      for await (const e of Deno.readDir(resolve(base, dataDir))) {
        if (e.isFile || e.isSymlink) files.push(e.name);
      }
      return { kind: "ok", files };
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return { kind: "missing" };
      return { kind: "unreadable", error: err instanceof Error ? err.message : String(err) };
    }
  };
}

/** Where a config held as text runs: its folder, and the file system the engine uses there. */
export interface RunPlace {
  /** The folder `data_dir` is relative to (default: the working directory). */
  base?: string;
  /** The engine's file system (default: the real one at `base`). */
  fs?: EngineFs;
}

/** Runs `text` as the config (labelled `label` in messages) with the command line's options. */
export async function runConfigText(
  text: string,
  label: string,
  o: CliOptions,
  templateId: string | null,
  place: RunPlace = {},
): Promise<number> {
  const out = new CliReporter({ quiet: o.quiet, trace: o.trace, debug: o.debug, debugJson: o.debugJson });
  let trace: TraceSink = NULL_TRACE;
  let traceOut: TraceOut | null = null;
  if (o.trace || o.traceFile !== null) {
    if (o.traceFile !== null && !isSafeCliPath(o.traceFile)) {
      console.error(`error: --trace-file path rejected: '${o.traceFile}'`);
      return 1;
    }
    traceOut = await TraceOut.open({ toStdout: o.trace, file: o.traceFile });
    trace = traceOut;
  }
  const base = place.base ?? Deno.cwd();
  const started = performance.now();
  const env = {
    reporter: out,
    trace,
    fresh: o.fresh,
    dryRun: o.dryRun,
    debug: o.debug,
    now: () => performance.now(),
    parallel: null,
    strict: o.strict,
  };
  const loaded = await loadConfigChecked(text, label, {
    fs: { inspectDir: probeDir(base) },
    checkFsMs: o.checkFsSeconds * 1000,
  });
  for (const d of loaded.diagnostics) {
    const line = bxpCliLine(label, d) + "\n";
    if (d.severity === "error") out.fatal(line);
    else if (d.severity === "warning") out.warning(line);
    else out.info(line);
  }
  let code: number;
  let summary: unknown;
  if (loaded.config === null) {
    const overall = newStats();
    overall.hasFatal = true;
    overall.timeMs = performance.now() - started;
    reportOverall(env, overall);
    code = exitCodeOf(overall);
    summary = { fatal: true, templates: [], messages: out.messages };
  } else if (o.data !== null && !isSafeCliPath(o.data)) {
    console.error(`error: path argument contains dangerous characters or too many '../': ${o.data}`);
    code = 1;
  } else {
    const result = await runConversion({
      config: loaded.config,
      templateId,
      dataOverride: o.data === null ? null : resolve(o.data),
      configLabel: label,
    }, { ...env, fs: place.fs ?? new DenoEngineFs(base) });
    code = exitCodeOf(result.overall);
    summary = { fatal: result.aborted, templates: result.templates, messages: out.messages };
  }
  out.flushDebug();
  trace.done(code);
  await traceOut?.close();
  if (o.debugJson && summary !== undefined) out.stdout(JSON.stringify(summary, null, 2) + "\n");
  return code;
}
