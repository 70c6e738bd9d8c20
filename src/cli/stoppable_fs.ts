/**
 * An {@link EngineFs} that asks the run's {@link StopCheck} before each staged write and each ranged read.
 * The preparation passes (zip members inflated, xlsx sheets extracted on the main thread) run long stretches
 * of microtasks with no turn of the event loop, so no signal listener of the main thread runs; every one of
 * them reads and writes through the file system, so asking there stops them within a chunk.
 *
 * @example
 * ```ts
 * import { stoppableFs } from "./stoppable_fs.ts";
 * import { MemoryFs, RunStopped } from "../engine/mod.ts";
 * import assert from "node:assert/strict";
 * const inner = new MemoryFs("/p"); // bxp-cli wraps its DenoEngineFs
 * inner.put("a.csv", new TextEncoder().encode("h\nx\n"));
 * let stopping = false; // bxp-cli: progress.stop, set by a signal
 * const fs = stoppableFs(inner, { requested: () => stopping });
 * const file = await fs.openRandomAccess("a.csv");
 * try {
 *   assert.equal((await file.read(0, 2)).length, 2);
 *   stopping = true;
 *   assert.throws(() => file.read(2, 2), RunStopped); // the run's next ranged read (or staged write) stops it
 * } finally {
 *   await file.close();
 * }
 * ```
 * @module
 */

import type { EngineFs, RandomAccessFile, StagedOutput, StopCheck } from "../engine/mod.ts";
import { RunStopped } from "../engine/mod.ts";

function check(stop: StopCheck): void {
  if (stop.requested()) throw new RunStopped();
}

function stoppableOutput(out: StagedOutput, stop: StopCheck): StagedOutput {
  return {
    write: (bytes) => {
      check(stop);
      return out.write(bytes);
    },
    ...(out.flush === undefined ? {} : { flush: () => out.flush!() }),
    commit: () => out.commit(),
    abort: () => out.abort(),
  };
}

function stoppableFile(file: RandomAccessFile, stop: StopCheck): RandomAccessFile {
  return {
    size: file.size,
    read: (offset, length) => {
      check(stop);
      return file.read(offset, length);
    },
    close: () => file.close(),
  };
}

/** `fs` with a stop check before every staged write and ranged read (everything else passes through). */
export function stoppableFs(fs: EngineFs, stop: StopCheck | null): EngineFs {
  if (stop === null) return fs;
  return new Proxy(fs, {
    get(target, key) {
      if (key === "createOutput") {
        return async (path: string, exclusive: boolean) => {
          const out = await target.createOutput(path, exclusive);
          return out === "exists" ? out : stoppableOutput(out, stop);
        };
      }
      if (key === "openRandomAccess") {
        return async (path: string) => stoppableFile(await target.openRandomAccess(path), stop);
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
