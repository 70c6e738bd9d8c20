/**
 * bxp-cli's progress: a live line on a terminal's stderr for large inputs (percent of bytes, rows/s, elapsed,
 * remaining), and `--progress=json` lines for a parent process. Both read the engine's counters, kept in
 * shared memory ({@link SharedProgress}), on a timer of the watcher thread (`run_watch.ts`): the converting
 * thread may be busy for minutes without firing a timer of its own, and never waits for them.
 *
 * @example
 * ```ts
 * import { progressJsonLine } from "./progress.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   progressJsonLine({ records: 10, bytes: 512, totalBytes: 1024 }),
 *   'bxp-progress {"records":10,"bytes":512,"total_bytes":1024}\n',
 * );
 * ```
 * @module
 */

import type { ProgressCounters, StopCheck } from "../engine/mod.ts";

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
 * import assert from "node:assert/strict";
 * assert.equal(
 *   formatProgressLine({ records: 300000, bytes: 50 * 1048576, totalBytes: 100 * 1048576 }, 2000),
 *   "bxp-cli  50% 50.0 of 100.0 MB  150k rows/s  elapsed 0:02  remaining ~0:02",
 * );
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

/** Progress is best effort: a stderr that is gone (a closed pipe) must not fail the run nor the watcher. */
function writeStderr(text: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(text));
  } catch {
    // nobody reads it any more
  }
}

/** The shared memory of a run's counters and control flags (posted to the watcher thread). */
export interface ProgressMemory {
  /** Float64: records, bytes, total bytes, start time (ms since the epoch). */
  readonly counters: SharedArrayBuffer;
  /** Int32: see the slot constants below. */
  readonly control: SharedArrayBuffer;
}

/** Control slots: the stop request (its exit code), the output lock, line drawn, finished, skip a tick, mode. */
const STOP = 0;
const LOCK = 1;
const DRAWN = 2;
const DONE = 3;
const SKIP = 4;
const MODE = 5;
const CONTROL_SLOTS = 6;

/** What the ticker writes: nothing (yet), `--progress=json` lines, or the live terminal line. */
export type ProgressMode = "none" | "json" | "live";
const MODES: readonly ProgressMode[] = ["none", "json", "live"];

/** Milliseconds since the epoch, comparable across threads (each has its own `performance` origin). */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/**
 * The engine's {@link ProgressCounters} in shared memory, so another thread can show them while the
 * converting thread is busy, plus the flags the threads coordinate with: a stop request (set by the
 * watcher thread's signal listener, read by {@link SharedProgress.stop} once a record) and a lock around
 * progress output, so a line is never drawn in the middle of another thread's message.
 */
export class SharedProgress implements ProgressCounters {
  /** The shared memory (post it to another thread, which wraps it in its own `SharedProgress`). */
  readonly memory: ProgressMemory;
  readonly #n: Float64Array;
  readonly #c: Int32Array;
  /** Called on the thread that sets {@link SharedProgress.totalBytes} (the engine, once the inputs are measured). */
  onTotal: ((totalBytes: number) => void) | null = null;
  /** Answered to the engine; the converting thread sets it (see `run_watch.ts`). */
  stop: StopCheck | null = null;

