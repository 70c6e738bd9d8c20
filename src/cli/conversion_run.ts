/**
 * bxp-cli's conversion run: config loading, the real file system with staged outputs, block workers,
 * progress, signal cleanup and the summary documents. `main.ts` parses the command line and calls
 * {@link runConversionCommand}; the library-template run calls it too, with the template's text, and
 * `--preview` with a file system that keeps outputs in memory.
 *
 * @module
 */

import { dirname, resolve } from "../util/host_path.ts";
import { countsAsRunWarning, loadConfigChecked } from "../config/mod.ts";
import { configFindingText } from "./config_findings.ts";
import { reportOverall, runConversion, type TemplateSummary, templateSummary } from "../engine/mod.ts";
import { exitCodeOf, newStats, type SectionStats } from "../engine/mod.ts";
import { NULL_TRACE, type TraceSink } from "../engine/mod.ts";
import { type CliOptions, isSafeCliPath } from "./args.ts";
import type { DirProbe } from "../config/mod.ts";
import type { EngineFs } from "../engine/mod.ts";
import { DenoEngineFs, removeLiveTemps } from "./deno_fs.ts";
import { ProgressTicker, SharedProgress, showLiveProgress } from "./progress.ts";
import { startRunWatch } from "./run_watch.ts";
import { stoppableFs } from "./stoppable_fs.ts";
import type { ProgressCounters, StopCheck } from "../engine/mod.ts";
import type { Finding } from "../engine/mod.ts";
import { CliReporter } from "./reporter.ts";
import { TraceOut } from "./trace_out.ts";
import { BlockPool } from "../engine/mod.ts";
import { WorkerSet } from "../engine/mod.ts";
import { evaluatorCount } from "../engine/mod.ts";
import type { ParallelOptions } from "../engine/mod.ts";

/** bxp's cap on config text. */
const CONFIG_MAX_BYTES = 1024 * 1024;

function debugJsonDocument(
  templates: TemplateSummary[],
  overall: SectionStats,
  messages: string[],
  fatal: boolean,
): string {
  return JSON.stringify(
    { fatal, templates, overall: templateSummary("*", overall), messages, findings: overall.findings },
    null,
    2,
  ) + "\n";
}

/** The `--findings-file` document. */
export function findingsDocument(findings: readonly Finding[]): string {
  return JSON.stringify({ findings }, null, 2) + "\n";
}

/**
 * Ends the process at once after removing this run's temporary outputs (outputs already renamed into place
 * are whole and stay). Used by signal handlers and the stdin-EOF watch.
 */
export function stopNow(message: string, code: number): never {
  const removed = removeLiveTemps();
  try {
    finishProgress?.();
  } catch {
    // stderr gone
  }
  const tail = removed > 0 ? ` (${removed} temporary file(s) removed)` : "";
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(`\n${message}${tail}\n`));
  } catch {
    // stderr gone too
  }
  Deno.exit(code);
}

/** The running conversion's progress output, finished (final line / live line cleared) by {@link stopNow}. */
let finishProgress: (() => void) | null = null;

/** The message of a run stopped by a signal, by exit code. */
function interruptedMessage(code: number): string {
  return `error: interrupted by ${code === 130 ? "SIGINT" : "SIGTERM"}; the run stopped`;
}

/**
 * SIGINT and SIGTERM stop the run without leaving temporary files (exit 130 / 143, as shells report). These
 * listeners act when the main thread is idle (awaiting I/O or workers); while the engine keeps it busy, the
 * watcher thread's listeners set the stop flag the engine reads once a record (see `run_watch.ts`).
 */
function installSignalCleanup(): void {
  const signals: [Deno.Signal, number][] = [["SIGINT", 130], ["SIGTERM", 143]];
  for (const [signal, code] of signals) {
    try {
      Deno.addSignalListener(signal, () => stopNow(interruptedMessage(code), code));
    } catch {
      // not supported on this platform (SIGTERM on Windows)
    }
  }
}

