/**
 * `bxp_simulate`: validate the template's input shape, stage the config and the CSV in a scratch
 * workspace, run bxp-cli on it, and fold its outputs and BXTB trace into bxp's report.
 *
 * Answers: a report (`ok: true`, the run happened; its outcome is in exit_code/status/diagnostics), bxp's
 * `{"ok":false,"error","detail"}` refusal of a template that cannot be simulated (a domain answer), or the
 * same shape marked `isError` when the host failed (no bxp-cli, staging I/O, spawn, time limit).
 *
 * @module
 */

import { join } from "node:path";
import { templateIo } from "../../inspect/mod.ts";
import type { ToolCall, ToolResult } from "../protocol/mod.ts";
import { BXTB_MAGIC, type BxtbFrame, BxtbReader } from "../../trace/bxtb.ts";
import {
  childEnvironment,
  type CliCommand,
  CliNotFoundError,
  denoCliHost,
  readEnvQuietly,
  resolveBxpCli,
  runCli,
} from "./bxp_cli.ts";
import { capturedText, MAX_CAPTURE_BYTES, readFileCapped } from "./capture.ts";
import { buildReport, foldTrace, type OutputFile, refusal, type TraceSummary } from "./report.ts";
import { outputNameEscape } from "../security/staged_config.ts";
import { isPlainFilePattern, stageWorkspace, StagingError, tempBase, workspacePaths } from "./workspace.ts";

/** Default time limit of one bxp-cli run. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** The steps reported as progress, in order. */
export const SIMULATE_STEPS = [
  "validating template",
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
  /** Workspace id; the template id when null. */
  workspace: string | null;
}

/** What the simulator needs from its host. */
export interface SimulateHost {
  /** The system temp folder. */
  tempBase(): string;
  /** How to start bxp-cli; throws {@link CliNotFoundError}. */
  locateCli(): Promise<CliCommand>;
  /** The child's whole environment. */
  childEnv(): Record<string, string>;
  /** Time limit of one run, in milliseconds. */
  timeoutMs: number;
  /** Diagnostics (stderr). */
  log(message: string): void;
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

const answer = (value: unknown, isError = false): ToolResult => ({ text: JSON.stringify(value), isError });

/**
 * Runs simulations. Calls for the same workspace run one after another (each wipes the folder the other
 * would be using); different workspaces run in parallel.
 */
export class Simulator {
  readonly #host: SimulateHost;
  readonly #queues = new Map<string, Promise<void>>();

  /** A simulator on `host`. */
  constructor(host: SimulateHost) {
    this.#host = host;
  }

