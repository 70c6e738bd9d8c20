/**
 * Keeps a bxp-cli conversion run stoppable and its progress visible while the engine keeps the main thread
 * busy. The conversion parses and evaluates whole chunks (and blocks) synchronously, so a signal listener or
 * a timer on the main thread may not run for minutes. A small watcher thread (`run_watch_worker.ts`) listens
 * for the signals and draws the progress from shared memory instead; the engine reads the stop flag once a
 * record through {@link SharedProgress.stop}, whose answer ends the process right there (temporary files
 * removed, exit 130 / 143).
 *
 * @example
 * ```ts ignore
 * const progress = new SharedProgress();
 * const watch = startRunWatch(progress, (code) => stopNow("interrupted", code));
 * await watch.ready; // signals are caught from here on, however busy the main thread
 * watch.close();
 * ```
 * @module
 */

import { ProgressTicker, type SharedProgress } from "./progress.ts";
import type { WatchRequest } from "./run_watch_worker.ts";

/** A running watcher thread. */
export interface RunWatch {
  /**
   * Settles once the watcher listens for signals (or failed to start: the main thread's own listeners
   * still stop an idle run). Never rejects.
   */
  readonly ready: Promise<void>;
  /** Ends the watcher thread (finish the progress output first: it writes nothing after that). */
  close(): void;
}

/**
 * Starts the watcher thread over `progress` and makes `progress.stop` answer its stop flag: once a signal
 * came (or, with `stdinEof`, stdin's end: code 1), the engine's next check calls `onStop(code)`, which must
 * end the process.
 */
export function startRunWatch(
  progress: SharedProgress,
  onStop: (code: number) => never,
  stdinEof = false,
): RunWatch {
  progress.stop = {
    requested: () => {
      const code = progress.stopCode();
      if (code !== 0) onStop(code);
      return false;
    },
  };
  const worker = new Worker(new URL("./run_watch_worker.ts", import.meta.url), { type: "module" });
  // Without the thread, progress is drawn on this thread's timer (as long as the engine lets it run).
  let fallback: ProgressTicker | null = null;
  const ready = new Promise<void>((resolve) => {
    worker.onmessage = () => resolve();
    worker.onerror = (e) => {
      e.preventDefault();
      fallback ??= new ProgressTicker(progress);
      fallback.start();
      resolve();
    };
  });
  worker.postMessage({ memory: progress.memory, stdinEof } satisfies WatchRequest);
  return {
    ready,
    close: () => {
      worker.terminate();
      fallback?.stop();
    },
  };
}
