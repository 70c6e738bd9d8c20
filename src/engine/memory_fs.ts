/**
 * The engine's file system held in memory: the playground's inputs and the outputs a run writes, and the
 * drafter's sample when it runs a draft on it (`src/draft/self_check.ts`). Paths are
 * POSIX-like; relative paths resolve against a base folder (the virtual config folder), and `join` works
 * like bxp-cli's (no normalisation) so messages read the same.
 *
 * @example
 * ```ts
 * import { MemoryFs } from "./memory_fs.ts";
 * import assert from "node:assert/strict";
 * const fs = new MemoryFs("/project");
 * fs.put("data/a.csv", new TextEncoder().encode("x\n1\n"));
 * assert.deepEqual(await fs.listFiles("data"), ["a.csv"]);
 * ```
 * @module
 */

import type { EngineFs, RandomAccessFile, StagedOutput } from "./host.ts";
import { concatBytes } from "../util/bytes.ts";

const CHUNK = 64 * 1024;

/** Normalises an absolute POSIX path: removes `.`, `..` and repeated slashes. */
export function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return "/" + out.join("/");
}

function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** An in-memory {@link EngineFs}. */
export class MemoryFs implements EngineFs {
  readonly base: string;
  readonly #files = new Map<string, Uint8Array>();
  readonly #dirs = new Set<string>(["/"]);

  constructor(base: string) {
    this.base = normalize(base);
    this.#mkdirs(this.base);
  }

  /** The absolute, normalised form of a path. */
  abs(path: string): string {
    return normalize(path.startsWith("/") ? path : `${this.base}/${path}`);
  }

  #mkdirs(dir: string): void {
    for (let d = dir; !this.#dirs.has(d); d = parentOf(d)) this.#dirs.add(d);
  }

  /** Stores a file (creating its folders). */
  put(path: string, bytes: Uint8Array): void {
    const p = this.abs(path);
    this.#mkdirs(parentOf(p));
    this.#files.set(p, bytes);
  }

  /** Creates a folder (and its parents). */
  mkdir(path: string): void {
    this.#mkdirs(this.abs(path));
  }

  /** A file's bytes, or undefined. */
  get(path: string): Uint8Array | undefined {
    return this.#files.get(this.abs(path));
  }

  /** Every file as [absolute path, bytes]. */
  entries(): [string, Uint8Array][] {
    return [...this.#files.entries()];
  }

  listFiles(dir: string): Promise<string[] | null> {
    const d = this.abs(dir);
    if (!this.#dirs.has(d)) return Promise.resolve(null);
    const names: string[] = [];
    for (const p of this.#files.keys()) {
      if (parentOf(p) === d) names.push(p.slice(d === "/" ? 1 : d.length + 1));
    }
    return Promise.resolve(names);
  }

  async *readChunks(path: string): AsyncIterable<Uint8Array> {
    const bytes = this.#need(path);
    // Stored bytes are never mutated, so handing out views is safe even without reuseBuffers.
    for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, Math.min(bytes.length, i + CHUNK));
  }

  // deno-lint-ignore require-await
  async readFile(path: string): Promise<Uint8Array> {
    return this.#need(path);
  }

  // deno-lint-ignore require-await
  async openRandomAccess(path: string): Promise<RandomAccessFile> {
    const bytes = this.#need(path);
    return {
      size: bytes.length,
      // A copy: the caller owns what it reads (it may transfer it to a worker).
      read: (offset, length) => Promise.resolve(bytes.slice(offset, Math.min(bytes.length, offset + length))),
      close: () => Promise.resolve(),
    };
  }

  exists(path: string): Promise<boolean> {
    const p = this.abs(path);
    return Promise.resolve(this.#files.has(p) || this.#dirs.has(p));
  }

  // deno-lint-ignore require-await
  async fileSize(path: string): Promise<number> {
    return this.#need(path).length;
  }

  createOutput(path: string, exclusive: boolean): Promise<StagedOutput | "exists"> {
    const target = this.abs(path);
    if (exclusive && this.#files.has(target)) return Promise.resolve("exists");
    if (!this.#dirs.has(parentOf(target))) {
      return Promise.reject(new Error(`No such file or directory: '${path}'`));
    }
    const parts: Uint8Array[] = [];
    let done = false;
    const files = this.#files;
    return Promise.resolve({
      write(bytes: Uint8Array) {
        if (done) return Promise.reject(new Error("output already closed"));
        parts.push(bytes.slice());
        return Promise.resolve();
      },
      commit() {
        if (done) return Promise.resolve();
        done = true;
        files.set(target, concatBytes(parts));
        return Promise.resolve();
      },
      abort() {
        done = true;
        return Promise.resolve();
      },
    });
  }

  async writeFile(path: string, bytes: Uint8Array): Promise<void> {
    const out = await this.createOutput(path, false);
    if (out === "exists") return;
    await out.write(bytes);
    await out.commit();
  }

  /** Joins like bxp-cli (no normalisation): `join(".", "a.csv")` is `./a.csv`. */
  join(...parts: string[]): string {
    return parts.reduce((acc, p) => (acc === "" ? p : acc.endsWith("/") ? acc + p : acc + "/" + p), "");
  }

  #need(path: string): Uint8Array {
    const bytes = this.#files.get(this.abs(path));
    if (bytes === undefined) throw new Error(`No such file or directory: '${path}'`);
    return bytes;
  }
}