  /** Fresh memory (counters zero, started now), or a view of memory another thread made. */
  constructor(memory?: ProgressMemory, startedAt: number = epochNow()) {
    this.memory = memory ?? {
      counters: new SharedArrayBuffer(4 * Float64Array.BYTES_PER_ELEMENT),
      control: new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT),
    };
    this.#n = new Float64Array(this.memory.counters);
    this.#c = new Int32Array(this.memory.control);
    if (memory === undefined) this.#n[3] = startedAt;
  }

  get records(): number {
    return this.#n[0];
  }
  set records(v: number) {
    this.#n[0] = v;
  }
  get bytes(): number {
    return this.#n[1];
  }
  set bytes(v: number) {
    this.#n[1] = v;
  }
  get totalBytes(): number {
    return this.#n[2];
  }
  set totalBytes(v: number) {
    this.#n[2] = v;
    this.onTotal?.(v);
  }
  /** When the run started (ms since the epoch). */
  get startedAt(): number {
    return this.#n[3];
  }

  /** The exit code of the stop requested (130 SIGINT, 143 SIGTERM), or 0. A shared-memory read. */
  stopCode(): number {
    return Atomics.load(this.#c, STOP);
  }

  /** Asks the run to stop with `code`; the first request wins. */
  requestStop(code: number): void {
    Atomics.compareExchange(this.#c, STOP, 0, code);
  }

  get mode(): ProgressMode {
    return MODES[Atomics.load(this.#c, MODE)];
  }
  set mode(m: ProgressMode) {
    Atomics.store(this.#c, MODE, MODES.indexOf(m));
  }

  /** Reads or sets a control flag (drawn, finished, skip). */
  flag(slot: "drawn" | "done" | "skip", value?: boolean): boolean {
    const i = slot === "drawn" ? DRAWN : slot === "done" ? DONE : SKIP;
    if (value !== undefined) Atomics.store(this.#c, i, value ? 1 : 0);
    return Atomics.load(this.#c, i) === 1;
  }

  /** Runs `fn` holding the output lock (held only around one short stderr write, by either thread). */
  locked<T>(fn: () => T): T {
    while (Atomics.compareExchange(this.#c, LOCK, 0, 1) !== 0) Atomics.wait(this.#c, LOCK, 1, 5);
    try {
      return fn();
    } finally {
      Atomics.store(this.#c, LOCK, 0);
      Atomics.notify(this.#c, LOCK);
    }
  }
}

/**
 * Writes progress for a {@link SharedProgress}: periodic lines in its current mode, then a final JSON line or
 * the live line cleared. Every thread's ticker over the same memory shares the drawn/finished state, so the
 * converting thread can clear a line the watcher thread drew, and nothing is written once it finished.
 */
export class ProgressTicker {
  readonly #p: SharedProgress;
  readonly #write: (text: string) => void;
  readonly #now: () => number;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    progress: SharedProgress,
    write: (text: string) => void = writeStderr,
    now: () => number = epochNow,
  ) {
    this.#p = progress;
    this.#write = write;
    this.#now = now;
  }

  /** Ticks every {@link PROGRESS_INTERVAL_MS} (the timer never keeps the process alive by itself). */
  start(): void {
    const timer = setInterval(() => this.tick(), PROGRESS_INTERVAL_MS);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Writes one update now (nothing once finished, or the tick right after a {@link ProgressTicker.clear}). */
  tick(): void {
    const p = this.#p;
    p.locked(() => {
      if (p.flag("done")) return;
      const mode = p.mode;
      if (mode === "json") this.#write(progressJsonLine(p));
      if (mode !== "live") return;
      // A message was just written after a clear: the line comes back a tick later, below it.
      if (p.flag("skip")) return void p.flag("skip", false);
      this.#write(`\r${formatProgressLine(p, this.#now() - p.startedAt)}\x1b[K`);
      p.flag("drawn", true);
    });
  }

  /** Clears the live line (if drawn) so other stderr text starts at the line's beginning; it comes back later. */
  clear(): void {
    const p = this.#p;
    p.locked(() => {
      if (p.mode !== "live") return;
      p.flag("skip", true);
      if (!p.flag("drawn")) return;
      this.#write("\r\x1b[K");
      p.flag("drawn", false);
    });
  }

  /** Finishes (every ticker over this memory): a final JSON line, or the live line cleared. Idempotent. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    const p = this.#p;
    if (p.flag("done")) return;
    p.flag("done", true);
    p.locked(() => {
      if (p.mode === "json") this.#write(progressJsonLine(p));
      else if (p.flag("drawn")) this.#write("\r\x1b[K");
      p.flag("drawn", false);
    });
  }
}
