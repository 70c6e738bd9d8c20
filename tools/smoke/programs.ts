/**
 * How the smoke test starts the two programs: the binaries of a folder (`--bin-dir`), or the `deno run`
 * entry points of this checkout with the permission flags of their deno.json tasks (`--from-source`), read
 * through `src/distribution/mod.ts`, the one place that knows them.
 *
 * @module
 */

import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { binaryName, ENTRY_MODULES, type EntryPoint, runArgs } from "../../src/distribution/mod.ts";

/** A program to start: an absolute executable and the arguments before the program's own. */
export interface Program {
  command: string;
  prefixArgs: string[];
}

/** Both programs, and what they are (for the report). */
export interface ProgramSet {
  label: string;
  /** The folder of the binaries; null when running from source. */
  binDir: string | null;
  programs: Record<EntryPoint, Program>;
}

/**
 * The binaries `bxp-cli` and `bxp-mcp` (`.exe` on Windows) of `dir`; throws naming the missing file.
 *
 * Only the files' presence is checked, so the example stands two empty files in for the binaries.
 *
 * @example
 * ```ts
 * import { fromBinDir } from "./programs.ts";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   await Deno.writeTextFile(join(dir, "bxp-cli.exe"), "");
 *   await Deno.writeTextFile(join(dir, "bxp-mcp.exe"), "");
 *   const set = await fromBinDir(dir, "windows");
 *   assert.deepEqual(set.programs["bxp-mcp"], { command: join(dir, "bxp-mcp.exe"), prefixArgs: [] });
 *   assert.equal(set.binDir, dir);
 *   await assert.rejects(fromBinDir(dir, "linux"), /no bxp-cli in /);
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export async function fromBinDir(dir: string, os: string): Promise<ProgramSet> {
  const abs = isAbsolute(dir) ? dir : resolve(dir);
  const programs = {} as Record<EntryPoint, Program>;
  for (const entry of Object.keys(ENTRY_MODULES) as EntryPoint[]) {
    const path = join(abs, binaryName(entry, os));
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch {
      throw new Error(`no ${binaryName(entry, os)} in ${abs}`);
    }
    if (!info.isFile) throw new Error(`${path} is not a file`);
    programs[entry] = { command: path, prefixArgs: [] };
  }
  return { label: `binaries in ${abs}`, binDir: abs, programs };
}

/**
 * The `deno run` entry points of the checkout at `repoRoot` (a `file:` URL ending in `/`), run by `deno`
 * (`denoPath`) with the flags of the `bxp-cli` / `bxp-mcp` tasks in its deno.json.
 */
export async function fromSource(repoRoot: URL, denoPath: string): Promise<ProgramSet> {
  const denoJson = await Deno.readTextFile(new URL("deno.json", repoRoot));
  const programs = {} as Record<EntryPoint, Program>;
  for (const entry of Object.keys(ENTRY_MODULES) as EntryPoint[]) {
    const module = fileURLToPath(new URL(ENTRY_MODULES[entry], repoRoot));
    programs[entry] = { command: denoPath, prefixArgs: runArgs(denoJson, entry, module) };
  }
  return { label: `deno run entry points of ${fileURLToPath(repoRoot)}`, binDir: null, programs };
}

/** What a finished program left. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a program to completion with `args`, stdin closed. */
export async function runProgram(
  program: Program,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const out = await new Deno.Command(program.command, {
    args: [...program.prefixArgs, ...args],
    cwd: opts.cwd,
    env: opts.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}
