/**
 * `bxp_simulate`: validate the template's input shape, wait for a free slot, stage the config and the CSV
 * in a fresh private workspace, run bxp-cli on it under a time limit, a disk budget, a heap cap and (on
 * Linux) a limit on the child's whole resident memory, and
 * fold its outputs (streamed: counts, sizes, hashes and first rows) and BXTB trace into a report that fits
 * the caller's byte budget. The full outputs and the trace stay readable as resources of the session.
 *
 * Answers: a report (`ok: true`, the run happened; its outcome is in exit_code/status/diagnostics), bxp's
 * `{"ok":false,"error","detail"}` refusal of a template that cannot be simulated (a domain answer), or the
 * same shape marked `isError` when the host failed (no bxp-cli, staging I/O, spawn, time limit, disk
 * budget, memory limit). Messages name workspace-relative paths only, never the server's absolute temp folder.
 *
 * @module
 */

import { join } from "../../util/host_path.ts";
import { getMember, parseJson5 } from "../../config/json5.ts";
import { templateIo } from "../../inspect/templates.ts";
import { type ResourceLink, toCallToolResult, type ToolCall, type ToolResult } from "../protocol/mod.ts";
import {
  childEnvironment,
  type CliCommand,
  CliNotFoundError,
  denoCliHost,
  resolveBxpCli,
  runCli,
  withHeapCap,
} from "./bxp_cli.ts";
import { capturedText } from "./capture.ts";
import { type ResidentProbe, residentProbe } from "./memory.ts";
import { readEnvQuietly } from "../read_env.ts";
import { acquireAll, Gate } from "./gate.ts";
import { MonotonicProgress } from "./progress.ts";
import { folderBytes, listOutputs, readFindings, readOutputs, readTrace } from "./readback.ts";
import { buildReport, fitReport, RecordCounter, refusal, type Report, summaryText } from "./report.ts";
import { outputUri, type RunPage, type RunPart, type RunReadRefusal, RunStore, traceUri } from "./runs.ts";
import { outputNameEscape } from "../security/staged_config.ts";
import {
  checkScratchRoot,
  createWorkspace,
  inputNameProblem,
  isPlainFilePattern,
  SIM_ROOT_NAME,
  stageFiles,
  StagingError,
  tempBase,
  type WorkspacePaths,
} from "./workspace.ts";

/** The longest time limit of one bxp-cli run (a call asks for it with `timeout_seconds`, or runs as a task). */
export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * The time limit of a call that names none and does not run as a task: under the about 60 s after which
 * Claude Desktop and the Claude Code desktop app give up on a tool call, with room for staging and
 * reading back.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 50_000;

/** The limits a simulator works under (all stated in the tool description). */
export interface SimulateLimits {
  /** Bytes a run may write (outputs plus trace) before bxp-cli is killed. */
  diskBudgetBytes: number;
  /** bxp-cli's V8 old-space heap cap, in MiB. */
  heapMiB: number;
  /**
   * bxp-cli's whole resident memory, in MiB, above which it is killed (watched where the host has a
   * resident probe: Linux). Well under 1.5 GB, since it is read every 50 ms while the child allocates.
   */
  residentMiB: number;
  /** Simulations running at once in this session. */
  perSession: number;
  /** Kept runs per session (their outputs readable as resources); the oldest is evicted first. */
  keepRuns: number;
  /** Bytes of kept runs per session. */
  keepBytes: number;
  /** Cap on each of bxp-cli's captured stdout and stderr. */
  captureBytes: number;
}

/** The defaults. */
export const DEFAULT_LIMITS: SimulateLimits = {
  diskBudgetBytes: 256 * 1024 * 1024,
  heapMiB: 1024,
  residentMiB: 1280,
  perSession: 2,
  keepRuns: 8,
  keepBytes: 1024 * 1024 * 1024,
  captureBytes: 1024 * 1024,
};

/** Simulations running at once in this server process, over all its sessions. */
export const PROCESS_CONCURRENCY = 2;

