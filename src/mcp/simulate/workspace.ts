/**
 * The private workspace of one `bxp_simulate` call: `<temp>/bxp-mcp-sim/run-<random>/` holding
 * `config.json`, `data/<input file name>`, `trace.bxtb` and `findings.json`. Every call gets a fresh folder,
 * created exclusively with a random name and mode 0700, so two calls (or two server processes, or two
 * users) can never read or overwrite each other's files. The shared parent `bxp-mcp-sim` is used only when
 * it is a real folder owned by this process's user and writable by nobody else.
 *
 * @module
 */

import { join } from "../../util/host_path.ts";
export { SIM_ROOT_NAME, SIM_ROOT_SHOWN, tempBase } from "../temp_folders.ts";
import { SIM_ROOT_SHOWN } from "../temp_folders.ts";

/** Longest sanitized workspace label, in bytes. */
export const MAX_WORKSPACE_ID_BYTES = 64;

/**
 * A file-system-safe label: the first 64 UTF-8 bytes of `id`, each byte outside `[A-Za-z0-9_-]` replaced by
 * `_`; an empty id becomes `_`. Used as the prefix of the random workspace name, so a run is easy to spot.
 *
 * @example
 * ```ts
 * import { sanitizeWorkspaceId } from "./workspace.ts";
 * import assert from "node:assert/strict";
 * assert.equal(sanitizeWorkspaceId("abc/DEF-9"), "abc_DEF-9");
 * assert.equal(sanitizeWorkspaceId("a b.c"), "a_b_c");
 * assert.equal(sanitizeWorkspaceId(""), "_");
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
 * Whether a `file_pattern_in` can name the staged input: a plain file-name suffix, with no path separator
 * and no `..` that could climb out of the workspace.
 */
export function isPlainFilePattern(pattern: string): boolean {
  return !/[/\\]/.test(pattern) && !pattern.includes("..");
}

/** Longest input file name accepted, in UTF-8 bytes (a common file-system limit). */
export const MAX_FILE_NAME_BYTES = 255;

/**
 * Why `name` cannot be the staged input's file name for `pattern`, or null when it can: a plain file name
 * (no separator, no `..`, no NUL or control character, not `.`), at most 255 bytes, ending with the
 * template's `file_pattern_in` (bxp-cli picks its inputs by that suffix).
 *
 * @example
 * ```ts
 * import { inputNameProblem } from "./workspace.ts";
 * import assert from "node:assert/strict";
 * assert.equal(inputNameProblem("statement_2024.csv", ".csv"), null);
 * assert.equal(
 *   inputNameProblem("../x.csv", ".csv"),
 *   "must be a plain file name (no path separators, '..' or control characters)",
 * );
 * ```
 */
export function inputNameProblem(name: string, pattern: string): string | null {
  if (
    name === "" || name === "." || /[/\\:\p{Cc}]/u.test(name) || name.includes("..") ||
    new TextEncoder().encode(name).length > MAX_FILE_NAME_BYTES
  ) {
    return "must be a plain file name (no path separators, '..' or control characters)";
  }
  if (!name.endsWith(pattern)) {
    return `must end with the template's file_pattern_in "${pattern}"`;
  }
  return null;
}

/** The paths of one workspace. */
export interface WorkspacePaths {
  /** `<temp>/bxp-mcp-sim`. */
  simRoot: string;
  /** `<temp>/bxp-mcp-sim/<label>-<random>`. */
  workspace: string;
  /** The workspace folder's own name (the run id). */
  id: string;
  /** `<workspace>/data`, bxp-cli's `--data`. */
  dataDir: string;
  /** `<workspace>/config.json`. */
  configPath: string;
  /** `<workspace>/trace.bxtb`. */
  tracePath: string;
  /** `<workspace>/findings.json` (bxp-cli's `--findings-file`). */
  findingsPath: string;
  /** The staged input's file name inside `dataDir`. */
  inputName: string;
  /** `<dataDir>/<inputName>`. */
  inputPath: string;
}

/** Why staging failed: what went wrong and the (workspace-relative or symbolic) path concerned. */
export class StagingError extends Error {
  /** The path the failure concerns, never an absolute server path. */
  readonly detail: string;
  /** Create a failure naming `detail`. */
  constructor(message: string, detail: string) {
    super(message);
    this.name = "StagingError";
    this.detail = detail;
  }
}

