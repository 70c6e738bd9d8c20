/**
 * Running one program and measuring it from the outside: wall time from spawn to exit as the parent sees it
 * (startup included, the same for every tool), and the true peak resident set size of the process.
 *
 * Peak RSS comes from GNU time (`/usr/bin/time -v`, "Maximum resident set size") where it is installed;
 * elsewhere the child's `/proc/<pid>/status` VmHWM is polled, which can miss a peak in the last few
 * milliseconds but never reports a current value as a peak.
 * @module
 */

/** What one measured run left. */
export interface Measured {
  code: number;
  wallMs: number;
  /** Peak RSS in KiB, or null when neither GNU time nor /proc was available. */
  peakRssKb: number | null;
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

async function pollPeakRss(pid: number, done: { value: boolean }): Promise<number | null> {
  let peak: number | null = null;
  while (!done.value) {
    try {
      const status = await Deno.readTextFile(`/proc/${pid}/status`);
      const m = /VmHWM:\s+(\d+)\s+kB/.exec(status);
      if (m) peak = Math.max(peak ?? 0, Number(m[1]));
    } catch {
      break; // the process is gone
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return peak;
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
  const polled = gnuTime ? Promise.resolve(null) : pollPeakRss(child.pid, done);
  const stderrBytes = new Response(child.stderr).arrayBuffer();
  const status = await child.status;
  const wallMs = performance.now() - started;
  done.value = true;
  clearTimeout(timer);
  let stderr = new TextDecoder().decode(await stderrBytes);
  let peakRssKb = await polled;
  if (gnuTime) {
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    peakRssKb = m ? Number(m[1]) : null;
    const reportStart = stderr.search(/\tCommand being timed:/);
    if (reportStart >= 0) stderr = stderr.slice(0, reportStart);
  }
  return { code: status.code, wallMs, peakRssKb, stderr };
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
