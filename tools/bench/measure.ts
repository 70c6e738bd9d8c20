/**
 * Running one program and measuring it from the outside: wall time from spawn to exit as the parent sees it
 * (startup included, the same for every tool), and the true peak resident set size of the process.
 *
 * Peak RSS and CPU time (user + system, every thread) come from GNU time (`/usr/bin/time -v`, "Maximum
 * resident set size", "User time", "System time") where it is installed; elsewhere the child's
 * `/proc/<pid>/status` VmHWM and `/proc/<pid>/stat` times are polled, which can miss the last few
 * milliseconds (so the CPU time is then a lower bound) but never report a current value as a peak.
 * @module
 */

/** What one measured run left. */
export interface Measured {
  code: number;
  wallMs: number;
  /** Peak RSS in KiB, or null when neither GNU time nor /proc was available. */
  peakRssKb: number | null;
  /**
   * CPU time of the process, user + system over all its threads, ms (null when unknown). Wall time alone
   * moves with the machine's load; CPU time moves less, so the report gives both.
   */
  cpuMs: number | null;
  /** The child's own stderr (GNU time's report removed). */
  stderr: string;
}

/** How to run the program. */
export interface RunSpec {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Send stdout to this file instead of discarding it (through `sh -c 'exec … > file'`). */
  stdoutPath?: string;
  /** Kill the run after this long. */
  timeoutMs?: number;
}

const GNU_TIME = "/usr/bin/time";

let gnuTimeChecked: boolean | null = null;

/** Whether GNU time with `-v` works here (checked once). */
export async function hasGnuTime(): Promise<boolean> {
  if (gnuTimeChecked !== null) return gnuTimeChecked;
  try {
    const out = await new Deno.Command(GNU_TIME, { args: ["-v", "true"], stdout: "null", stderr: "piped" })
      .output();
    gnuTimeChecked = out.code === 0 && new TextDecoder().decode(out.stderr).includes("Maximum resident");
  } catch {
    gnuTimeChecked = false;
  }
  return gnuTimeChecked;
}

/** What GNU time's `-v` report says, and where it starts in the stderr it was appended to. */
export interface GnuTimeReport {
  peakRssKb: number | null;
  /** User + system time, ms; null when either line is missing. */
  cpuMs: number | null;
  /** Offset of the report in the stderr text (the child's own output is before it), or -1. */
  reportStart: number;
}

/**
 * Reads GNU time's `-v` report from a child's stderr.
 *
 * @example
 * ```ts
 * import { parseGnuTime } from "./measure.ts";
 * import assert from "node:assert/strict";
 * const r = parseGnuTime("\tUser time (seconds): 1.25\n\tSystem time (seconds): 0.50\n");
 * assert.equal(r.cpuMs, 1750);
 * ```
 */
export function parseGnuTime(stderr: string): GnuTimeReport {
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
  return {
    peakRssKb: rss ? Number(rss[1]) : null,
    // Rounded to the microsecond: the report has two decimals and floating sums would show as 1749.9999.
    cpuMs: user && sys ? Math.round((Number(user[1]) + Number(sys[1])) * 1e6) / 1e3 : null,
    reportStart: stderr.search(/\tCommand being timed:/),
  };
}

/**
 * User + system time in ms from the text of `/proc/<pid>/stat` (fields 14 and 15, in clock ticks), or null
 * when it does not parse. The command name (field 2) may hold spaces and parentheses, so fields are counted
 * from its last `)`.
 *
 * @example
 * ```ts
 * import { procStatCpuMs } from "./measure.ts";
 * import assert from "node:assert/strict";
 * assert.equal(procStatCpuMs("42 (a) b) S 1 42 42 0 -1 0 0 0 0 0 150 25 0 0", 100), 1750);
 * ```
 */
export function procStatCpuMs(stat: string, ticksPerSecond: number): number | null {
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  // After the name: field 3 (state) is the first, so utime (14) and stime (15) are the 12th and 13th.
  const fields = stat.slice(close + 1).trim().split(/\s+/);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime) || fields.length < 13) return null;
  return ((utime + stime) * 1000) / ticksPerSecond;
}

