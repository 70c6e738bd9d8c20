/**
 * The watcher thread of a bxp-cli conversion run (see `run_watch.ts`): it listens for SIGINT and SIGTERM and
 * draws the progress, because the converting thread may be busy for minutes and then runs neither signal
 * handlers nor timers. A signal only sets the stop flag in shared memory; the converting thread reads it
 * once a record and ends the run itself (a worker cannot end the process, nor remove the main thread's
 * temporary files).
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { type ProgressMemory, ProgressTicker, SharedProgress } from "./progress.ts";

/** The signals that stop a run, with the exit codes shells report for them. */
const STOP_SIGNALS: readonly [Deno.Signal, number][] = [["SIGINT", 130], ["SIGTERM", 143]];

self.onmessage = (e: MessageEvent<ProgressMemory>) => {
  const progress = new SharedProgress(e.data);
  for (const [signal, code] of STOP_SIGNALS) {
    try {
      Deno.addSignalListener(signal, () => progress.requestStop(code));
    } catch {
      // not supported on this platform (SIGTERM on Windows)
    }
  }
  new ProgressTicker(progress).start();
  self.postMessage("ready");
};