const STDIN_EOF_MESSAGE =
  "error: stdin reached end of file (--exit-on-stdin-eof): the parent process is gone; the run stopped";

/** Why the run stopped, by exit code: a signal (130, 143) or stdin's end (1). */
function stopMessage(code: number): string {
  return code === 1 ? STDIN_EOF_MESSAGE : interruptedMessage(code);
}

/**
 * `--exit-on-stdin-eof`: reads stdin to its end in the background, then stops the run with exit 1 (an idle
 * main thread; the watcher thread reads it too, for a busy one).
 */
function watchStdinEof(): void {
  (async () => {
    const buf = new Uint8Array(4096);
    try {
      while ((await Deno.stdin.read(buf)) !== null) {
        // input is ignored: only its end matters
      }
    } catch {
      // a read error means the pipe is gone too
    }
    stopNow(STDIN_EOF_MESSAGE, 1);
  })();
}

/** Inputs at least this large are split across block workers (`BXP_PARALLEL_MIN_BYTES` overrides). */
const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;
/**
 * Bytes of whole lines per block (`BXP_BLOCK_BYTES` overrides). Half a MiB keeps what is in flight (two
 * blocks per evaluator, each with its input and output buffer) near 10 MiB on two cores, while a block
 * still takes milliseconds to evaluate, so messages stay cheap beside the work.
 */
const BLOCK_BYTES = 512 * 1024;

/**
 * Worker threads join a pass once the main thread, timing its own first blocks, forecasts at least this many
 * ms of remaining work (`BXP_WORKERS_JOIN_MS` overrides; 0 gives them blocks from the first one). Measured
 * on two cores with bxp's bench config: a 14 MB input converted 0.2 s slower with the workers from the
 * start than serially, a 57 MB one (about 0.7 s of work) broke even, and an expensive config gained a
 * quarter on the 14 MB input. See `engine/parallel/worker_ramp.ts`.
 */
const WORKERS_JOIN_MS = 500;

function envNumber(name: string): number | null {
  const v = Deno.env.get(name);
  return v === undefined || !/^\d+$/.test(v) ? null : Number(v);
}

/**
 * Block workers (see {@link evaluatorCount}). The pool starts on the first large file, so small runs pay
 * nothing for it.
 */
function parallelOptions(reference: boolean, stop: StopCheck | null): {
  options: ParallelOptions | null;
  threads: number;
  workers: WorkerSet | null;
  close(): void;
} {
  const evaluators = reference
    ? 1
    : evaluatorCount(Deno.env.get("BXP_WORKERS") ?? null, navigator.hardwareConcurrency);
  if (evaluators < 2) return { options: null, threads: evaluators, workers: null, close() {} };
  // One thread per extra evaluator, started on first need: the unpacking of archives and then the block
  // pool run on the same threads.
  const workers = new WorkerSet(evaluators - 1);
  const joinAfterMs = envNumber("BXP_WORKERS_JOIN_MS") ?? WORKERS_JOIN_MS;
  let pool: BlockPool | null = null;
  return {
    options: {
      pool: () => pool ??= new BlockPool(evaluators, workers, joinAfterMs === 0 ? null : joinAfterMs, stop),
      minBytes: envNumber("BXP_PARALLEL_MIN_BYTES") ?? PARALLEL_MIN_BYTES,
      blockSize: envNumber("BXP_BLOCK_BYTES") ?? BLOCK_BYTES,
    },
    threads: evaluators,
    workers,
    close: () => {
      pool?.close();
      workers.close();
    },
  };
}

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

