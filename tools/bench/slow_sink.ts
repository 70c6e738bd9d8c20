/**
 * The slow-sink bench point's plumbing: a FIFO in the point's folder with a child draining it at
 * {@link SLOW_SINK_BYTES_PER_SECOND} (see `slow_drain.ts`). bxp-cli writes its trace into the FIFO; the
 * engine awaits each trace write, so a slow reader stalls it, and the peak RSS shows whether anything
 * queues up in between.
 * @module
 */

import { fileURLToPath } from "node:url";
import { SLOW_SINK_BYTES_PER_SECOND } from "./points.ts";

const DRAIN_MODULE = fileURLToPath(new URL("./slow_drain.ts", import.meta.url));

/** A FIFO with its slow reader running. */
export interface SlowSink {
  path: string;
  /** Bytes the reader consumed, once the writer closed its end (null when the reader failed). */
  finished: Promise<number | null>;
  /**
   * After the writer exited: lets the reader finish what the pipe still holds (up to a few seconds), then
   * stops it and removes the FIFO.
   */
  settle(): Promise<void>;
}

/** Creates `<dir>/slow-sink.fifo` and starts its reader. Throws when `mkfifo` is missing. */
export async function startSlowSink(dir: string): Promise<SlowSink> {
  const path = `${dir}/slow-sink.fifo`;
  await Deno.remove(path).catch(() => {});
  const made = await new Deno.Command("mkfifo", { args: [path], stdout: "null", stderr: "piped" }).output();
  if (made.code !== 0) throw new Error(`mkfifo failed: ${new TextDecoder().decode(made.stderr).trim()}`);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${path}`,
      DRAIN_MODULE,
      path,
      String(SLOW_SINK_BYTES_PER_SECOND),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const finished = child.output().then((o) => {
    const n = Number(new TextDecoder().decode(o.stdout).trim());
    return o.code === 0 && Number.isFinite(n) ? n : null;
  });
  return {
    path,
    finished,
    settle: async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), 5_000));
      await Promise.race([finished, late]);
      clearTimeout(timer);
      try {
        child.kill("SIGKILL");
      } catch {
        // already finished
      }
      await finished.catch(() => null);
      await Deno.remove(path).catch(() => {});
    },
  };
}
