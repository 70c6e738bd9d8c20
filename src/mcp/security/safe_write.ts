/**
 * Writing one file inside the project root without ever following a link. The content always goes to a
 * temporary file with a random name, created exclusively (O_EXCL refuses any existing entry, dangling
 * links included) in the target's folder and verified on its descriptor (a regular file with one link,
 * named by the checked link-free path, every folder on the way unchanged, checked before and after)
 * before a byte is written. A new target is then hard-linked into place (which fails if anything appeared
 * there); a replacement is renamed over it (rename replaces a link rather than following it) after the
 * target's identity, mode and link count are checked again. Folders missing on the way are created only
 * when asked, one at a time, each verified. Nothing is written inside version-control or dependency
 * folders, and a read-only target is not replaced.
 *
 * Races: where the OS offers it (Linux, macOS; `beneath.ts`), every step is relative to a directory
 * descriptor: the target's folder is opened beneath the root's descriptor following no link, missing
 * folders are made with `mkdirat` in it and opened with O_NOFOLLOW, the temporary file is created with
 * `openat(O_CREAT | O_EXCL | O_NOFOLLOW)` in it, and it is moved into place with `linkat` / `renameat`
 * within that same descriptor, so no step names a path another process could redirect.
 *
 * Elsewhere (Windows), every check next to a system call is synchronous, so no other call of this process
 * runs between them. A temporary file or folder that another process's folder swap sent outside the root
 * is detected by the check after its creation and removed again by its random name until its descriptor
 * reports no link left. The final link or rename only moves an entry within one folder, so a swapped
 * folder makes it fail (the source is not found there) rather than land outside. Residual risk there,
 * documented in the README: a swap that fools both the check before a call and the synchronous check
 * after it is not detected.
 *
 * Here a temporary folder is the project root:
 *
 * @example
 * ```ts
 * import { ProjectRoot } from "./paths.ts";
 * import { checkWriteTarget, CONFIG_WRITE_RULES, writeChecked } from "./safe_write.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * try {
 *   await Deno.mkdir(`${dir}/configs`);
 *   const root = await ProjectRoot.open(dir);
 *   const target = await checkWriteTarget(root, "configs/new.json5", CONFIG_WRITE_RULES);
 *   const options = { overwrite: false, rules: CONFIG_WRITE_RULES };
 *   assert.equal(await writeChecked(target, new TextEncoder().encode("{}"), options), "created");
 *   assert.equal(await Deno.readTextFile(`${dir}/configs/new.json5`), "{}");
 *   const script = checkWriteTarget(root, "configs/new.sh", CONFIG_WRITE_RULES);
 *   await assert.rejects(script, { name: "WriteRefusedError", reason: "extension" });
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 * @module
 */

import { loadNodeFs, nodeFs } from "./node_fs.ts";
import { basename, dirname, join } from "../../util/host_path.ts";
import { CONFIG_MAX_BYTES } from "../../config/json5.ts";
import { BeneathError } from "./beneath.ts";
import {
  beneathRefusal,
  displayPath,
  foldersUnchangedSync,
  type Identity,
  namesSync,
  PathGuardError,
  type PathRefusal,
  type ProjectRoot,
  protectedFolderIn,
  type RootHandle,
  sameIdentity,
  verifyOpenedSync,
  type WalkedPath,
} from "./paths.ts";

/** What a writable target must look like. */
export interface WriteRules {
  /** Accepted file-name endings, lower case with the dot (compared case-insensitively). */
  extensions: readonly string[];
  /** Largest accepted content, in bytes. */
  maxBytes: number;
  /** What is written, for messages ("Config"). */
  what: string;
}

/** The rules of `bxp_write_config`: `.json` / `.json5` only, at most bxp's 1 MiB config cap. */
export const CONFIG_WRITE_RULES: WriteRules = {
  extensions: [".json", ".json5"],
  maxBytes: CONFIG_MAX_BYTES,
  what: "Config",
};

/** Why a write was refused beyond the path guard itself. */
export type WriteRefusal =
  | PathRefusal
  | "extension"
  | "exists"
  | "missing-file"
  | "missing-folder"
  | "protected-folder"
  | "read-only"
  | "io";

