/**
 * The generated bearer token's folder under the temp folder, owned by bxp-mcp's main thread: its names,
 * its removal at exit ({@link removeTokenFolder}) and the sweep of the ones a killed bxp-mcp left behind
 * ({@link sweepStaleTokenFolders}). Apart from `temp_folders.ts` so the session worker, which needs only
 * the scratch names, does not load this.
 *
 * @module
 */

import { join } from "../util/host_path.ts";
import { pidRunning } from "../host/pid_probe.ts";

/**
 * The generated token's folder is `<temp>/bxp-mcp-token-<pid>-<random>` (mode 0700), holding exactly the
 * files {@link TOKEN_FOLDER_FILES} (each 0600): `token`, and `pid` (the owner's pid, locked while it runs).
 */
export const TOKEN_FOLDER_PREFIX = "bxp-mcp-token-";

/** The generated token's file in its folder. */
export const TOKEN_FILE_NAME = "token";

/** The owner's pid file in the token's folder. */
export const TOKEN_PID_FILE_NAME = "pid";

/** Every file bxp-mcp writes into a token folder; a folder holding anything else is never removed. */
export const TOKEN_FOLDER_FILES: readonly string[] = [TOKEN_FILE_NAME, TOKEN_PID_FILE_NAME];

/** A token folder's name: the owner's pid, then the random part. */
const TOKEN_FOLDER_NAME = /^bxp-mcp-token-([1-9][0-9]{0,9})-[A-Za-z0-9_]+$/;

/**
 * Remove the token folder `dir`: exactly its files `token` and `pid` (either may be missing), then the
 * folder itself, never recursively (a folder holding anything else stays). Resolves with whether the
 * folder is gone; never throws.
 */
export async function removeTokenFolder(dir: string): Promise<boolean> {
  for (const name of TOKEN_FOLDER_FILES) {
    try {
      await Deno.remove(join(dir, name));
    } catch {
      // missing already (or not removable: the folder removal below then fails too)
    }
  }
  try {
    await Deno.remove(dir);
    return true;
  } catch (error) {
    return error instanceof Deno.errors.NotFound;
  }
}

/**
 * Remove the token folders under `base` that a bxp-mcp killed before its exit left behind, and only those:
 * an entry is removed only when its name is `bxp-mcp-token-<pid>-<random>`, it is a real folder (not a
 * symlink; nothing is followed), mode 0700, owned by `uid` (where the platform reports owners), holding
 * only regular files among `token` and `pid`, `pid` naming the pid of its name, that pid not running
 * ({@link pidRunning} answers false; when it cannot tell, nothing is removed), and the pid file not locked
 * by a live owner. Needs run access (call before the main thread drops it).
 * `keep` (this process's own folder) is never touched. Resolves with the names removed; never throws.
 */
export async function sweepStaleTokenFolders(
  base: string,
  uid: number | null,
  keep: string | null = null,
): Promise<string[]> {
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(base));
  } catch {
    return removed;
  }
  for (const entry of entries) {
    const match = TOKEN_FOLDER_NAME.exec(entry.name);
    if (match === null) continue;
    const dir = join(base, entry.name);
    if (keep !== null && dir === keep) continue;
    const pid = Number(match[1]);
    try {
      if (await isStaleTokenFolder(dir, pid, uid) && await removeTokenFolder(dir)) removed.push(entry.name);
    } catch {
      // changed while looked at: left alone
    }
  }
  return removed;
}

/** Whether `dir` is a token folder of the dead bxp-mcp `pid`, by the rules of {@link sweepStaleTokenFolders}. */
async function isStaleTokenFolder(dir: string, pid: number, uid: number | null): Promise<boolean> {
  const ours = (info: Deno.FileInfo) => uid === null || info.uid === null || info.uid === uid;
  const folder = await Deno.lstat(dir);
  if (!folder.isDirectory || folder.isSymlink || !ours(folder)) return false;
  if (Deno.build.os !== "windows" && (folder.mode === null || (folder.mode & 0o777) !== 0o700)) return false;
  if (pidRunning(pid) !== false) return false;
  let hasPid = false;
  for await (const item of Deno.readDir(dir)) {
    if (!TOKEN_FOLDER_FILES.includes(item.name) || !item.isFile || item.isSymlink) return false;
    const info = await Deno.lstat(join(dir, item.name));
    if (!info.isFile || info.isSymlink || !ours(info)) return false;
    if (item.name === TOKEN_PID_FILE_NAME) hasPid = true;
  }
  if (!hasPid) return false;
  const pidPath = join(dir, TOKEN_PID_FILE_NAME);
  const file = await Deno.open(pidPath, { read: true, write: true });
  try {
    const info = await file.stat();
    if (!info.isFile || info.size > 32) return false;
    const bytes = new Uint8Array(info.size);
    let at = 0;
    while (at < bytes.length) {
      const got = await file.read(bytes.subarray(at));
      if (got === null) break;
      at += got;
    }
    if (new TextDecoder().decode(bytes.subarray(0, at)).trim() !== String(pid)) return false;
    // A live owner holds the lock (on a file system without locks this throws: left alone).
    if (!await file.tryLock(true)) return false;
    return pidRunning(pid) === false;
  } finally {
    file.close();
  }
}
