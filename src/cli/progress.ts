/**
 * bxp-cli's progress: a live line on a terminal's stderr for large inputs (percent of bytes, rows/s, elapsed,
 * remaining), and `--progress=json` lines for a parent process. Both read the engine's
 * {@link ProgressCounters} on a timer, so the conversion never waits for them.
 *
 * @example
 * ```ts
 * import { progressJsonLine } from "./progress.ts";
 * progressJsonLine({ records: 10, bytes: 512, totalBytes: 1024 });
 * // 'bxp-progress {"records":10,"bytes":512,"total_bytes":1024}\n'
 * ```
 * @module
 */

import type { ProgressCounters } from "../engine/host.ts";

/** Inputs smaller than this convert too fast for a live line to help. */
export const LIVE_PROGRESS_MIN_BYTES = 16 * 1024 * 1024;

/** Redraw / emit period: at most four lines a second, at least one while the event loop runs. */
export const PROGRESS_INTERVAL_MS = 250;

/** What decides whether the live terminal line is shown. */
export interface LiveProgressSituation {
  stderrIsTerminal: boolean;
  quiet: boolean;
  trace: boolean;
  debugJson: boolean;
  progressJson: boolean;
  totalBytes: number;
}

/**
 * True when the live line helps and disturbs nothing: stderr is a terminal, no machine or quiet mode is on,
 * and the input is large.
 */
export function showLiveProgress(s: LiveProgressSituation): boolean {
  return s.stderrIsTerminal && !s.quiet && !s.trace && !s.debugJson && !s.progressJson &&
    s.totalBytes >= LIVE_PROGRESS_MIN_BYTES;
}

/** The `--progress=json` line for the counters (bytes never reported above the total). */
export function progressJsonLine(p: ProgressCounters): string {
  const total = Math.max(p.totalBytes, p.bytes);
  return `bxp-progress ${JSON.stringify({ records: p.records, bytes: p.bytes, total_bytes: total })}\n`;
}

function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const mm = Math.floor(s / 60);
  return `${mm}:${String(s % 60).padStart(2, "0")}`;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function rate(perSecond: number): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(1)}M`;
  if (perSecond >= 1e3) return `${Math.round(perSecond / 1e3)}k`;
  return String(Math.round(perSecond));
}

/**
 * The live line's text (no line control characters).
 *
 * @example
 * ```ts
 * import { formatProgressLine } from "./progress.ts";
 * formatProgressLine({ records: 300000, bytes: 50 * 1048576, totalBytes: 100 * 1048576 }, 2000);
 * // "bxp-cli  50% 50.0 of 100.0 MB  150k rows/s  elapsed 0:02  remaining ~0:02"
 * ```
 */
export function formatProgressLine(p: ProgressCounters, elapsedMs: number): string {
  const total = Math.max(p.totalBytes, p.bytes);
  const fraction = total > 0 ? p.bytes / total : 0;
  const percent = Math.min(100, Math.floor(fraction * 100));
  const seconds = elapsedMs / 1000;
  const rowsPerSecond = seconds > 0 ? p.records / seconds : 0;
  const remaining = fraction > 0 ? elapsedMs * (1 - fraction) / fraction : NaN;
  return `bxp-cli ${String(percent).padStart(3)}% ${megabytes(p.bytes).replace(" MB", "")} of ${
    megabytes(total)
  }  ${rate(rowsPerSecond)} rows/s  elapsed ${clock(elapsedMs)}  remaining ${
    Number.isFinite(remaining) ? "~" + clock(remaining) : "?"
  }`;
}

const encoder = new TextEncoder();

/** Periodically writes progress to a stream; `stop()` writes the final state (JSON) or clears the line. */
export class ProgressTicker {
  readonly #counters: ProgressCounters;
  readonly #mode: "json" | "live";
  readonly #write: (text: string) => void;
  readonly #now: () => number;
  readonly #started: number;
  #timer: ReturnType<typeof setInterval> | null = null;
  #drawn = false;

  constructor(
    counters: ProgressCounters,
    mode: "json" | "live",
    write: (text: string) => void = (t) => void Deno.stderr.writeSync(encoder.encode(t)),
    now: () => number = () => performance.now(),
  ) {
    this.#counters = counters;
    this.#mode = mode;
    this.#write = write;
    this.#now = now;
    this.#started = now();
  }

  /** Starts the timer (it never keeps the process alive by itself). */
  start(): void {
    const timer = setInterval(() => this.tick(), PROGRESS_INTERVAL_MS);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Writes one update now. */
  tick(): void {
    if (this.#mode === "json") {
      this.#write(progressJsonLine(this.#counters));
      return;
    }
    this.#write(`\r${formatProgressLine(this.#counters, this.#now() - this.#started)}\x1b[K`);
    this.#drawn = true;
  }

  /** Clears the live line (if drawn) so other stderr text starts at the line's beginning; the next tick redraws. */
  clear(): void {
    if (this.#mode !== "live" || !this.#drawn) return;
    this.#write("\r\x1b[K");
    this.#drawn = false;
  }

  /** Stops the timer: a final JSON line, or the live line cleared. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#mode === "json") this.#write(progressJsonLine(this.#counters));
    else if (this.#drawn) this.#write("\r\x1b[K");
  }
}