/** A refused write; `reason` is a stable code. */
export class WriteRefusedError extends Error {
  /** The kind of refusal. */
  readonly reason: WriteRefusal;
  /** The path concerned, as displayed. */
  readonly path: string;
  /** Create a refusal. */
  constructor(reason: WriteRefusal, message: string, path: string) {
    super(message);
    this.name = "WriteRefusedError";
    this.reason = reason;
    this.path = path;
  }
}

/** A target that passed {@link checkWriteTarget}. */
export interface WriteTarget {
  walked: WalkedPath;
  /** Whether a file is there now. */
  exists: boolean;
  /** The existing file's identity, re-checked right before it is replaced. */
  existingId: Identity | null;
  /** The existing file's permission bits (kept by a replacement), null when new or not reported. */
  existingMode: number | null;
  /** The root's directory descriptor where writes resolve beneath it; null: path-based writes. */
  handle: RootHandle | null;
  /** The root, kept reachable until the write (its descriptor is closed once it is collected). */
  root: ProjectRoot;
}

const identityOf = (info: Deno.FileInfo): Identity => ({ dev: info.dev, ino: info.ino });

function refuse(reason: WriteRefusal, message: string, path: string): never {
  throw new WriteRefusedError(reason, message, path);
}

/**
 * The path half of a write, done before anything else (so a bad path is refused before the content is
 * even validated): the root guard, the extension, and the target itself: absent, or a regular file with
 * one link. A symbolic link as target is refused even when dangling.
 */
export async function checkWriteTarget(
  root: ProjectRoot,
  path: string,
  rules: WriteRules,
): Promise<WriteTarget> {
  let walked: WalkedPath;
  let handle: RootHandle | null;
  try {
    handle = root.beneathHandle();
    // A path-based write is synchronous from its first check to its last system call: load node:fs now.
    if (handle === null) await loadNodeFs();
    walked = await root.walk(path);
  } catch (error) {
    if (error instanceof PathGuardError) refuse(error.reason, error.message, error.path);
    throw error;
  }
  const shown = displayPath(walked.relative);
  const guarded = protectedFolderIn(walked.parts.slice(0, -1));
  if (guarded !== null) {
    refuse(
      "protected-folder",
      `Write target is inside a version-control or dependency folder ('${guarded}/'): ${shown}`,
      shown,
    );
  }
  const name = walked.parts[walked.parts.length - 1].toLowerCase();
  if (!rules.extensions.some((ext) => name.endsWith(ext) && name.length > ext.length)) {
    refuse(
      "extension",
      `Write target must be a ${rules.extensions.join(" or ")} file: ${shown}`,
      shown,
    );
  }
  const info = walked.target;
  if (info === null) return { walked, exists: false, existingId: null, existingMode: null, handle, root };
  if (!info.isFile) refuse("not-regular", `Write target is not a regular file: ${shown}`, shown);
  if (info.nlink !== null && info.nlink > 1) {
    refuse("hardlink", `Write target has other hard links; refusing to replace it: ${shown}`, shown);
  }
  if (isReadOnly(info)) {
    refuse(
      "read-only",
      `Write target is read-only (no owner write permission); not replacing it: ${shown}`,
      shown,
    );
  }
  return {
    walked,
    exists: true,
    existingId: identityOf(info),
    existingMode: info.mode === null ? null : info.mode & 0o777,
    handle,
    root,
  };
}

/**
 * The `overwrite` rules: refuse to replace unless asked, refuse to "overwrite" what does not exist.
 * Returns the refusal, or null when the write may go ahead.
 */
export function overwriteRefusal(target: WriteTarget, overwrite: boolean): WriteRefusedError | null {
  const shown = displayPath(target.walked.relative);
  if (target.exists && !overwrite) {
    return new WriteRefusedError(
      "exists",
      `${shown} already exists. Pass overwrite: true to replace it.`,
      shown,
    );
  }
  if (!target.exists && overwrite) {
    return new WriteRefusedError(
      "missing-file",
      `${shown} does not exist, so there is nothing to overwrite. Call again without overwrite.`,
      shown,
    );
  }
  return null;
}

/** Whether a file's mode lacks owner write (POSIX; never true where the mode is not reported). */
function isReadOnly(info: { mode: number | null }): boolean {
  return info.mode !== null && Deno.build.os !== "windows" && (info.mode & 0o200) === 0;
}

function tempName(target: string): string {
  return join(dirname(target), `.${namePrefix(basename(target))}.${nonce()}.bxp-tmp`);
}