/** The gate every simulator of this process shares unless its host brings its own. */
const PROCESS_GATE = new Gate(PROCESS_CONCURRENCY);

/** Default and hard maximum of `sample_rows`. */
export const SAMPLE_ROWS = { default: 20, max: 1000 } as const;

/** Default, minimum and hard maximum of `max_bytes`. */
export const MAX_BYTES = { default: 256 * 1024, min: 8 * 1024, max: 4 * 1024 * 1024 } as const;

/** The steps reported as progress, in order. */
export const SIMULATE_STEPS = [
  "validating template",
  "waiting for a free simulation slot",
  "staging workspace",
  "running conversion",
  "reading output and trace",
] as const;

/** The arguments of one simulation. */
export interface SimulateRequest {
  config: string;
  template: string;
  /** The input: text (inline `csv`, staged as UTF-8) or bytes read from the project (`csv_path`, verbatim). */
  csv: string | Uint8Array;
  /** A label for the run (the old `workspace` argument); the template id when null. */
  workspace: string | null;
  /**
   * The staged input's file name: `csv_path`'s base name or the `file_name` argument. Must end with the
   * template's `file_pattern_in`; default `input<file_pattern_in>`.
   */
  fileName?: string | null;
  /** Data rows shown per output and trace category (default {@link SAMPLE_ROWS}). */
  sampleRows?: number;
  /** Byte budget of the whole answer (default {@link MAX_BYTES}). */
  maxBytes?: number;
  /** This run's time limit (default and cap: the host's {@link SimulateHost.timeoutMs}). */
  timeoutMs?: number;
}

/** What the simulator needs from its host. */
export interface SimulateHost {
  /** The system temp folder. */
  tempBase(): string;
  /** How to start bxp-cli; throws {@link CliNotFoundError}. */
  locateCli(): Promise<CliCommand>;
  /** The child's whole environment. */
  childEnv(): Record<string, string>;
  /** The longest time limit of one run, in milliseconds (a request may ask for less). */
  timeoutMs: number;
  /** Diagnostics (stderr). */
  log(message: string): void;
  /** Limits other than the defaults. */
  limits?: Partial<SimulateLimits>;
  /** The process-wide concurrency gate (default: one shared by the whole process). */
  processGate?: Gate;
  /**
   * Reads a child's resident memory (default: {@link residentProbe}, Linux only); null: not watched, the
   * heap cap alone applies.
   */
  residentProbe?: ResidentProbe | null;
}

/** The real host: the process environment, Deno's executable path, and the time limit given. */
export function denoSimulateHost(
  log: (message: string) => void,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): SimulateHost {
  return {
    tempBase: () => tempBase(readEnvQuietly),
    locateCli: () => resolveBxpCli(denoCliHost()),
    childEnv: () => childEnvironment(readEnvQuietly, Deno.build.os),
    timeoutMs,
    log,
  };
}

const structuredAnswer = (value: Report, isError = false): ToolResult =>
  isError
    ? { text: JSON.stringify(value), isError }
    : { text: summaryText(value), structured: value, isError: false };

const refuse = (error: string, detail: string, extra: Record<string, unknown> = {}) =>
  structuredAnswer({ ...refusal(error, detail), ...extra });

const failure = (error: string, detail: string) => structuredAnswer(refusal(error, detail), true);

/**
 * Runs the simulations of one session. Each call gets its own workspace; at most
 * {@link SimulateLimits.perSession} run at once here and {@link PROCESS_CONCURRENCY} in the whole process,
 * the rest queue (and may be cancelled while queued). {@link Simulator.resources} serves the kept runs'
 * outputs and traces; {@link Simulator.close} ends it all.
 */
export class Simulator {
  readonly #host: SimulateHost;
  readonly #limits: SimulateLimits;
  readonly #sessionGate: Gate;
  readonly #processGate: Gate;
  readonly #closing = new AbortController();
  readonly #running = new Set<Promise<unknown>>();
  readonly #store: RunStore;