/** Reads the `--config` file as bxp-cli does (path check, existence, the 1 MB cap, strict UTF-8). */
async function readConfigFile(
  o: CliOptions,
  fail: (message: string) => { overall: SectionStats; templates: TemplateSummary[]; aborted: boolean },
): Promise<ConfigText | { overall: SectionStats; templates: TemplateSummary[]; aborted: boolean }> {
  if (!isSafeCliPath(o.config)) {
    return fail(`error: --config path contains dangerous characters or too many '../': ${o.config}\n`);
  }
  let size: number;
  try {
    size = (await Deno.stat(o.config)).size;
  } catch {
    return fail(
      o.configExplicit
        ? `error: configuration file not found: ${o.config}\n`
        : `error: default configuration file ${o.config} missing\n`,
    );
  }
  if (size > CONFIG_MAX_BYTES) {
    return fail(
      `fatal error: config '${o.config}' is ${size} bytes, exceeding the 1 MB limit (CONFIG_MAX_FILE_SIZE)\n`,
    );
  }
  const configDir = dirname(resolve(o.config));
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(o.config));
  } catch (err) {
    return fail(`error: cannot read configuration file ${o.config}: ${(err as Error).message}\n`);
  }
  return { text, label: o.config, dir: configDir };
}

/** Loads the config and runs it; returns the overall stats and per-template summaries. */
async function run(
  o: CliOptions,
  out: CliReporter,
  trace: TraceSink,
  parallel: ParallelOptions | null,
  threads: { count: number; workers: WorkerSet | null },
  progress: ProgressCounters | null,
  source: ConfigText | null,
  reference: boolean,
): Promise<{ overall: SectionStats; templates: TemplateSummary[]; aborted: boolean }> {
  const started = performance.now();
  const env = {
    reporter: out,
    trace,
    fresh: o.fresh,
    dryRun: o.dryRun,
    debug: o.debug,
    now: () => performance.now(),
    parallel,
    // Zip members inflate on as many threads as blocks evaluate on (the same BXP_WORKERS rule), and on
    // the same worker threads.
    containerWorkers: threads.count,
    workers: threads.workers,
    progress,
    strict: o.strict,
    reference,
  };
  const overall = newStats();
  const fail = (message: string | null) => {
    if (message !== null) out.fatal(message);
    overall.hasFatal = true;
    overall.timeMs = performance.now() - started;
    reportOverall(env, overall);
    return { overall, templates: [], aborted: true };
  };

  const read = source ?? await readConfigFile(o, fail);
  if ("overall" in read) return read;
  const { text, label, dir: configDir, fs } = read;
  const loaded = await loadConfigChecked(text, label, {
    fs: { inspectDir: probeDir(configDir) },
    checkFsMs: o.checkFsSeconds * 1000,
  });
  for (const d of loaded.diagnostics) {
    const line = configFindingText(label, d, text);
    if (d.severity === "error") out.fatal(line);
    else if (d.severity === "warning") out.warning(line);
    else out.info(line);
  }
  if (loaded.config === null) return fail(null);
  if (o.data !== null && !isSafeCliPath(o.data)) {
    return fail(`error: path argument contains dangerous characters or too many '../': ${o.data}\n`);
  }

  const result = await runConversion({
    config: loaded.config,
    templateId: o.template,
    dataOverride: o.data === null ? null : resolve(o.data),
    configLabel: label,
    // Counted where it is shown: the overall summary line says what the exit status says.
    configWarnings: loaded.diagnostics.some(countsAsRunWarning) ? 1 : 0,
  }, {
    ...env,
    fs: stoppableFs(fs ?? new DenoEngineFs(configDir, { writeAside: o.dryRun }), progress?.stop ?? null),
  });
  return result;
}

/** Where a run's config comes from when it is not the `--config` file: text held in memory (a library template). */
export interface ConfigText {
  /** The config text. */
  text: string;
  /** How messages name it, e.g. `library:revolutx_to_wealthfolio`. */
  label: string;
  /** The folder its `data_dir` entries are relative to. */
  dir: string;
  /** The engine's file system (default: the real one at `dir`; `--preview` keeps outputs in memory). */
  fs?: EngineFs;
}

