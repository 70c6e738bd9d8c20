/**
 * Where a container's member or sheet may be written. bxp unpacks zip members and extracts xlsx sheets beside
 * their container, over whatever file has the name, and the templates then read them from the data folder
 * (later `--fresh` runs and the partition modes rely on them staying there). A container may come from an
 * attacker, so here a member or sheet is only written where nothing is, or over a file this run wrote
 * itself. An existing file with the very bytes it would get is left as it is (an earlier run's copy: a
 * re-run works as before); any other existing file, and a name a bxp-cli config has, stops the run before
 * anything is written.
 *
 * @example
 * ```ts
 * import { SameContent } from "./targets.ts";
 * import { MemoryFs } from "../memory_fs.ts";
 * import assert from "node:assert/strict";
 * const fs = new MemoryFs("/p");
 * fs.put("data/a.csv", new TextEncoder().encode("h\nx\n"));
 * const same = new SameContent(fs.readChunks("data/a.csv"));
 * await same.write(new TextEncoder().encode("h\n"));
 * await same.write(new TextEncoder().encode("x\n"));
 * assert.equal(await same.end(), true); // the file holds exactly these bytes: nothing to write
 * const other = new SameContent(fs.readChunks("data/a.csv"));
 * await other.write(new TextEncoder().encode("h\ny\n"));
 * assert.equal(await other.end(), false);
 * ```
 * @module
 */

import type { EngineFs } from "../host.ts";

/** The file name bxp-cli reads its config from by default (compared ignoring case, as Windows and macOS do). */
const DEFAULT_CONFIG_NAME = "bxp-cli.json";

/** True when `name` is the name bxp-cli looks for its config under: no container may write such a file. */
export function isConfigName(name: string): boolean {
  return name.toLowerCase() === DEFAULT_CONFIG_NAME;
}

/** A member or sheet refused because of where it would be written (the message names the file). */
export class TargetRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetRefusal";
  }
}

/** What may be done at a member's or sheet's output path. */
export type TargetState =
  /** Nothing is there: write (exclusive, so a file appearing meanwhile is never replaced). */
  | { kind: "free" }
  /** This run wrote it (an earlier pass or spec): replace it, as bxp does. */
  | { kind: "ours" }
  /** Someone else's file: only bytes equal to its own may "replace" it, which then writes nothing. */
  | { kind: "foreign"; size: number };

/** Looks at `path`: free, written by this run (`written`), or someone else's (with its size). */
export async function targetState(
  fs: EngineFs,
  path: string,
  written: ReadonlySet<string>,
): Promise<TargetState> {
  if (!(await fs.exists(path))) return { kind: "free" };
  if (written.has(path)) return { kind: "ours" };
  // A dangling link or an unreadable entry has no size to match: a differing file as far as we can tell.
  const size = await fs.fileSize(path).catch(() => -1);
  return { kind: "foreign", size };
}

/**
 * Compares written bytes with an existing file's, streaming both (nothing is held whole): `end` answers
 * whether the file holds exactly the bytes written.
 */
export class SameContent {
  readonly #chunks: AsyncIterator<Uint8Array>;
  #current: Uint8Array = new Uint8Array(0);
  #at = 0;
  #differs = false;
  #done = false;

  /** `chunks`: the existing file's bytes (fresh arrays: they are kept until compared). */
  constructor(chunks: AsyncIterable<Uint8Array>) {
    this.#chunks = chunks[Symbol.asyncIterator]();
  }

  /** True once a difference was seen (later writes are then ignored). */
  get differs(): boolean {
    return this.#differs;
  }

  /** Compares the next `bytes` with the file's next bytes. */
  async write(bytes: Uint8Array): Promise<void> {
    let from = 0;
    while (!this.#differs && from < bytes.length) {
      if (this.#at === this.#current.length && !(await this.#pull())) {
        this.#differs = true; // the file is shorter
        break;
      }
      const n = Math.min(bytes.length - from, this.#current.length - this.#at);
      for (let i = 0; i < n; i++) {
        if (bytes[from + i] !== this.#current[this.#at + i]) {
          this.#differs = true;
          break;
        }
      }
      from += n;
      this.#at += n;
    }
    if (this.#differs) await this.close();
  }

  /** Whether the file holds exactly the bytes written (it must end where they end). Closes the file. */
  async end(): Promise<boolean> {
    // Bytes of the file left over mean it is longer than what was written.
    if (!this.#differs && (this.#at < this.#current.length || await this.#pull())) this.#differs = true;
    await this.close();
    return !this.#differs;
  }

  /** Lets go of the file (when the comparison stops early). */
  async close(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    await this.#chunks.return?.();
  }

  /** The next non-empty chunk of the file, or false at its end. */
  async #pull(): Promise<boolean> {
    while (!this.#done) {
      const next = await this.#chunks.next();
      if (next.done) {
        this.#done = true;
        return false;
      }
      if (next.value.length > 0) {
        this.#current = next.value;
        this.#at = 0;
        return true;
      }
    }
    return false;
  }
}

/** The run-wide record of the paths the container passes wrote (keyed by the run's environment object). */
const writtenByRun = new WeakMap<object, Set<string>>();

/** Paths this run's container passes wrote, shared by the zip and xlsx passes of one run (`run`: its env). */
export function writtenPaths(run: object): Set<string> {
  let set = writtenByRun.get(run);
  if (set === undefined) writtenByRun.set(run, set = new Set());
  return set;
}
