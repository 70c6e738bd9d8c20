/**
 * Writing one file inside the project root without ever following a link: new files are created with
 * `createNew` (O_EXCL, which refuses any existing entry, dangling symlinks included), replacements go
 * through a temporary file in the same folder that is renamed over the target (rename replaces a link
 * rather than following it) after the target's identity is checked again. Folders missing on the way are
 * created one at a time and checked right after.
 *
 * Residual risk, documented in the README: a folder on the way swapped for a link by another local process
 * in the instant between the last check and the system call still redirects it (Deno offers no
 * openat/renameat). The identity re-checks narrow that window and detect most swaps after the fact.
 *
 * @example
 * ```ts
 * const root = await ProjectRoot.open(".");
 * const target = await checkWriteTarget(root, "configs/new.json5", CONFIG_WRITE_RULES);
 * await writeChecked(root, target, new TextEncoder().encode("{}"), { overwrite: false });
 * ```
 * @module
 */

import { basename, dirname, join } from "node:path";
import { CONFIG_MAX_BYTES } from "../../config/json5.ts";
import {
  displayPath,
  type Identity,
  PathGuardError,
  type PathRefusal,
  type ProjectRoot,
  sameIdentity,
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
export type WriteRefusal = PathRefusal | "extension" | "exists" | "missing-file";

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
  try {
    walked = await root.walk(path);
  } catch (error) {
    if (error instanceof PathGuardError) refuse(error.reason, error.message, error.path);
    throw error;
  }
  const shown = displayPath(walked.relative);
  const name = walked.parts[walked.parts.length - 1].toLowerCase();
  if (!rules.extensions.some((ext) => name.endsWith(ext) && name.length > ext.length)) {
    refuse(
      "extension",
      `Write target must be a ${rules.extensions.join(" or ")} file: ${shown}`,
      shown,
    );
  }
  const info = walked.target;
  if (info === null) return { walked, exists: false, existingId: null };
  if (!info.isFile) refuse("not-regular", `Write target is not a regular file: ${shown}`, shown);
  if (info.nlink !== null && info.nlink > 1) {
    refuse("hardlink", `Write target has other hard links; refusing to replace it: ${shown}`, shown);
  }
  return { walked, exists: true, existingId: identityOf(info) };
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

/** Re-check that every folder seen by the walk is still the same folder and not a link. */
async function recheckFolders(folders: { path: string; id: Identity }[], shown: string): Promise<void> {
  for (const folder of folders) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(folder.path);
    } catch {
      refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
    }
    if (info.isSymlink || !info.isDirectory || !sameIdentity(identityOf(info), folder.id)) {
      refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
    }
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
}

function tempName(target: string): string {
  const nonce = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  return join(dirname(target), `.${basename(target)}.${nonce}.bxp-tmp`);
}

/**
 * Write `bytes` to a target that passed {@link checkWriteTarget}, enforcing the size cap and the
 * `overwrite` rules again at write time. Creates missing folders one by one (each checked to be a real
 * folder right after). Returns whether the file was created or replaced. Throws
 * {@link WriteRefusedError}; on any failure the target is left as it was.
 */
export async function writeChecked(
  target: WriteTarget,
  bytes: Uint8Array,
  options: { overwrite: boolean; rules: WriteRules },
): Promise<"created" | "updated"> {
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
  let folder = folders[folders.length - 1].path;
  for (let i = walked.missingFrom; i < walked.parts.length - 1; i++) {
    folder = join(folder, walked.parts[i]);
    try {
      await Deno.mkdir(folder);
    } catch {
      refuse(
        "changed",
        `Cannot create the folder ${displayPath(walked.parts.slice(0, i + 1).join("/"))}`,
        shown,
      );
    }
    const info = await Deno.lstat(folder);
    if (info.isSymlink || !info.isDirectory) {
      refuse("changed", `A folder on the way changed during the write: ${shown}`, shown);
    }
    folders.push({ path: folder, id: identityOf(info) });
  }

  await recheckFolders(folders, shown);
  if (!target.exists) {
    await createExclusively(walked.absolute, bytes, shown);
    await recheckFolders(folders, shown);
    return "created";
  }
  await replaceViaRename(target, bytes, folders, shown);
  return "updated";
}

async function createExclusively(path: string, bytes: Uint8Array, shown: string): Promise<void> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { write: true, createNew: true, mode: 0o644 });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      refuse("exists", `${shown} appeared while it was being written; nothing was written.`, shown);
    }
    refuse("unreadable", `Cannot create ${shown}`, shown);
  }
  try {
    await writeAll(file, bytes);
    const written = await file.stat();
    const named = await Deno.lstat(path);
    if (named.isSymlink || !sameIdentity(identityOf(named), identityOf(written))) {
      refuse("changed", `The new file was replaced while it was being written: ${shown}`, shown);
    }
  } finally {
    file.close();
  }
}

async function replaceViaRename(
  target: WriteTarget,
  bytes: Uint8Array,
  folders: { path: string; id: Identity }[],
  shown: string,
): Promise<void> {
  const path = target.walked.absolute;
  const temp = tempName(path);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(temp, { write: true, createNew: true, mode: 0o644 });
  } catch {
    refuse("unreadable", `Cannot create a temporary file beside ${shown}`, shown);
  }
  let renamed = false;
  try {
    try {
      await writeAll(file, bytes);
      const written = await file.stat();
      const tempInfo = await Deno.lstat(temp);
      if (tempInfo.isSymlink || !sameIdentity(identityOf(tempInfo), identityOf(written))) {
        refuse("changed", `The temporary file was replaced while it was being written: ${shown}`, shown);
      }
    } finally {
      file.close();
    }
    await recheckFolders(folders, shown);
    let now: Deno.FileInfo;
    try {
      now = await Deno.lstat(path);
    } catch {
      refuse("changed", `${shown} disappeared while it was being replaced; nothing was written.`, shown);
    }
    if (
      now.isSymlink || !now.isFile || (now.nlink !== null && now.nlink > 1) ||
      target.existingId === null || !sameIdentity(identityOf(now), target.existingId)
    ) {
      refuse("changed", `${shown} changed while it was being replaced; nothing was written.`, shown);
    }
    await Deno.rename(temp, path);
    renamed = true;
  } finally {
    if (!renamed) await Deno.remove(temp).catch(() => {});
  }
}
