/**
 * The watcher thread of a bxp-cli conversion run (see `run_watch.ts`): it listens for SIGINT and SIGTERM (and
 * with `--exit-on-stdin-eof` for stdin's end) and draws the progress, because the converting thread may be busy for minutes and then runs neither signal
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

/** What the main thread posts: the shared memory, and whether stdin's end stops the run. */
export interface WatchRequest {
  memory: ProgressMemory;
  /** `--exit-on-stdin-eof`: read stdin to its end, then ask for a stop with exit code 1. */
  stdinEof: boolean;
}

/** Reads stdin to its end (its bytes are ignored: only its end matters), then asks for the stop. */
async function stopAtStdinEof(progress: SharedProgress): Promise<void> {
  const buf = new Uint8Array(4096);
  try {
    while ((await Deno.stdin.read(buf)) !== null) {
      // input is ignored
    }
  } catch {
    // a read error means the pipe is gone too
  }
  progress.requestStop(1);
}

self.onmessage = (e: MessageEvent<WatchRequest>) => {
  const progress = new SharedProgress(e.data.memory);
  if (e.data.stdinEof) void stopAtStdinEof(progress);
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