/**
 * A whole conversion run for parsed options: signal and stdin-EOF cleanup, the trace, block workers,
 * progress, `--findings-file` and `--debug=json`. The config is the `--config` file, or `source` when given
 * (a library template run goes through exactly the same path).
 */
export async function runConversionCommand(o: CliOptions, source: ConfigText | null = null): Promise<number> {
  installSignalCleanup();
  if (o.exitOnStdinEof) watchStdinEof();
  if (o.findingsFile !== null && !isSafeCliPath(o.findingsFile)) {
    console.error(`error: --findings-file path rejected: '${o.findingsFile}'`);
    return 1;
  }
  const out = new CliReporter({ quiet: o.quiet, trace: o.trace, debug: o.debug, debugJson: o.debugJson });
  let trace: TraceSink = NULL_TRACE;
  let traceOut: TraceOut | null = null;
  if (o.trace || o.traceFile !== null) {
    if (o.traceFile !== null && !isSafeCliPath(o.traceFile)) {
      console.error(`error: --trace-file path rejected: '${o.traceFile}'`);
      return 1;
    }
    try {
      traceOut = await TraceOut.open({ toStdout: o.trace, file: o.traceFile });
    } catch (err) {
      console.error(`error: --trace-file create failed: ${(err as Error).name} (${o.traceFile})`);
      return 1;
    }
    trace = traceOut;
  }
  // BXP_REFERENCE=1: the engine's reference mode (serial, no fast path), for the differential tests only.
  const reference = Deno.env.get("BXP_REFERENCE") === "1";
  const counters = new SharedProgress();
  // This thread's ticker draws the first live line, clears it before messages and finishes the output; the
  // watcher thread ticks (a busy thread fires no timers) and catches the signals.
  const ticker = new ProgressTicker(counters);
  const watch = startRunWatch(counters, (code) => stopNow(stopMessage(code), code), o.exitOnStdinEof);
  finishProgress = () => ticker.stop();
  const workers = parallelOptions(reference, counters.stop);
  if (o.progressJson) {
    counters.mode = "json";
  } else if (Deno.stderr.isTerminal() && !o.quiet && !o.trace && !o.debugJson) {
    // Decided once the run knows its input size (small inputs never show the line), and drawn at once, so
    // a large run shows it however fast it goes.
    counters.onTotal = (totalBytes) => {
      counters.onTotal = null;
      const situation = {
        stderrIsTerminal: true,
        quiet: o.quiet,
        trace: o.trace,
        debugJson: o.debugJson,
        progressJson: false,
        totalBytes,
      };
      if (!showLiveProgress(situation)) return;
      counters.mode = "live";
      out.beforeStderr = () => ticker.clear();
      ticker.tick();
    };
  }
  let result;
  try {
    result = await run(
      o,
      out,
      trace,
      workers.options,
      { count: workers.threads, workers: workers.workers },
      counters,
      source,
      reference,
    );
  } finally {
    workers.close();
    ticker.stop();
    finishProgress = null;
    watch.close();
  }
  const { overall, templates, aborted } = result;
  out.flushDebug();
  if (o.findingsFile !== null) {
    try {
      await Deno.writeTextFile(o.findingsFile, findingsDocument(overall.findings));
    } catch (err) {
      console.error(`error: --findings-file write failed: ${(err as Error).message} (${o.findingsFile})`);
      overall.hasFatal = true;
    }
  }
  const code = exitCodeOf(overall);
  trace.done(code);
  await traceOut?.close();
  if (o.debugJson) {
    // bxp's early-exit document: no per-template entries, an overall that only says "fatal".
    out.stdout(
      aborted
        ? debugJsonDocument([], { ...newStats(), hasFatal: true }, out.messages, true)
        : debugJsonDocument(templates, overall, out.messages, false),
    );
  }
  return code;
}
