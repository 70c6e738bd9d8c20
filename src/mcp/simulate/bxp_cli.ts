/**
 * Finding and running the co-located bxp-cli for `bxp_simulate`: an argument vector only (no shell), stdin
 * a pipe that is never written, a minimal environment, capped output capture, a time limit, a resident
 * memory limit where it can be watched, and a kill on cancellation.
 *
 * @module
 */

import { basename, dirname, fromFileUrl, join } from "../../util/host_path.ts";
import { ENTRY_MODULES, entryPointFlags } from "../../distribution/mod.ts";
import { type Captured, MAX_CAPTURE_BYTES, readCapped } from "./capture.ts";
import { type CliProgress, StderrFilter } from "./progress.ts";
import type { ResidentProbe } from "./memory.ts";

/** How to start bxp-cli: a program and the arguments that come before bxp-cli's own. */
export interface CliCommand {
  program: string;
  prefixArgs: string[];
}

/** bxp-cli could not be located; `detail` names where it was looked for. */
export class CliNotFoundError extends Error {
  /** The path or file concerned. */
  readonly detail: string;
  /** Create the error. */
  constructor(message: string, detail: string) {
    super(message);
    this.name = "CliNotFoundError";
    this.detail = detail;
  }
}

/** What {@link resolveBxpCli} needs from the host; the defaults read the real process and disk. */
export interface CliHost {
  /** Path of the running executable (`Deno.execPath()`). */
  execPath: string;
  /** `Deno.build.os`. */
  os: string;
  /** The repository root when running from source (`deno run`), as a `file:` URL. */
  repoRoot: URL;
  readTextFile(url: URL): Promise<string>;
  /** Whether a file exists at `path`. */
  exists(path: string): Promise<boolean>;
}

/** The repository root, seen from this file. */
const REPO_ROOT = new URL("../../../", import.meta.url);

