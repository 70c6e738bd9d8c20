/**
 * The scratch workspace of `bxp_simulate`: `<temp>/bxp-mcp-sim/<id>/` holding `config.json`,
 * `data/input<file_pattern_in>` and `trace.bxtb`. One stable folder per id, wiped at the start of each run
 * and left afterwards so the agent or the user can look at the files.
 *
 * @module
 */

import { join } from "node:path";

/** Folder under the system temp folder that holds every workspace. */
export const SIM_ROOT_NAME = "bxp-mcp-sim";

/** Longest sanitized workspace id, in bytes. */
export const MAX_WORKSPACE_ID_BYTES = 64;

/**
 * A file-system-safe workspace id: the first 64 UTF-8 bytes of `id`, each byte outside
 * `[A-Za-z0-9_-]` replaced by `_`; an empty id becomes `_`.
 *
 * @example
 * ```ts
 * sanitizeWorkspaceId("abc/DEF-9"); // "abc_DEF-9"
 * sanitizeWorkspaceId("a b.c"); // "a_b_c"
 * sanitizeWorkspaceId(""); // "_"
 * ```
 */
export function sanitizeWorkspaceId(id: string): string {
  const bytes = new TextEncoder().encode(id).subarray(0, MAX_WORKSPACE_ID_BYTES);
  if (bytes.length === 0) return "_";
  let out = "";
  for (const b of bytes) {
    const safe = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) ||
      b === 0x5f || b === 0x2d;
    out += safe ? String.fromCharCode(b) : "_";
  }
  return out;
}

/**
 * The system temp folder: the first non-empty of TMPDIR, TMP and TEMP, else `/tmp`.
 *
 * @example
 * ```ts
 * tempBase((name) => name === "TMP" ? "/var/tmp" : undefined); // "/var/tmp"
 * ```
 */
export function tempBase(readEnv: (name: string) => string | undefined): string {
  for (const name of ["TMPDIR", "TMP", "TEMP"]) {
    const value = readEnv(name);
    if (value !== undefined && value !== "") return value;
  }
  return "/tmp";
}

/**
 * Whether a `file_pattern_in` can name the staged input: a plain file-name suffix, with no path separator
 * and no `..` that could climb out of the workspace.
 */
export function isPlainFilePattern(pattern: string): boolean {
  return !/[/\\]/.test(pattern) && !pattern.includes("..");
}

/** The paths of one workspace. */
export interface WorkspacePaths {
  /** `<temp>/bxp-mcp-sim`. */
  simRoot: string;
  /** `<temp>/bxp-mcp-sim/<id>`. */
  workspace: string;
  /** `<workspace>/data`, bxp-cli's `--data`. */
  dataDir: string;
  /** `<workspace>/config.json`. */
  configPath: string;
  /** `<workspace>/trace.bxtb`. */
  tracePath: string;
  /** The staged input's file name inside `dataDir`. */
  inputName: string;
  /** `<dataDir>/<inputName>`. */
  inputPath: string;
}

/**
 * Lay out the workspace of `rawId` (the `workspace` argument or the template id) under `base`.
 *
 * @example
 * ```ts
 * workspacePaths("/tmp", "my run", ".csv").inputPath; // "/tmp/bxp-mcp-sim/my_run/data/input.csv"
 * ```
 */
export function workspacePaths(base: string, rawId: string, filePatternIn: string): WorkspacePaths {
  const simRoot = join(base, SIM_ROOT_NAME);
  const workspace = join(simRoot, sanitizeWorkspaceId(rawId));
  const dataDir = join(workspace, "data");
  const inputName = `input${filePatternIn}`;
  return {
    simRoot,
    workspace,
    dataDir,
    configPath: join(workspace, "config.json"),
    tracePath: join(workspace, "trace.bxtb"),
    inputName,
    inputPath: join(dataDir, inputName),
  };
}

/** Why staging failed: bxp's error text and the path concerned. */
export class StagingError extends Error {
  /** The path the failure concerns. */
  readonly detail: string;
  /** Create a failure naming `detail`. */
  constructor(message: string, detail: string) {
    super(message);
    this.name = "StagingError";
    this.detail = detail;
  }
}

/** Whether `path` exists as a symbolic link (a missing path is not one). */
async function isSymlink(path: string): Promise<boolean> {
  try {
    return (await Deno.lstat(path)).isSymlink;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Wipe and recreate the workspace, then write the config and the input verbatim. Fails closed (throws
 * {@link StagingError}) when `bxp-mcp-sim` or the workspace folder is a symlink: following one would let
 * whoever planted it redirect the wipe and the writes outside the temp folder. New files are created
 * exclusively, so a link raced in after the wipe is refused rather than written through.
 */
export async function stageWorkspace(
  paths: WorkspacePaths,
  config: string,
  input: Uint8Array,
): Promise<void> {
  for (const path of [paths.simRoot, paths.workspace]) {
    if (await isSymlink(path)) {
      throw new StagingError("scratch workspace path is a symlink; refusing to use it", path);
    }
  }
  try {
    await Deno.mkdir(paths.simRoot, { recursive: true, mode: 0o700 });
  } catch {
    throw new StagingError("cannot create scratch workspace", paths.simRoot);
  }
  try {
    await Deno.remove(paths.workspace, { recursive: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new StagingError("cannot clear scratch workspace", paths.workspace);
    }
  }
  try {
    await Deno.mkdir(paths.workspace, { mode: 0o700 });
    await Deno.mkdir(paths.dataDir, { mode: 0o700 });
  } catch {
    throw new StagingError("cannot create scratch workspace", paths.workspace);
  }
  try {
    await Deno.writeTextFile(paths.configPath, config, { createNew: true });
  } catch {
    throw new StagingError("cannot write scratch config", paths.configPath);
  }
  try {
    await Deno.writeFile(paths.inputPath, input, { createNew: true });
  } catch {
    throw new StagingError("cannot write scratch input", paths.inputPath);
  }
}
