/**
 * An engine file system that reads the real files but keeps every output in memory: a preview runs the
 * real pipeline (so it can never disagree with a run) without writing a byte. Later templates of the
 * same run see the earlier ones' outputs, as they would on disk.
 * @module
 */

import { dirname, resolve } from "../../util/host_path.ts";
import type { EngineFs, RandomAccessFile, ReadChunksOptions, StagedOutput } from "../../engine/mod.ts";
import { DenoEngineFs } from "../deno_fs.ts";

/** One captured output, in the order outputs were committed. */
export interface CapturedOutput {
  path: string;
  bytes: Uint8Array;
}

/** Random access over bytes already in memory (reads hand out copies, as a file's reads would). */
function bytesAsRandomAccess(bytes: Uint8Array): RandomAccessFile {
  return {
    size: bytes.length,
    read: (offset, length) => Promise.resolve(bytes.slice(offset, Math.min(bytes.length, offset + length))),
    close: () => Promise.resolve(),
  };
}

/** {@link EngineFs} over the real files at `base`, with outputs captured in {@link outputs}. */
export class OverlayFs implements EngineFs {
  readonly #real: DenoEngineFs;
  readonly #base: string;
  readonly #files = new Map<string, Uint8Array>();
  /** Committed outputs, in commit order (a rewritten one keeps its first place). */
  readonly outputs: CapturedOutput[] = [];

  constructor(base: string) {
    this.#base = base;
    this.#real = new DenoEngineFs(base);
  }

  #abs(path: string): string {
    return resolve(this.#base, path);
  }

  #store(path: string, bytes: Uint8Array): void {
    const abs = this.#abs(path);
    this.#files.set(abs, bytes);
    const known = this.outputs.find((o) => o.path === abs);
    if (known) known.bytes = bytes;
    else this.outputs.push({ path: abs, bytes });
  }

  async listFiles(dir: string): Promise<string[] | null> {
    const real = await this.#real.listFiles(dir);
    const abs = this.#abs(dir);
    const mine = [...this.#files.keys()].filter((p) => dirname(p) === abs).map((p) =>
      p.slice(abs.length + 1)
    );
    if (real === null && mine.length === 0) return null;
    return [...new Set([...(real ?? []), ...mine])];
  }

  async *readChunks(path: string, options?: ReadChunksOptions): AsyncIterable<Uint8Array> {
    const mine = this.#files.get(this.#abs(path));
    if (mine !== undefined) {
      yield mine;
      return;
    }
    yield* this.#real.readChunks(path, options);
  }

  readFile(path: string): Promise<Uint8Array> {
    const mine = this.#files.get(this.#abs(path));
    return mine !== undefined ? Promise.resolve(mine) : this.#real.readFile(path);
  }

  openRandomAccess(path: string): Promise<RandomAccessFile> {
    const mine = this.#files.get(this.#abs(path));
    return mine !== undefined
      ? Promise.resolve(bytesAsRandomAccess(mine))
      : this.#real.openRandomAccess(path);
  }

  async exists(path: string): Promise<boolean> {
    return this.#files.has(this.#abs(path)) || await this.#real.exists(path);
  }

  fileSize(path: string): Promise<number> {
    const mine = this.#files.get(this.#abs(path));
    return mine !== undefined ? Promise.resolve(mine.length) : this.#real.fileSize(path);
  }

  async createOutput(path: string, exclusive: boolean): Promise<StagedOutput | "exists"> {
    if (exclusive && await this.exists(path)) return "exists";
    const parts: Uint8Array[] = [];
    return {
      write: (bytes) => {
        parts.push(bytes.slice());
        return Promise.resolve();
      },
      commit: () => {
        const size = parts.reduce((n, p) => n + p.length, 0);
        const all = new Uint8Array(size);
        let at = 0;
        for (const p of parts) {
          all.set(p, at);
          at += p.length;
        }
        this.#store(path, all);
        return Promise.resolve();
      },
      abort: () => {
        parts.length = 0;
        return Promise.resolve();
      },
    };
  }

  writeFile(path: string, bytes: Uint8Array): Promise<void> {
    this.#store(path, bytes.slice());
    return Promise.resolve();
  }

  join(...parts: string[]): string {
    return this.#real.join(...parts);
  }
}
