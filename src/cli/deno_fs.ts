/**
 * The engine's file system on Deno: relative paths resolve against a base folder (the config's folder), and
 * every output is staged in a temporary file beside its target, then renamed into place, so an output is
 * written whole or not at all.
 *
 * @example
 * ```ts ignore
 * const fs = new DenoEngineFs("/work/project");
 * const out = await fs.createOutput("data/out.csvx", false);
 * ```
 * @module
 */

import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { EngineFs, StagedOutput } from "../engine/host.ts";

const READ_CHUNK = 256 * 1024;

function tempNameFor(target: string): string {
  const nonce = crypto.getRandomValues(new Uint32Array(2)).join("");
  return join(dirname(target), `.${basename(target)}.${nonce}.bxp-tmp`);
}

class DenoStagedOutput implements StagedOutput {
  readonly #file: Deno.FsFile;
  readonly #temp: string;
  readonly #target: string;
  readonly #exclusive: boolean;
  #open = true;

  constructor(file: Deno.FsFile, temp: string, target: string, exclusive: boolean) {
    this.#file = file;
    this.#temp = temp;
    this.#target = target;
    this.#exclusive = exclusive;
  }

  async write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) at += await this.#file.write(bytes.subarray(at));
  }

  async commit(): Promise<void> {
    this.#close();
    if (this.#exclusive) {
      // A hard link fails when the name exists, so a concurrent writer is never clobbered (--fresh).
      try {
        await Deno.link(this.#temp, this.#target);
      } finally {
        await Deno.remove(this.#temp).catch(() => {});
      }
    } else {
      await Deno.rename(this.#temp, this.#target);
    }
  }

  async abort(): Promise<void> {
    this.#close();
    await Deno.remove(this.#temp).catch(() => {});
  }

  #close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#file.close();
  }
}

/** {@link EngineFs} over the real file system. */
export class DenoEngineFs implements EngineFs {
  readonly #base: string;

  /** `base`: the folder relative paths are resolved against. */
  constructor(base: string) {
    this.#base = base;
  }

  #abs(path: string): string {
    return isAbsolute(path) ? path : resolve(this.#base, path);
  }

  async listFiles(dir: string): Promise<string[] | null> {
    const names: string[] = [];
    try {
      for await (const e of Deno.readDir(this.#abs(dir))) {
        if (e.isFile || e.isSymlink) names.push(e.name);
      }
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return null;
      throw err;
    }
    return names;
  }

  async *readChunks(path: string): AsyncIterable<Uint8Array> {
    using file = await Deno.open(this.#abs(path), { read: true });
    for (;;) {
      const buf = new Uint8Array(READ_CHUNK);
      const n = await file.read(buf);
      if (n === null) return;
      yield n === buf.length ? buf : buf.subarray(0, n);
    }
  }

  readFile(path: string): Promise<Uint8Array> {
    return Deno.readFile(this.#abs(path));
  }

  async exists(path: string): Promise<boolean> {
    try {
      await Deno.lstat(this.#abs(path));
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
  }

  async fileSize(path: string): Promise<number> {
    return (await Deno.stat(this.#abs(path))).size;
  }

  async createOutput(path: string, exclusive: boolean): Promise<StagedOutput | "exists"> {
    const target = this.#abs(path);
    if (exclusive && await this.exists(target)) return "exists";
    const temp = tempNameFor(target);
    const file = await Deno.open(temp, { write: true, createNew: true });
    return new DenoStagedOutput(file, temp, target, exclusive);
  }

  async writeFile(path: string, bytes: Uint8Array): Promise<void> {
    const out = await this.createOutput(path, false);
    if (out === "exists") return;
    try {
      await out.write(bytes);
      await out.commit();
    } catch (err) {
      await out.abort();
      throw err;
    }
  }

  /** Joins like bxp does (no normalisation): `join(".", "a.csv")` is `./a.csv`, as its messages show. */
  join(...parts: string[]): string {
    return parts.reduce(
      (acc, p) => (acc === "" ? p : acc.endsWith("/") || acc.endsWith(sep) ? acc + p : acc + sep + p),
      "",
    );
  }
}