/** The start of a name for a temporary beside it (short enough that the whole stays under 255 bytes). */
function namePrefix(name: string): string {
  return Array.from(name).slice(0, 40).join("");
}

/** Options of {@link writeChecked}. */
export interface WriteOptions {
  /** Replace an existing target (required to replace, refused for a missing one). */
  overwrite: boolean;
  /** The rules the target was checked with. */
  rules: WriteRules;
  /** Create missing folders on the way (default false: a missing folder is an error). */
  createDirs?: boolean;
}

/** Mode of folders created with `createDirs` (before the umask). */
export const CREATED_FOLDER_MODE = 0o755;

function createFlags(): number {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NONBLOCK, O_NOFOLLOW } = nodeFs().constants;
  return O_WRONLY | O_CREAT | O_EXCL | (O_NONBLOCK ?? 0) | (O_NOFOLLOW ?? 0);
}

/**
 * Write `bytes` to a target that passed {@link checkWriteTarget}, enforcing the size cap and the
 * `overwrite` rules again at write time. Missing folders are an error unless `createDirs` (then created
 * one by one, each verified). Returns whether the file was created or replaced. Throws
 * {@link WriteRefusedError} whose message names only root-relative paths; on any failure the target is
 * left as it was and no temporary file is left behind.
 */
export async function writeChecked(
  target: WriteTarget,
  bytes: Uint8Array,
  options: WriteOptions,
): Promise<"created" | "updated"> {
  // Already loaded by checkWriteTarget where needed; the write itself stays one synchronous step.
  if (target.handle === null) await loadNodeFs();
  return writeCheckedSync(target, bytes, options);
}

/** {@link writeChecked}, synchronously (every check next to the system call it guards). */
export function writeCheckedSync(
  target: WriteTarget,
  bytes: Uint8Array,
  options: WriteOptions,
): "created" | "updated" {
  // checkWriteTarget loaded it; before that this is a bug to report, not a refused write.
  if (target.handle === null) nodeFs();
  const { walked } = target;
  const shown = displayPath(walked.relative);
  if (bytes.length > options.rules.maxBytes) {
    refuse(
      "too-large",
      `${options.rules.what} text is ${bytes.length} bytes, over the ${options.rules.maxBytes}-byte limit.`,
      shown,
    );
  }
  const refusal = overwriteRefusal(target, options.overwrite);
  if (refusal !== null) throw refusal;
  const folders = [...walked.folders];
  if (walked.missingFrom < walked.parts.length - 1) {
    const missing = displayPath(walked.parts.slice(0, walked.missingFrom + 1).join("/"));
    if (options.createDirs !== true) {
      refuse(
        "missing-folder",
        `Folder ${missing} does not exist. Pass create_dirs: true to create missing folders.`,
        shown,
      );
    }
  }
  if (target.handle !== null) return writeBeneath(target, target.handle, bytes, shown);
  if (walked.missingFrom < walked.parts.length - 1) createFolders(walked, folders, shown);
  // From here on every step is synchronous: no other call of this process runs between a check and the
  // system call it guards.
  return target.exists
    ? replaceSync(target, bytes, folders, shown)
    : createSync(walked, bytes, folders, shown);
}

/**
 * Create the missing folders one at a time. Each is made under a random temporary name, opened and
 * verified on its descriptor, then renamed to its real name within the same parent (a rename whose
 * parent was swapped finds no source and fails, so it cannot land outside). A folder that a swap sent
 * elsewhere is removed again by its random name.
 */