/** The real host. */
export function denoCliHost(): CliHost {
  return {
    execPath: Deno.execPath(),
    os: Deno.build.os,
    repoRoot: REPO_ROOT,
    readTextFile: (url) => Deno.readTextFile(url),
    exists: async (path) => {
      try {
        return (await Deno.stat(path)).isFile;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Locate bxp-cli. A compiled bxp-mcp runs the `bxp-cli` (`bxp-cli.exe` on Windows) beside its own
 * executable; under `deno run` (the executable is `deno` itself) it runs the project's bxp-cli entry with
 * the permission flags of the `bxp-cli` task in deno.json, the one place those flags are kept.
 *
 * Under `deno test` the real host is `deno run` of this checkout; a compiled install is shown with a host
 * whose executable is elsewhere and whose file check is stubbed:
 *
 * @example
 * ```ts
 * import { denoCliHost, resolveBxpCli } from "./bxp_cli.ts";
 * import assert from "node:assert/strict";
 * const cli = await resolveBxpCli(denoCliHost());
 * assert.equal(cli.program, Deno.execPath());
 * assert.equal(cli.prefixArgs[0], "run");
 * assert.ok(cli.prefixArgs.includes("--no-prompt")); // the bxp-cli task's flags, from deno.json
 * assert.match(cli.prefixArgs.at(-1)!, /src[\\/]cli[\\/]main\.ts$/);
 * const host = { ...denoCliHost(), execPath: "/opt/bxp/bxp-mcp", os: "linux", exists: async () => true };
 * const compiled = await resolveBxpCli(host);
 * assert.match(compiled.program, /^[\\/]opt[\\/]bxp[\\/]bxp-cli$/); // beside the executable
 * assert.deepEqual(compiled.prefixArgs, []);
 * ```
 */
export async function resolveBxpCli(host: CliHost): Promise<CliCommand> {
  const exe = basename(host.execPath).toLowerCase();
  if (exe === "deno" || exe === "deno.exe") {
    if (host.repoRoot.protocol !== "file:") {
      throw new CliNotFoundError("cannot locate the bxp-cli entry of this checkout", host.repoRoot.href);
    }
    const denoJsonUrl = new URL("deno.json", host.repoRoot);
    let flags: string[];
    try {
      flags = entryPointFlags(await host.readTextFile(denoJsonUrl), "bxp-cli");
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new CliNotFoundError(`cannot read the bxp-cli task flags: ${why}`, fromFileUrl(denoJsonUrl));
    }
    const entry = fromFileUrl(new URL(ENTRY_MODULES["bxp-cli"], host.repoRoot));
    return { program: host.execPath, prefixArgs: ["run", ...flags, entry] };
  }
  const cli = join(dirname(host.execPath), host.os === "windows" ? "bxp-cli.exe" : "bxp-cli");
  if (!await host.exists(cli)) throw new CliNotFoundError("bxp-cli binary not found next to bxp-mcp", cli);
  return { program: cli, prefixArgs: [] };
}

/**
 * The child's whole environment: PATH, the temp-folder variables and (on Windows) SystemRoot, each only
 * when set and readable; nothing else of the server's environment leaks into the conversion.
 *
 * @example
 * ```ts
 * import { childEnvironment } from "./bxp_cli.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   childEnvironment((n) => ({ PATH: "/bin", TMPDIR: "/t", HOME: "/root" })[n], "linux"),
 *   { PATH: "/bin", TMPDIR: "/t" },
 * );
 * ```
 */
export function childEnvironment(
  readEnv: (name: string) => string | undefined,
  os: string,
): Record<string, string> {
  const names = ["PATH", "TMPDIR", "TEMP", "TMP", ...(os === "windows" ? ["SystemRoot"] : [])];
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = readEnv(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * `command` with V8's old-space heap capped at `mib` MiB (per isolate: bxp-cli's one block worker has its
 * own). Under `deno run` the cap is a `--v8-flags` argument (and `DENO_V8_FLAGS`, which `deno run` also
 * honours); a compiled bxp-cli cannot take Deno flags, so `DENO_V8_FLAGS` in the child's environment is the
 * only carrier there. A child over the cap dies with V8's out-of-memory abort, reported as a failed run.
 *
 * @example
 * ```ts
 * import { withHeapCap } from "./bxp_cli.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   withHeapCap({ program: "/usr/bin/deno", prefixArgs: ["run", "main.ts"] }, 512).command.prefixArgs,
 *   ["run", "--v8-flags=--max-old-space-size=512", "main.ts"],
 * );
 * ```
 */
export function withHeapCap(
  command: CliCommand,
  mib: number,
): { command: CliCommand; env: Record<string, string> } {
  const flag = `--max-old-space-size=${Math.floor(mib)}`;
  const env = { DENO_V8_FLAGS: flag };
  if (command.prefixArgs[0] !== "run") return { command, env };
  return {
    command: {
      program: command.program,
      prefixArgs: ["run", `--v8-flags=${flag}`, ...command.prefixArgs.slice(1)],
    },
    env,
  };
}

/** Options of {@link runCli}. */
export interface RunOptions {
  env: Record<string, string>;
  /** Kill the child when this fires. */
  signal: AbortSignal;
  /** Kill the child after this many milliseconds. */
  timeoutMs: number;
  /** Called with the child's pid once it started (for diagnostics). */
  onSpawn?: (pid: number) => void;
  /** Cap on each captured stream; defaults to {@link MAX_CAPTURE_BYTES}. */
  captureBytes?: number;
  /** Each `bxp-progress` line of the child's stderr (such lines are not captured). */
  onProgress?: (progress: CliProgress) => void;
  /**
   * Called every `watchMs` while the child runs; a non-null answer kills the child and becomes
   * {@link CliRun.stopped} (for example a disk budget that was exceeded).
   */
  watch?: () => Promise<string | null>;
  /** Interval of {@link RunOptions.watch}; default 250 ms. */
  watchMs?: number;
  /**
   * The child's whole resident memory, read every `everyMs` (default 50 ms): above `limitBytes` it is
   * killed and {@link CliRun.memoryExceeded} says what was seen.
   */
  memory?: { probe: ResidentProbe; limitBytes: number; everyMs?: number };
}

/** How a bxp-cli run ended. */
export interface CliRun {
  /** The exit code, or -1 when the child was ended by a signal. */
  exitCode: number;
  stdout: Captured;
  /** stderr without its `bxp-progress` lines. */
  stderr: Captured;
  /** True when the time limit killed the child. */
  timedOut: boolean;
  /** Why {@link RunOptions.watch} stopped the child, or null. */
  stopped: string | null;
  /** The resident bytes seen when the memory limit killed the child, or null. */
  memoryExceeded: number | null;
  /** The most resident memory seen while watching, or null when it was not watched. */
  peakResidentBytes: number | null;
}

/**
 * Run bxp-cli with `args` and wait for it. The child's stdin is a pipe that is never written: when this
 * process dies, however abruptly, the pipe closes and bxp-cli (run with `--exit-on-stdin-eof`) exits too.
 * The child is killed when `signal` fires (the promise then rejects with the signal's reason, after the
 * child is gone), when the time limit passes, or when `watch` says so. bxp-cli starts no processes of its
 * own (its parallelism is worker threads), so killing its pid ends all of its work.
 */
export async function runCli(
  command: CliCommand,
  args: readonly string[],
  options: RunOptions,
): Promise<CliRun> {
  options.signal.throwIfAborted();
  const child = new Deno.Command(command.program, {
    args: [...command.prefixArgs, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: options.env,
  }).spawn();
  // Held open, never written: its closing is the child's cue that bxp-mcp is gone.
  const stdin = child.stdin.getWriter();
  options.onSpawn?.(child.pid);
  const cap = options.captureBytes ?? MAX_CAPTURE_BYTES;
  const stdout = readCapped(child.stdout, cap);
  const filter = new StderrFilter(cap, (p) => options.onProgress?.(p));
  const stderr = (async () => {
    for await (const chunk of child.stderr) filter.push(chunk);
    return filter.finish();
  })();
  let timedOut = false;
  let stopped: string | null = null;
  let exited = false;
  const kill = () => {
    if (exited) return;
    try {
      child.kill("SIGKILL");
    } catch {
      // already exited
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  let watching = false;
  const watcher = options.watch === undefined ? undefined : setInterval(async () => {
    if (watching || exited || stopped !== null) return;
    watching = true;
    try {
      const reason = await options.watch!();
      if (reason !== null && !exited) {
        stopped = reason;
        kill();
      }
    } catch {
      // a failed check is retried at the next tick
    } finally {
      watching = false;
    }
  }, options.watchMs ?? 250);
  let memoryExceeded: number | null = null;
  let peakResidentBytes: number | null = null;
  const memory = options.memory;
  const checkMemory = () => {
    if (memory === undefined || exited || memoryExceeded !== null) return;
    const rss = memory.probe(child.pid);
    if (rss === null) return;
    peakResidentBytes = Math.max(peakResidentBytes ?? 0, rss);
    if (rss > memory.limitBytes) {
      memoryExceeded = rss;
      kill();
    }
  };
  // A synchronous read of a small /proc file (well under a millisecond), so it runs often: a child can
  // allocate a few hundred MB a second.
  const memoryTimer = memory === undefined ? undefined : setInterval(checkMemory, memory.everyMs ?? 50);
  options.signal.addEventListener("abort", kill, { once: true });
  try {
    const status = await child.status;
    exited = true;
    const [out, err] = await Promise.all([stdout, stderr]);
    options.signal.throwIfAborted();
    return {
      exitCode: status.signal === null ? status.code : -1,
      stdout: out,
      stderr: err,
      timedOut,
      stopped,
      memoryExceeded,
      peakResidentBytes,
    };
  } finally {
    exited = true;
    clearTimeout(timer);
    if (memoryTimer !== undefined) clearInterval(memoryTimer);
    if (watcher !== undefined) clearInterval(watcher);
    options.signal.removeEventListener("abort", kill);
    await stdin.close().catch(() => {});
  }
}
