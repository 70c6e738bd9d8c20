/**
 * A bounded, link-refusing walk of the project root for `bxp_list_files`: entries are `lstat`ed and never
 * followed (links are reported as skipped, never descended into), version-control and dependency folders
 * are skipped, and the walk stops after a number of entries visited, a depth, and a number of files
 * found. The bounds bound the work, not only the answer: a folder is read by streaming and reading stops
 * at the visit budget, and only folders and the files that can still be listed are `lstat`ed. Each folder
 * is listed between two checks that every folder on its way (the root included) is still the same folder
 * and not a link; a folder that changed in between is reported as skipped, and nothing found in it is
 * kept.
 *
 * Here a temporary folder is the project root; the `.git` folder in it is skipped:
 *
 * @example
 * ```ts
 * import { ProjectRoot } from "./paths.ts";
 * import { walkTree } from "./tree_walk.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * try {
 *   await Deno.mkdir(`${dir}/in/.git`, { recursive: true });
 *   for (const name of ["in/a.csv", "in/notes.txt", "in/.git/b.csv", "c.csv"]) {
 *     await Deno.writeTextFile(`${dir}/${name}`, "x\n");
 *   }
 *   const root = await ProjectRoot.open(dir);
 *   const { files, truncated } = await walkTree(root, { accept: (p) => p.endsWith(".csv"), limit: 200 });
 *   assert.deepEqual(files.map((f) => [f.path, f.size]), [["c.csv", 2], ["in/a.csv", 2]]);
 *   assert.equal(truncated, null);
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 * @module
 */

import { join } from "../../util/host_path.ts";
import { foldersUnchangedSync, type Identity, type ProjectRoot, protectedFolderIn } from "./paths.ts";

/** A file found by the walk. */
export interface TreeFile {
  /** Relative to the root, `/`-separated. */
  path: string;
  /** Size in bytes. */
  size: number;
  /** Last modification, ISO 8601 (UTC), or null where the platform does not report it. */
  modified: string | null;
}

/** Why an entry was not listed or entered. */
export type SkipReason =
  | "symlink"
  | "protected-folder"
  | "not-regular"
  | "too-deep"
  | "changed"
  | "unreadable";

/** An entry the walk did not list or enter. */
export interface TreeSkip {
  path: string;
  reason: SkipReason;
}

/** Limits and the filter of {@link walkTree}. */
export interface TreeWalkOptions {
  /** Whether a regular file at relative `path` is listed. */
  accept(path: string): boolean;
  /** Most files listed. */
  limit: number;
  /** Most entries looked at (files, folders, links), over the whole walk. Default 20 000. */
  maxVisited?: number;
  /** Deepest folder entered (the root's own entries are depth 1). Default 16. */
  maxDepth?: number;
  /** Most skipped entries reported (all are counted). Default 100. */
  maxSkipped?: number;
}

/** What {@link walkTree} found. */
export interface TreeWalkResult {
  /** Files in path order, at most `limit`. */
  files: TreeFile[];
  /** Why the listing is incomplete: more files than `limit`, or the visit budget ran out; null if complete. */
  truncated: "limit" | "max-visited" | null;
  /** Skipped entries (at most `maxSkipped`). */
  skipped: TreeSkip[];
  /** All skipped entries, counted. */
  skippedCount: number;
  /** Entries looked at. */
  visited: number;
}

/** Default most entries visited. */
export const MAX_VISITED = 20_000;
/** Default deepest folder entered. */
export const MAX_DEPTH = 16;

/** Names of bxp-mcp's own temporary files and folders (never listed). */
const OWN_TEMPORARY = /\.bxp-tmp(dir)?$/;

interface Folder {
  path: string;
  rel: string;
  depth: number;
  chain: { path: string; id: Identity }[];
}