function createFolders(walked: WalkedPath, folders: { path: string; id: Identity }[], shown: string): void {
  for (let i = walked.missingFrom; i < walked.parts.length - 1; i++) {
    const parent = folders[folders.length - 1].path;
    const folder = join(parent, walked.parts[i]);
    const here = displayPath(walked.parts.slice(0, i + 1).join("/"));
    const changed: () => never = () =>
      refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
    if (!foldersUnchangedSync(folders)) changed();
    const temp = join(parent, `.${namePrefix(walked.parts[i])}.${nonce()}.bxp-tmpdir`);
    try {
      Deno.mkdirSync(temp, { mode: CREATED_FOLDER_MODE });
    } catch (error) {
      refuse("io", `Cannot create the folder ${here} (${osCode(error)})`, shown);
    }
    const fd = openDirectory(temp);
    if (fd === null) {
      // Never seen again under its random name: one removal attempt, then give up (it is empty).
      Deno.remove(temp).catch(() => {});
      changed();
    }
    let id: Identity | null = null;
    let placed = false;
    try {
      id = identityOfFd(fd);
      if (id === null || !nodeFs().fstatSync(fd).isDirectory()) changed();
      if (!foldersUnchangedSync(folders) || !isFolder(temp, id) || !foldersUnchangedSync(folders)) changed();
      try {
        Deno.renameSync(temp, folder);
      } catch (error) {
        if (error instanceof Deno.errors.AlreadyExists || osCode(error) === "ENOTEMPTY") {
          refuse("changed", `Folder ${here} appeared while it was being created: ${shown}`, shown);
        }
        refuse("io", `Cannot create the folder ${here} (${osCode(error)})`, shown);
      }
      placed = true;
      if (!foldersUnchangedSync(folders) || !isFolder(folder, id) || !foldersUnchangedSync(folders)) {
        changed();
      }
      folders.push({ path: folder, id });
    } finally {
      if (!placed) discardFolder(fd, temp, id);
      nodeFs().closeSync(fd);
    }
  }
}

function directoryFlags(): number {
  const { O_RDONLY, O_DIRECTORY, O_NONBLOCK } = nodeFs().constants;
  return O_RDONLY | (O_DIRECTORY ?? 0) | (O_NONBLOCK ?? 0);
}

/** Open the folder we just made by its random name (retried: a swap may hide it for a moment). */
function openDirectory(path: string): number | null {
  for (let attempt = 0; attempt < DISCARD_ATTEMPTS; attempt++) {
    try {
      return nodeFs().openSync(path, directoryFlags());
    } catch {
      // hidden by a swap for now
    }
  }
  return null;
}

/** Whether `path`, not followed, is a folder with identity `id`. */
function isFolder(path: string, id: Identity): boolean {
  try {
    const info = Deno.lstatSync(path);
    return info.isDirectory && !info.isSymlink && sameIdentity(identityOf(info), id);
  } catch {
    return false;
  }
}

/** Remove a folder of ours by its random name, wherever it is, until its descriptor reports it gone. */
function discardFolder(fd: number, path: string, id: Identity | null): void {
  for (let attempt = 0; attempt < DISCARD_ATTEMPTS; attempt++) {
    try {
      if (nodeFs().fstatSync(fd).nlink === 0) return;
    } catch {
      return;
    }
    if (id !== null && isFolder(path, id)) {
      try {
        Deno.removeSync(path);
      } catch {
        // retried
      }
    }
  }
}

function nonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

/** A short, path-free name for an OS error (the raw message names server paths). */
function osCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^[A-Z0-9_]{2,20}$/.test(code)) return code;
  return error instanceof Error && /^[A-Za-z]{2,40}$/.test(error.name) ? error.name : "I/O error";
}

/** A temporary file created exclusively beside the target and verified on its descriptor. */
interface Temp {
  fd: number;
  path: string;
  id: Identity;
}

function createTemp(
  folders: readonly { path: string; id: Identity }[],
  target: string,
  mode: number,
  shown: string,
): Temp {
  if (!foldersUnchangedSync(folders)) {
    refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
  }
  const path = tempName(target);
  let fd: number;
  try {
    fd = nodeFs().openSync(path, createFlags(), mode);
  } catch (error) {
    refuse("io", `Cannot create a temporary file beside ${shown} (${osCode(error)})`, shown);
  }
  try {
    const id = verifyOpenedSync(fd, folders, path, null, shown);
    return { fd, path, id };
  } catch (error) {
    discardTemp({ fd, path, id: null });
    if (error instanceof PathGuardError) {
      refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
    }
    throw error;
  }
}

/** Most unlink attempts for a temporary file sent elsewhere by a folder swap. */
const DISCARD_ATTEMPTS = 10_000;

/**
 * Close and remove a temporary file of ours wherever it landed: unlink it by its random name (only while
 * that name still names our file) until its descriptor reports no link left (`remaining` links: 1 when
 * the file was hard-linked to its real name). A folder swap that sent it
 * outside the root is undone as soon as the path resolves there again.
 */