let clockTicks: number | null = null;

/** The kernel's clock ticks per second (`getconf CLK_TCK`; 100, Linux's usual value, when it cannot say). */
async function ticksPerSecond(): Promise<number> {
  if (clockTicks !== null) return clockTicks;
  clockTicks = 100;
  try {
    const out = await new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped", stderr: "null" })
      .output();
    const n = Number(new TextDecoder().decode(out.stdout).trim());
    if (out.code === 0 && Number.isInteger(n) && n > 0) clockTicks = n;
  } catch {
    // no getconf: keep 100
  }
  return clockTicks;
}

/** Polls the child's peak RSS and CPU time until `done` (the last reading stands: a lower bound for CPU). */
async function pollProc(
  pid: number,
  done: { value: boolean },
): Promise<{ peakRssKb: number | null; cpuMs: number | null }> {
  const ticks = await ticksPerSecond();
  let peak: number | null = null;
  let cpuMs: number | null = null;
  while (!done.value) {
    try {
      const status = await Deno.readTextFile(`/proc/${pid}/status`);
      const m = /VmHWM:\s+(\d+)\s+kB/.exec(status);
      if (m) peak = Math.max(peak ?? 0, Number(m[1]));
      cpuMs = procStatCpuMs(await Deno.readTextFile(`/proc/${pid}/stat`), ticks) ?? cpuMs;
    } catch {
      break; // the process is gone
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { peakRssKb: peak, cpuMs };
}

/**
 * Writes every dirty page to disk (`sync`, untimed) so a run does not pay for the writeback of the run before
 * it: runs are interleaved (bxp-cli, Miller, DuckDB, bxp-cli, ...), and without it each bxp-cli run shared the
 * two cores with the kernel flushing DuckDB's 670 MB output of a moment ago (30-45% system time), a cost
 * that always fell on the tool after DuckDB. A machine without `sync` measures as before.
 */
export async function settleDisk(): Promise<void> {
  try {
    await new Deno.Command("sync", { stdin: "null", stdout: "null", stderr: "null" }).output();
  } catch {
    // no sync(1) here
  }
}

/**
 * Runs the program to completion and measures it, after {@link settleDisk}. Stdin is closed; stdout is
 * discarded unless redirected.
 */
export async function runMeasured(spec: RunSpec): Promise<Measured> {
  await settleDisk();
  let argv = spec.argv;
  if (spec.stdoutPath !== undefined) {
    // exec keeps the measured process the program itself, not a shell around it.
    argv = ["sh", "-c", 'out="$1"; shift; exec "$@" > "$out"', "sh", spec.stdoutPath, ...argv];
  }
  const gnuTime = await hasGnuTime();
  if (gnuTime) argv = [GNU_TIME, "-v", "--quiet", ...argv];
  const started = performance.now();
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: spec.cwd,
    env: spec.env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const timer = spec.timeoutMs === undefined ? undefined : setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already finished
    }
  }, spec.timeoutMs);
  const done = { value: false };
  const polled = gnuTime ? Promise.resolve({ peakRssKb: null, cpuMs: null }) : pollProc(child.pid, done);
  const stderrBytes = new Response(child.stderr).arrayBuffer();
  const status = await child.status;
  const wallMs = performance.now() - started;
  done.value = true;
  clearTimeout(timer);
  let stderr = new TextDecoder().decode(await stderrBytes);
  let { peakRssKb, cpuMs } = await polled;
  if (gnuTime) {
    const report = parseGnuTime(stderr);
    ({ peakRssKb, cpuMs } = report);
    if (report.reportStart >= 0) stderr = stderr.slice(0, report.reportStart);
  }
  return { code: status.code, wallMs, peakRssKb, cpuMs, stderr };
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The value at quantile `q` (0–1, nearest rank) of a non-empty list. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}
