/**
 * Keeps a bxp-cli conversion run stoppable and its progress visible while the engine keeps the main thread
 * busy. The conversion parses and evaluates whole chunks (and blocks) synchronously, so a signal listener or
 * a timer on the main thread may not run for minutes. A small watcher thread (`run_watch_worker.ts`) listens
 * for the signals and draws the progress from shared memory instead; the engine reads the stop flag once a
 * record through {@link SharedProgress.stop}, whose answer ends the process right there (temporary files
 * removed, exit 130 / 143).
 *
 * The example ends before the watcher thread would start (a run shorter than {@link WATCH_AFTER_MS} never
 * starts it) and stands in for a signal with `requestStop`, which is what the thread does on one.
 *
 * @example
 * ```ts
 * import { startRunWatch } from "./run_watch.ts";
 * import { SharedProgress } from "./progress.ts";
 * import assert from "node:assert/strict";
 * class Stopped extends Error {}
 * const progress = new SharedProgress();
 * // bxp-cli's onStop ends the process (stopNow); the watcher thread starts only after WATCH_AFTER_MS.
 * const watch = startRunWatch(progress, (code) => {
 *   throw new Stopped(`exit ${code}`);
 * });
 * try {
 *   assert.equal(progress.stop!.requested(), false); // the engine's check once a record: go on
 *   progress.requestStop(130); // what the watcher thread does on SIGINT
 *   assert.throws(() => progress.stop!.requested(), Stopped);
 * } finally {
 *   watch.close(); // before the thread started: none is
 * }
 * ```
 * @module
 */

import { ProgressTicker, type SharedProgress } from "./progress.ts";
import type { WatchRequest } from "./run_watch_worker.ts";

/** A run's watcher (its thread starts only once the run has lasted a while, see {@link startRunWatch}). */
export interface RunWatch {
  /** Ends the watcher thread (finish the progress output first: it writes nothing after that). */
  close(): void;
}

/**
 * The watcher thread starts once the run has lasted this long. Starting a worker blocks the calling thread
 * for about 35 ms (measured on two cores) and costs about 12 MB: runs shorter than this, which need neither,
 * never pay for it. Until it starts, the main thread's own listeners stop the run when it is idle.
 */
export const WATCH_AFTER_MS = 100;

/**
 * Stop checks between looks at the clock once the run is under way, before the thread has started (a clock
 * read costs more than the check). The first checks look at checks 1, 2, 4, ... 64, so rows that take
 * milliseconds each start the thread within a few of them.
 */
const CHECKS_PER_CLOCK = 64;

/**
 * Makes `progress.stop` answer the stop flag and starts the watcher thread over `progress` after `afterMs`:
 * on a timer when the main thread is idle then, else from the engine's stop checks (a busy thread fires no
 * timer). Once a signal came (or, with `stdinEof`, stdin's end: code 1), the engine's next check calls
 * `onStop(code)`, which must end the process.
 */
export function startRunWatch(
  progress: SharedProgress,
  onStop: (code: number) => never,
  stdinEof = false,
  afterMs = WATCH_AFTER_MS,
): RunWatch {
  let worker: Worker | null = null;
  // Without the thread, progress is drawn on this thread's timer (as long as the engine lets it run).
  let fallback: ProgressTicker | null = null;
  let closed = false;
  const start = () => {
    if (worker !== null || closed) return;
    worker = new Worker(new URL("./run_watch_worker.ts", import.meta.url), { type: "module" });
    worker.onerror = (e) => {
      e.preventDefault();
      fallback ??= new ProgressTicker(progress);
      fallback.start();
    };
    worker.postMessage({ memory: progress.memory, stdinEof } satisfies WatchRequest);
  };
  const startAt = performance.now() + afterMs;
  const timer = setTimeout(start, afterMs);
  Deno.unrefTimer(timer);
  let checks = 0;
  const lookAtClock = () => {
    const n = ++checks;
    if ((n & (n - 1)) !== 0 && (n & (CHECKS_PER_CLOCK - 1)) !== 0) return;
    if (performance.now() >= startAt) start();
  };
  progress.stop = {
    requested: () => {
      const code = progress.stopCode();
      if (code !== 0) onStop(code);
      if (worker === null) lookAtClock();
      return false;
    },
  };
  return {
    close: () => {
      closed = true;
      clearTimeout(timer);
      worker?.terminate();
      fallback?.stop();
    },
  };
}