  /** Simulate one request, reporting the four progress steps on `call`. */
  async simulate(request: SimulateRequest, call: ToolCall): Promise<ToolResult> {
    const step = (n: number) => call.progress(n, SIMULATE_STEPS.length, SIMULATE_STEPS[n - 1]);
    step(1);
    const io = templateIo(request.config, request.template);
    const refuse = (error: string, detail: string) => answer(refusal(error, detail));
    if (!io.found) return refuse("template not found in config", request.template);
    if (io.hasXlsxSheet) {
      return refuse("xlsx-input templates cannot be simulated from inline CSV", request.template);
    }
    if (!io.csvInput) {
      return refuse("only CSV-input templates can be simulated (file_type_in must be csv)", request.template);
    }
    if (io.filePatternIn === "") {
      return refuse("template is missing required file_pattern_in", request.template);
    }
    if (!isPlainFilePattern(io.filePatternIn)) {
      return refuse(
        "file_pattern_in must be a plain filename suffix (no path separators or '..')",
        io.filePatternIn,
      );
    }
    const escape = outputNameEscape(request.config, request.template);
    if (escape !== null) return refuse(escape.error, escape.detail);

    let cli: CliCommand;
    try {
      cli = await this.#host.locateCli();
    } catch (error) {
      if (error instanceof CliNotFoundError) return answer(refusal(error.message, error.detail), true);
      throw error;
    }

    const paths = workspacePaths(
      this.#host.tempBase(),
      request.workspace ?? request.template,
      io.filePatternIn,
    );
    return await this.#exclusively(paths.workspace, call.signal, async () => {
      step(2);
      const input = typeof request.csv === "string" ? new TextEncoder().encode(request.csv) : request.csv;
      try {
        await stageWorkspace(paths, request.config, input);
      } catch (error) {
        if (error instanceof StagingError) return answer(refusal(error.message, error.detail), true);
        throw error;
      }

      step(3);
      const args = [
        "--config",
        paths.configPath,
        "--template",
        request.template,
        "--data",
        paths.dataDir,
        "--trace-file",
        paths.tracePath,
      ];
      let run;
      try {
        run = await runCli(cli, args, {
          env: this.#host.childEnv(),
          signal: call.signal,
          timeoutMs: this.#host.timeoutMs,
          onSpawn: (pid) => this.#host.log(`bxp_simulate: bxp-cli pid ${pid} running in ${paths.workspace}`),
        });
      } catch (error) {
        if (call.signal.aborted) {
          this.#host.log(`bxp_simulate: cancelled; bxp-cli stopped (${paths.workspace})`);
          throw error;
        }
        const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        return answer(refusal("bxp-cli spawn failed", why), true);
      }
      if (run.timedOut) {
        const seconds = Math.round(this.#host.timeoutMs / 1000);
        return answer(
          refusal(`bxp-cli did not finish within ${seconds} s and was killed`, paths.workspace),
          true,
        );
      }

      step(4);
      const trace = await readTrace(paths.tracePath, input);
      const outputs = await readOutputs(paths.dataDir, paths.inputName);
      return answer(buildReport({
        template: request.template,
        exitCode: run.exitCode,
        inputCsv: typeof request.csv === "string" ? request.csv : new TextDecoder().decode(request.csv),
        outputs,
        summary: capturedText(run.stdout, "bxp-cli stdout"),
        diagnostics: capturedText(run.stderr, "bxp-cli stderr"),
        trace,
        workspace: paths.workspace,
      }));
    });
  }

  /** Run `work` once every earlier call on `key` has finished; give up waiting when `signal` fires. */
  async #exclusively<T>(key: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => release = resolve);
    const tail = before.then(() => mine);
    this.#queues.set(key, tail);
    try {
      await waitOrAbort(before, signal);
      return await work();
    } finally {
      release();
      if (this.#queues.get(key) === tail) this.#queues.delete(key);
    }
  }
}

function waitOrAbort(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

/** Read and fold the BXTB sidecar; a missing, empty, oversized or foreign file means no trace. */
async function readTrace(path: string, input: Uint8Array): Promise<TraceSummary> {
  let bytes: Uint8Array;
  try {
    bytes = await readFileCapped(path, MAX_CAPTURE_BYTES);
  } catch {
    return { available: false };
  }
  if (bytes.length < 4) return { available: false };
  if (new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) !== BXTB_MAGIC) {
    return { available: false };
  }
  // Decode in slices so the frames before a damaged one (a crashed run) still count.
  const reader = new BxtbReader();
  const frames: BxtbFrame[] = [];
  const slice = 64 * 1024;
  try {
    for (let at = 0; at < bytes.length; at += slice) {
      for (const frame of reader.push(bytes.subarray(at, at + slice))) frames.push(frame);
    }
  } catch {
    // keep what decoded cleanly
  }
  return foldTrace(frames, input);
}

/** Every regular file of the data folder except the staged input, by name, read back with the cap. */
async function readOutputs(dataDir: string, inputName: string): Promise<OutputFile[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dataDir)) {
      if (entry.isFile && entry.name !== inputName) names.push(entry.name);
    }
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return [{ file: "data", error: `cannot list the scratch data folder: ${why}` }];
  }
  names.sort();
  const decoder = new TextDecoder();
  const outputs: OutputFile[] = [];
  for (const file of names) {
    try {
      outputs.push({
        file,
        csv: decoder.decode(await readFileCapped(join(dataDir, file), MAX_CAPTURE_BYTES)),
      });
    } catch (error) {
      outputs.push({ file, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return outputs;
}