/** Walk the root; see the module documentation. Throws PathGuardError when the root itself changed. */
export async function walkTree(root: ProjectRoot, options: TreeWalkOptions): Promise<TreeWalkResult> {
  const maxVisited = options.maxVisited ?? MAX_VISITED;
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  const maxSkipped = options.maxSkipped ?? 100;
  const files: TreeFile[] = [];
  const skipped: TreeSkip[] = [];
  let skippedCount = 0;
  let visited = 0;
  let truncated: TreeWalkResult["truncated"] = null;
  const skip = (path: string, reason: SkipReason) => {
    skippedCount++;
    if (skipped.length < maxSkipped) skipped.push({ path, reason });
  };
  const start = root.checkedRoot();
  const stack: Folder[] = [{ path: start.path, rel: "", depth: 0, chain: [start] }];
  while (stack.length > 0 && truncated === null) {
    const folder = stack.pop() as Folder;
    // Read at most what the visit budget still allows (one more tells that the folder holds more), so a
    // folder of 300 000 files costs what 20 000 do.
    const budget = maxVisited - visited;
    const found = await listFolder(folder, budget + 1);
    if (found === null) {
      if (folder.rel !== "") skip(folder.rel, "changed");
      continue;
    }
    const children: Folder[] = [];
    const kept: TreeFile[] = [];
    // Files past this many in one folder are cut by `limit` anyway: they are not lstat'ed.
    const room = options.limit - files.length;
    let accepted = 0;
    for (const entry of found.entries) {
      if (++visited > maxVisited) {
        visited = maxVisited;
        truncated = "max-visited";
        break;
      }
      const rel = folder.rel === "" ? entry.name : `${folder.rel}/${entry.name}`;
      const type = entry.type;
      if (type.isSymlink) skip(rel, "symlink");
      else if (type.isFile && (OWN_TEMPORARY.test(entry.name) || !options.accept(rel))) continue;
      else if (type.isFile && accepted > room) continue; // past the limit: counted, never stat'ed
      else {
        // Folders (their identity guards the walk), files to list, and entries of unknown type.
        let info: Deno.FileInfo | null;
        try {
          info = Deno.lstatSync(join(folder.path, entry.name));
        } catch {
          info = null;
        }
        if (info === null) skip(rel, "unreadable");
        else if (info.isSymlink) skip(rel, "symlink");
        else if (info.isDirectory) {
          if (protectedFolderIn([entry.name]) !== null) skip(rel, "protected-folder");
          else if (folder.depth + 1 >= maxDepth) skip(rel, "too-deep");
          else {
            const path = join(folder.path, entry.name);
            children.push({
              path,
              rel,
              depth: folder.depth + 1,
              chain: [...folder.chain, { path, id: { dev: info.dev, ino: info.ino } }],
            });
          }
        } else if (!info.isFile) skip(rel, "not-regular");
        else if (!OWN_TEMPORARY.test(entry.name) && options.accept(rel)) {
          accepted++;
          kept.push({ path: rel, size: info.size, modified: info.mtime?.toISOString() ?? null });
        }
      }
    }
    if (!foldersUnchangedSync(folder.chain)) {
      if (folder.rel !== "") skip(folder.rel, "changed");
      continue;
    }
    for (const file of kept) {
      if (files.length >= options.limit) {
        truncated ??= "limit";
        break;
      }
      files.push(file);
    }
    if (accepted > room) truncated ??= "limit";
    // Depth first, in name order: push children reversed so the first name is walked first.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    // Let other calls of the session run between folders.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, truncated, skipped, skippedCount, visited };
}

/** A directory entry as the listing reports it (the type from the folder itself, no lstat). */
interface ListedEntry {
  name: string;
  type: { isFile: boolean; isDirectory: boolean; isSymlink: boolean };
}

/**
 * At most `max` entries of one folder, in name order, read by streaming (Deno's async directory reader
 * yields entries in batches, so reading stops once `max` are in, whatever the folder's size; the
 * synchronous reader reads a whole folder first) between two checks of the folder chain; null when the
 * chain changed or the folder cannot be read. A cut folder lists the first `max` entries the file
 * system yields, sorted.
 */
async function listFolder(folder: Folder, max: number): Promise<{ entries: ListedEntry[] } | null> {
  if (!foldersUnchangedSync(folder.chain)) return null;
  const entries: ListedEntry[] = [];
  try {
    for await (const e of Deno.readDir(folder.path)) {
      if (entries.length >= max) break;
      entries.push({
        name: e.name,
        type: { isFile: e.isFile, isDirectory: e.isDirectory, isSymlink: e.isSymlink },
      });
    }
  } catch {
    return null;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return foldersUnchangedSync(folder.chain) ? { entries } : null;
}