/** This process's user id, when the runtime lets us ask; null otherwise (then the probe decides). */
function ownUid(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null;
  }
}

/**
 * Make sure `<base>/bxp-mcp-sim` is a folder this server may trust, creating it (mode 0700) when missing.
 * Refused ({@link StagingError}): a symlink or non-folder in its place, a folder writable by group or others
 * (someone else could plant or swap files in it), or one owned by another user (when the uid is known here;
 * otherwise {@link createWorkspace} compares it with the owner of the folder it creates). Returns its
 * owner's uid (null where the platform has none).
 */
export async function checkScratchRoot(simRoot: string): Promise<number | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(simRoot);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new StagingError("cannot inspect the scratch folder", SIM_ROOT_SHOWN);
    }
    try {
      await Deno.mkdir(simRoot, { mode: 0o700 });
    } catch (mkdirError) {
      if (!(mkdirError instanceof Deno.errors.AlreadyExists)) {
        throw new StagingError("cannot create the scratch folder", SIM_ROOT_SHOWN);
      }
    }
    info = await Deno.lstat(simRoot);
  }
  if (info.isSymlink) {
    throw new StagingError("the scratch folder is a symlink; refusing to use it", SIM_ROOT_SHOWN);
  }
  if (!info.isDirectory) {
    throw new StagingError("the scratch folder is not a folder; refusing to use it", SIM_ROOT_SHOWN);
  }
  if (info.mode !== null && (info.mode & 0o022) !== 0) {
    const mode = (info.mode & 0o777).toString(8);
    throw new StagingError(
      `the scratch folder is writable by group or others (mode ${mode}); refusing to use it ` +
        "(remove it, or chmod 700 it if it is yours)",
      SIM_ROOT_SHOWN,
    );
  }
  const uid = ownUid();
  if (uid !== null && info.uid !== null && info.uid !== uid) {
    throw new StagingError(
      `the scratch folder belongs to another user (uid ${info.uid}); refusing to use it`,
      SIM_ROOT_SHOWN,
    );
  }
  return info.uid;
}

/**
 * Create a fresh workspace for one call under `simRoot` (already checked by {@link checkScratchRoot},
 * whose owner is `rootUid`): an exclusively created, randomly named folder of mode 0700 holding `data/`.
 * The new folder's owner is this process's user, so a parent owned by anyone else is refused here too
 * (and the new folder removed).
 */
export async function createWorkspace(
  simRoot: string,
  rootUid: number | null,
  label: string,
  inputName: string,
): Promise<WorkspacePaths> {
  let workspace: string;
  try {
    workspace = await Deno.makeTempDir({ dir: simRoot, prefix: `${sanitizeWorkspaceId(label)}-` });
  } catch {
    throw new StagingError("cannot create a workspace in the scratch folder", SIM_ROOT_SHOWN);
  }
  const id = workspace.slice(simRoot.length + 1);
  const info = await Deno.lstat(workspace);
  if (!info.isDirectory || (rootUid !== null && info.uid !== null && info.uid !== rootUid)) {
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
    throw new StagingError(
      `the scratch folder belongs to another user (uid ${rootUid}); refusing to use it`,
      SIM_ROOT_SHOWN,
    );
  }
  const dataDir = join(workspace, "data");
  try {
    await Deno.mkdir(dataDir, { mode: 0o700 });
  } catch {
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
    throw new StagingError("cannot create the workspace's data folder", "data");
  }
  return {
    simRoot,
    workspace,
    id,
    dataDir,
    configPath: join(workspace, "config.json"),
    tracePath: join(workspace, "trace.bxtb"),
    findingsPath: join(workspace, "findings.json"),
    inputName,
    inputPath: join(dataDir, inputName),
  };
}

/**
 * Write the config and the input verbatim into a fresh workspace. Files are created exclusively, so
 * nothing can have been linked in their place.
 */
export async function stageFiles(paths: WorkspacePaths, config: string, input: Uint8Array): Promise<void> {
  try {
    await Deno.writeTextFile(paths.configPath, config, { createNew: true, mode: 0o600 });
  } catch {
    throw new StagingError("cannot write the staged config", "config.json");
  }
  try {
    await Deno.writeFile(paths.inputPath, input, { createNew: true, mode: 0o600 });
  } catch {
    throw new StagingError("cannot write the staged input", `data/${paths.inputName}`);
  }
}