function discardTemp(temp: { fd: number; path: string; id: Identity | null }, remaining = 0): void {
  try {
    for (let attempt = 0; attempt < DISCARD_ATTEMPTS; attempt++) {
      let links: number;
      try {
        links = nodeFs().fstatSync(temp.fd).nlink;
      } catch {
        break;
      }
      if (links <= remaining) break;
      const id = temp.id ?? identityOfFd(temp.fd);
      if (id !== null && namesSync(temp.path, id)) {
        try {
          Deno.removeSync(temp.path);
        } catch {
          // retried while the descriptor still reports a link
        }
      }
    }
  } finally {
    try {
      nodeFs().closeSync(temp.fd);
    } catch {
      // already closed
    }
  }
}

function identityOfFd(fd: number): Identity | null {
  try {
    const info = nodeFs().fstatSync(fd);
    return { dev: info.dev ?? null, ino: info.ino ?? null };
  } catch {
    return null;
  }
}

function fillTemp(temp: Temp, bytes: Uint8Array, mode: number | null, shown: string): void {
  try {
    if (mode !== null && Deno.build.os !== "windows") nodeFs().fchmodSync(temp.fd, mode);
    for (let at = 0; at < bytes.length;) at += nodeFs().writeSync(temp.fd, bytes, at, bytes.length - at);
    nodeFs().fsyncSync(temp.fd);
  } catch (error) {
    discardTemp(temp);
    refuse("io", `Cannot write the temporary file beside ${shown} (${osCode(error)})`, shown);
  }
}

function createSync(
  walked: WalkedPath,
  bytes: Uint8Array,
  folders: readonly { path: string; id: Identity }[],
  shown: string,
): "created" {
  // A new file gets 0644 less the umask, as any editor would create it.
  const temp = createTemp(folders, walked.absolute, 0o644, shown);
  fillTemp(temp, bytes, null, shown);
  let linked = false;
  try {
    if (!foldersUnchangedSync(folders)) {
      refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
    }
    try {
      // link(2) fails when anything (a file, a dangling link) appeared at the target: never replaces.
      Deno.linkSync(temp.path, walked.absolute);
      linked = true;
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        refuse("exists", `${shown} appeared while it was being written; nothing was written.`, shown);
      }
      refuse("io", `Cannot create ${shown} (${osCode(error)})`, shown);
    }
    if (
      !foldersUnchangedSync(folders) || !namesSync(walked.absolute, temp.id) || !foldersUnchangedSync(folders)
    ) {
      refuse(
        "changed",
        `A folder on the way changed during the write of ${shown}; the result is not trusted.`,
        shown,
      );
    }
    return "created";
  } finally {
    discardTemp(temp, linked ? 1 : 0);
  }
}

function replaceSync(
  target: WriteTarget,
  bytes: Uint8Array,
  folders: readonly { path: string; id: Identity }[],
  shown: string,
): "updated" {
  const path = target.walked.absolute;
  const temp = createTemp(folders, path, 0o600, shown);
  fillTemp(temp, bytes, target.existingMode, shown);
  let renamed = false;
  try {
    if (!foldersUnchangedSync(folders)) {
      refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
    }
    let now: Deno.FileInfo | null = null;
    try {
      now = Deno.lstatSync(path);
    } catch {
      refuse("changed", `${shown} disappeared while it was being replaced; nothing was written.`, shown);
    }
    if (
      now.isSymlink || !now.isFile || (now.nlink !== null && now.nlink > 1) || isReadOnly(now) ||
      target.existingId === null || !sameIdentity(identityOf(now), target.existingId)
    ) {
      refuse("changed", `${shown} changed while it was being replaced; nothing was written.`, shown);
    }
    try {
      Deno.renameSync(temp.path, path);
    } catch (error) {
      refuse("io", `Cannot replace ${shown} (${osCode(error)})`, shown);
    }
    renamed = true;
    if (!foldersUnchangedSync(folders) || !namesSync(path, temp.id) || !foldersUnchangedSync(folders)) {
      refuse(
        "changed",
        `A folder on the way changed during the write of ${shown}; the result is not trusted.`,
        shown,
      );
    }
    return "updated";
  } finally {
    if (renamed) {
      try {
        nodeFs().closeSync(temp.fd);
      } catch {
        // already closed
      }
    } else {
      discardTemp(temp);
    }
  }
}

/**
 * The write, every step relative to a directory descriptor: the existing folders opened beneath the root
 * (no link followed, never leaving it), missing ones made with mkdirat and opened with O_NOFOLLOW, the
 * temporary file created exclusively in the target's folder, then linked (new file) or renamed (a
 * replacement, after the target is checked again in that folder) into place within the same descriptor.
 * A temporary file is removed through that descriptor on any failure, so none is left anywhere.
 */