  /** A simulator on `host`. */
  constructor(host: SimulateHost) {
    this.#host = host;
    this.#limits = { ...DEFAULT_LIMITS, ...host.limits };
    this.#sessionGate = new Gate(this.#limits.perSession);
    this.#processGate = host.processGate ?? PROCESS_GATE;
    this.#store = new RunStore(
      { maxRuns: this.#limits.keepRuns, maxBytes: this.#limits.keepBytes },
      host.log,
    );
  }

  /** The kept runs' outputs and traces, as MCP resources (`bxp-sim://...`). */
  get resources(): RunStore {
    return this.#store;
  }

  /** The limits in force. */
  get limits(): Readonly<SimulateLimits> {
    return this.#limits;
  }

  /** The longest time limit a run may have (the host's), in milliseconds. */
  get maxTimeoutMs(): number {
    return this.#host.timeoutMs;
  }

  /**
   * Read a kept run by its handle (`bxp_read_run`): a page of an output, the trace or the full report.
   * See {@link RunStore.readByHandle}.
   */
  readRun(
    handle: string,
    part: RunPart,
    name: string | null,
    offset: number,
    maxBytes: number,
  ): Promise<RunPage | RunReadRefusal> {
    return this.#store.readByHandle(handle, part, name, offset, maxBytes);
  }

  /**
   * End the session's simulations: running and queued calls are cancelled (their bxp-cli killed and
   * waited for), every workspace is removed, and later calls are refused.
   */
  async close(): Promise<void> {
    this.#closing.abort(new DOMException("the session ended", "AbortError"));
    await Promise.allSettled([...this.#running]);
    await this.#store.close();
  }

  /** Simulate one request, reporting progress on `call`. */
  simulate(request: SimulateRequest, call: ToolCall): Promise<ToolResult> {
    if (this.#closing.signal.aborted) {
      return Promise.resolve(failure("the session is ending; no new simulations start", request.template));
    }
    const work = this.#simulate(request, call);
    this.#running.add(work);
    work.then(() => this.#running.delete(work), () => this.#running.delete(work));
    return work;
  }

  async #simulate(request: SimulateRequest, call: ToolCall): Promise<ToolResult> {
    const signal = AbortSignal.any([call.signal, this.#closing.signal]);
    const progress = new MonotonicProgress(
      (p, total, m) => call.progress(p, total, m),
      SIMULATE_STEPS.length,
    );
    const step = (n: number) => progress.report(n, SIMULATE_STEPS[n - 1], n + 1);
    step(1);
    const sampleRows = request.sampleRows ?? SAMPLE_ROWS.default;
    const maxBytes = request.maxBytes ?? MAX_BYTES.default;
    const timeoutMs = Math.min(request.timeoutMs ?? this.#host.timeoutMs, this.#host.timeoutMs);

    const checked = checkTemplate(request);
    if ("refusal" in checked) return checked.refusal;
    const { inputName } = checked;

    let cli: CliCommand;
    try {
      cli = await this.#host.locateCli();
    } catch (error) {
      if (error instanceof CliNotFoundError) return failure(error.message, error.detail);
      throw error;
    }

    // Wait for a slot, with a heartbeat so a client's timeout can be reset by progress.
    step(2);
    const queuedAt = Date.now();
    const waiting = setInterval(() => {
      const seconds = Math.round((Date.now() - queuedAt) / 1000);
      progress.report(2, `waiting for a free simulation slot (${seconds} s)`, 3);
    }, 1000);
    let slot: { release: () => void; waited: boolean };
    try {
      slot = await acquireAll([this.#sessionGate, this.#processGate], signal);
    } finally {
      clearInterval(waiting);
    }
    const release = slot.release;
    const queuedMs = slot.waited ? Math.max(Date.now() - queuedAt, 1) : 0;
    let paths: WorkspacePaths | null = null;
    let kept = false;
    try {
      step(3);
      const input = typeof request.csv === "string" ? new TextEncoder().encode(request.csv) : request.csv;
      try {
        const simRoot = join(this.#host.tempBase(), SIM_ROOT_NAME);
        const rootUid = await checkScratchRoot(simRoot);
        paths = await createWorkspace(simRoot, rootUid, request.workspace ?? request.template, inputName);
        await stageFiles(paths, request.config, input);
      } catch (error) {
        if (error instanceof StagingError) return failure(error.message, error.detail);
        throw error;
      }

      step(4);
      const outcome = await this.#run(cli, request.template, paths, signal, progress, timeoutMs);
      if ("failure" in outcome) return outcome.failure;
      const { run } = outcome;

      step(5);
      const names = await listOutputs(paths.dataDir, paths.inputName).catch(() => [] as string[]);
      const headBytes = Math.min(maxBytes, 1024 * 1024);
      const outputs = await readOutputs(paths.dataDir, names, sampleRows + 1, headBytes);
      const trace = await readTrace(paths.tracePath, input, sampleRows);
      const findings = await readFindings(paths.findingsPath);
      // Only outputs and the trace stay (for resource reads); the staged input and config go now.
      for (const staged of [paths.inputPath, paths.configPath, paths.findingsPath]) {
        await Deno.remove(staged).catch(() => {});
      }
      const counter = new RecordCounter();
      counter.push(input);

      const keptOutputs = outputs.flatMap((o) => "error" in o ? [] : [{ name: o.file, bytes: o.bytes }]);
      const traceBytes = await Deno.lstat(paths.tracePath).then((i) => i.size, () => -1);
      kept = await this.#store.keep({
        id: paths.id,
        dir: paths.workspace,
        dataDir: paths.dataDir,
        outputs: keptOutputs,
        tracePath: traceBytes >= 0 ? paths.tracePath : null,
        bytes: keptOutputs.reduce((sum, o) => sum + o.bytes, 0) + Math.max(traceBytes, 0),
      });
      const id = paths.id;
      const handle = kept ? this.#store.handleOf(id) : null;
      const report = buildReport({
        template: request.template,
        exitCode: run.exitCode,
        input: { file: paths.inputName, bytes: input.length, records: counter.records },
        outputs,
        outputUris: new Map(kept ? keptOutputs.map((o) => [o.name, outputUri(id, o.name)]) : []),
        summary: hidePaths(capturedText(run.stdout, "bxp-cli stdout"), paths),
        diagnostics: hidePaths(capturedText(run.stderr, "bxp-cli stderr"), paths),
        findings,
        trace,
        traceUri: kept && traceBytes >= 0 ? traceUri(id) : null,
        workspace: id,
        queuedMs,
        kept,
        run: handle === null ? null : { handle, idleSeconds: Math.round(this.#store.idleMs / 1000) },
        limits: {
          sample_rows: sampleRows,
          max_bytes: maxBytes,
          time_limit_s: Math.round(timeoutMs / 1000),
          disk_budget_bytes: this.#limits.diskBudgetBytes,
          heap_mib: this.#limits.heapMiB,
          ...(this.#probe() === null ? {} : { resident_mib: this.#limits.residentMiB }),
        },
      }, sampleRows);
      const links: ResourceLink[] = !kept ? [] : [
        ...keptOutputs.slice(0, MAX_OUTPUT_LINKS).map((o) => ({
          type: "resource_link" as const,
          uri: outputUri(id, o.name),
          name: o.name,
          title: `Full output ${o.name} (paged)`,
          mimeType: "text/csv",
          size: o.bytes,
        })),
        ...(traceBytes >= 0
          ? [{
            type: "resource_link" as const,
            uri: traceUri(id),
            name: "trace",
            title: "Per-row trace as text (paged)",
            mimeType: "text/plain",
          }]
          : []),
      ];
      if (kept) {
        // The whole report, before it is cut to this answer's budget, stays readable by handle.
        const full = new TextEncoder().encode(JSON.stringify(report));
        const reportPath = join(paths.workspace, "report.json");
        if (await Deno.writeFile(reportPath, full, { mode: 0o600 }).then(() => true, () => false)) {
          await this.#store.attachReport(id, reportPath, full.length);
        }
      }
      const result = fitAnswer(report, links, maxBytes);
      return result;
    } finally {
      release();
      if (paths !== null && !kept) await Deno.remove(paths.workspace, { recursive: true }).catch(() => {});
    }
  }

  /** The resident-memory probe in force, or null where the child's memory is not watched. */
  #probe(): ResidentProbe | null {
    return this.#host.residentProbe === undefined ? residentProbe() : this.#host.residentProbe;
  }

  /**
   * Run bxp-cli in `paths`; a failure result for a spawn error, the time limit, the disk budget or the
   * memory limit.
   */
  async #run(
    cli: CliCommand,
    template: string,
    paths: WorkspacePaths,
    signal: AbortSignal,
    progress: MonotonicProgress,
    timeoutMs: number,
  ): Promise<{ run: Awaited<ReturnType<typeof runCli>> } | { failure: ToolResult }> {
    const args = [
      "--config",
      paths.configPath,
      "--template",
      template,
      "--data",
      paths.dataDir,
      "--trace-file",
      paths.tracePath,
      "--progress=json",
      "--findings-file",
      paths.findingsPath,
      "--exit-on-stdin-eof",
    ];
    const capped = withHeapCap(cli, this.#limits.heapMiB);
    const budget = this.#limits.diskBudgetBytes;
    const probe = this.#probe();
    let lastReport = Date.now();
    let lastMessage = SIMULATE_STEPS[3];
    const heartbeat = setInterval(() => {
      if (Date.now() - lastReport >= 900) progress.report(4, lastMessage, 5);
    }, 1000);
    let run;
    try {
      run = await runCli(capped.command, args, {
        env: { ...this.#host.childEnv(), ...capped.env },
        signal,
        timeoutMs,
        captureBytes: this.#limits.captureBytes,
        onSpawn: (pid) => this.#host.log(`bxp_simulate: bxp-cli pid ${pid} running in ${paths.id}`),
        onProgress: (p) => {
          const fraction = p.total_bytes > 0 ? Math.min(p.bytes / p.total_bytes, 1) : 0;
          lastMessage = `running conversion: ${p.records} records, ${p.bytes}` +
            (p.total_bytes > 0 ? ` of ${p.total_bytes} bytes` : " bytes");
          lastReport = Date.now();
          progress.report(4 + 0.95 * fraction, lastMessage, 5);
        },
        watch: async () => {
          const used = await folderBytes(paths.dataDir, paths.inputName, [paths.tracePath]);
          return used > budget ? `wrote ${used} bytes, over the ${budget}-byte disk budget` : null;
        },
        ...(probe === null ? {} : { memory: { probe, limitBytes: this.#limits.residentMiB * 1048576 } }),
      });
    } catch (error) {
      if (signal.aborted) {
        this.#host.log(`bxp_simulate: cancelled; bxp-cli stopped (${paths.id})`);
        throw error;
      }
      const why = error instanceof Error ? error.name : "error";
      return { failure: failure("bxp-cli spawn failed", why) };
    } finally {
      clearInterval(heartbeat);
    }
    if (run.memoryExceeded !== null) {
      // Rounded up: the child was killed over the limit, so the figure never reads as the limit itself.
      const seen = Math.ceil(run.memoryExceeded / 1048576);
      this.#host.log(`bxp_simulate: bxp-cli killed at ${seen} MiB resident (${paths.id})`);
      return {
        failure: failure(
          `bxp-cli was killed: memory limit. Its resident memory reached ${seen} MiB, over the ` +
            `${this.#limits.residentMiB} MiB limit per simulation. Simulate a smaller input, or fewer or ` +
            "smaller rows per record (row_rules rows, long values)",
          paths.id,
        ),
      };
    }
    if (run.timedOut) {
      const seconds = Math.round(timeoutMs / 1000);
      const more = timeoutMs < this.#host.timeoutMs
        ? `; a longer run needs timeout_seconds (at most ${Math.round(this.#host.timeoutMs / 1000)}), ` +
          "and a client that waits that long (or runs the call as a task)"
        : "; simulate a smaller input";
      return {
        failure: failure(`bxp-cli did not finish within ${seconds} s and was killed${more}`, paths.id),
      };
    }
    if (run.stopped !== null) {
      return {
        failure: failure(
          `bxp-cli was killed: the run ${run.stopped} (${Math.round(budget / 1048576)} MiB per simulation)`,
          paths.id,
        ),
      };
    }
    return { run };
  }
}

/** The staged input's name, or the refusal answer of a template or name that cannot be simulated. */
function checkTemplate(request: SimulateRequest): { inputName: string } | { refusal: ToolResult } {
  const wrap = (result: ToolResult) => ({ refusal: result });
  const parsed = parseJson5(request.config);
  if (parsed.error !== null) {
    const e = parsed.error;
    return wrap(refuse(`config is not valid JSON5: ${e.message}`, `line ${e.line}, column ${e.col}`));
  }
  const io = templateIo(request.config, request.template);
  if (!io.found) {
    const templates = getMember(parsed.value ?? undefined, "conversion_templates");
    const available = templates?.kind === "object" ? templates.entries.map((e) => e.key) : [];
    return wrap(refuse("template not found in config", request.template, { available }));
  }
  if (io.hasXlsxSheet) {
    return wrap(refuse("xlsx-input templates cannot be simulated from inline CSV", request.template));
  }
  if (!io.csvInput) {
    return wrap(
      refuse("only CSV-input templates can be simulated (file_type_in must be csv)", request.template),
    );
  }
  if (io.filePatternIn === "") {
    return wrap(refuse("template is missing required file_pattern_in", request.template));
  }
  if (!isPlainFilePattern(io.filePatternIn)) {
    return wrap(refuse(
      "file_pattern_in must be a plain filename suffix (no path separators or '..')",
      io.filePatternIn,
    ));
  }
  const escape = outputNameEscape(request.config, request.template);
  if (escape !== null) return wrap(refuse(escape.error, escape.detail));
  const inputName = request.fileName ?? `input${io.filePatternIn}`;
  const problem = inputNameProblem(inputName, io.filePatternIn);
  if (problem !== null) return wrap(refuse(`the input file name ${problem}`, inputName.slice(0, 300)));
  return { inputName };
}

/** bxp-cli's text with the workspace's absolute path replaced by `.` (workspace-relative paths only). */
function hidePaths(text: string, paths: WorkspacePaths): string {
  return text.split(paths.workspace).join(".").split(paths.simRoot).join("$TMPDIR/bxp-mcp-sim");
}

/** Resource links per answer for output files (every output keeps its `uri` in the report). */
const MAX_OUTPUT_LINKS = 10;

/**
 * The tool result of `report` with `links`, cut until the whole `tools/call` result (text, links and the
 * structured copy, as the wire carries them) fits in `maxBytes`: the report is fitted to what is left
 * after the links and the envelope, and refitted with the measured excess if escaping made it larger.
 */
function fitAnswer(report: Report, links: ResourceLink[], maxBytes: number): ToolResult {
  const wireBytes = (result: ToolResult) => utf8Bytes(JSON.stringify(toCallToolResult(result, true)));
  let budget = maxBytes - utf8Bytes(JSON.stringify(links)) - 256;
  let result: ToolResult = { ...structuredAnswer(report), links };
  for (let round = 0; round < 4; round++) {
    fitReport(report, budget);
    result = { ...structuredAnswer(report), links };
    const size = wireBytes(result);
    if (size <= maxBytes) break;
    budget -= size - maxBytes + 256;
  }
  if (links.length === 0) delete result.links;
  return result;
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;