function writeBeneath(
  target: WriteTarget,
  handle: RootHandle,
  bytes: Uint8Array,
  shown: string,
): "created" | "updated" {
  const { fs } = handle;
  const { walked } = target;
  if (target.root.beneathHandle() !== handle) {
    refuse("changed", "Project root changed since the check.", shown);
  }
  const name = walked.parts[walked.parts.length - 1];
  const existing = walked.parts.slice(0, Math.min(walked.missingFrom, walked.parts.length - 1));
  const changed: () => never = () =>
    refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
  let dir: number;
  try {
    dir = fs.openBeneath(handle.fd, existing, "dir");
  } catch (error) {
    const refusal = beneathRefusal(error, shown, "Folder");
    refuse(refusal.reason === "not-found" ? "changed" : refusal.reason, refusal.message, shown);
  }
  try {
    for (let i = existing.length; i < walked.parts.length - 1; i++) {
      const here = displayPath(walked.parts.slice(0, i + 1).join("/"));
      try {
        fs.mkdirIn(dir, walked.parts[i], CREATED_FOLDER_MODE);
      } catch (error) {
        if (errnoOf(error) === "EEXIST") {
          refuse("changed", `Folder ${here} appeared while it was being created: ${shown}`, shown);
        }
        refuse("io", `Cannot create the folder ${here} (${errnoOf(error)})`, shown);
      }
      let next: number;
      try {
        // O_NOFOLLOW | O_DIRECTORY: a link or file swapped in for the new folder is refused.
        next = fs.openBeneath(dir, [walked.parts[i]], "dir");
      } catch {
        changed();
      }
      fs.close(dir);
      dir = next;
    }
    const temp = `.${namePrefix(name)}.${nonce()}.bxp-tmp`;
    let fd: number;
    try {
      // A new file gets 0644 less the umask, as any editor would create it; a replacement starts private.
      fd = fs.createIn(dir, temp, target.exists ? 0o600 : 0o644);
    } catch (error) {
      refuse("io", `Cannot create a temporary file beside ${shown} (${errnoOf(error)})`, shown);
    }
    let placed = false;
    try {
      const made = fs.fstat(fd);
      if (made.kind !== "file" || made.nlink !== 1) changed();
      try {
        if (target.existingMode !== null) fs.fchmod(fd, target.existingMode);
        fs.writeAll(fd, bytes);
        fs.fsync(fd);
      } catch (error) {
        refuse("io", `Cannot write the temporary file beside ${shown} (${errnoOf(error)})`, shown);
      }
      if (!target.exists) {
        try {
          // linkat fails when anything (a file, a dangling link) appeared at the target: never replaces.
          fs.linkIn(dir, temp, name);
        } catch (error) {
          if (errnoOf(error) === "EEXIST") {
            refuse("exists", `${shown} appeared while it was being written; nothing was written.`, shown);
          }
          refuse("io", `Cannot create ${shown} (${errnoOf(error)})`, shown);
        }
        return "created";
      }
      let now;
      try {
        now = fs.statIn(dir, name);
      } catch {
        refuse("changed", `${shown} disappeared while it was being replaced; nothing was written.`, shown);
      }
      if (
        now.kind !== "file" || now.nlink > 1 || (now.mode & 0o200) === 0 || target.existingId === null ||
        !sameIdentity({ dev: now.dev, ino: now.ino }, target.existingId)
      ) {
        refuse("changed", `${shown} changed while it was being replaced; nothing was written.`, shown);
      }
      try {
        // renameat replaces whatever is at the name (a link swapped in is replaced, never followed).
        fs.renameIn(dir, temp, name);
      } catch (error) {
        refuse("io", `Cannot replace ${shown} (${errnoOf(error)})`, shown);
      }
      placed = true;
      return "updated";
    } finally {
      fs.close(fd);
      if (!placed) {
        try {
          fs.unlinkIn(dir, temp);
        } catch {
          // never linked (creation failed before) or already gone
        }
      }
    }
  } finally {
    fs.close(dir);
  }
}

/** The errno name of an fd-relative call's failure (path-free), or a generic word. */
function errnoOf(error: unknown): string {
  return error instanceof BeneathError ? error.code : "I/O error";
}
