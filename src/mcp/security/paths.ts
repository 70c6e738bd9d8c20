/**
 * Containment for one fixed project root: every path bxp-mcp takes from a client is relative to the root,
 * checked as text first (no NUL, not absolute, no escape, not over-long) and then against the file system
 * (no symbolic link anywhere below the root, the real path still inside it, a regular file with a single
 * link at the end). Reads are size-capped through the same guard.
 *
 * Deno's own path permissions are lexical and follow symlinks, so they cannot be the boundary; this module
 * is. Its messages follow wizz's path guard (clients and models read them), always naming the path
 * relative to the root (never the server's absolute path, never a raw OS message).
 *
 * Races: a folder swapped for a link by another local process between a check and a path-based open
 * would redirect the open, and no check before or after it can close that window (each component is
 * looked at in a different moment than the open resolves it). Where the OS offers it (Linux, macOS),
 * the open is therefore resolved beneath the root's directory descriptor following no link at all
 * (`beneath.ts`: openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or openat with O_NOFOLLOW per
 * component) and the file is read through that descriptor; the path checks before it only give the
 * precise messages. Elsewhere (Windows) what was opened by path is verified after the open, on the
 * descriptor: a regular file with one link whose identity (dev, ino) is the one the checked, link-free
 * path names, both right before and right after the open (synchronous checks, so nothing else of this
 * process runs in between), which narrows the window without closing it. Files are opened with
 * O_NONBLOCK so a FIFO swapped in after the check cannot block the open; it is refused after fstat.
 *
 * Here a temporary folder is the project root:
 *
 * @example
 * ```ts
 * import { PathGuardError, ProjectRoot } from "./paths.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * try {
 *   await Deno.mkdir(`${dir}/configs`);
 *   await Deno.writeTextFile(`${dir}/configs/bank.json5`, "{}");
 *   const root = await ProjectRoot.open(dir);
 *   const { text } = await root.readText("configs/bank.json5", { maxBytes: 1024 * 1024, what: "Config" });
 *   assert.equal(text, "{}");
 *   const outside = root.readText("../secret.json", { maxBytes: 1024, what: "Config" });
 *   await assert.rejects(outside, (e) => e instanceof PathGuardError && e.reason === "outside-root");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 * @module
 */

import { loadNodeFs, nodeFs, type NodeStats } from "./node_fs.ts";
import { type Beneath, beneath, BeneathError, beneathUnavailable } from "./beneath.ts";
import { logToStderr } from "../stderr_log.ts";
import { join, relative, resolve, sep } from "../../util/host_path.ts";
import { concatBytes } from "../../util/bytes.ts";

/** Longest accepted relative path, in UTF-8 bytes. */
export const MAX_PATH_BYTES = 1024;

/** Longest accepted single path component, in UTF-8 bytes (the common file-system name limit). */
export const MAX_COMPONENT_BYTES = 255;

/** Most components a relative path may have. */
export const MAX_PATH_COMPONENTS = 32;

/** Why a path was refused; stable codes a tool may put in its structured answer. */
export type PathRefusal =
  | "invalid-path"
  | "outside-root"
  | "symlink"
  | "not-found"
  | "not-regular"
  | "hardlink"
  | "too-large"
  | "changed"
  | "unreadable";

/** A path refused by the guard. `message` names the problem and the path; never a stack trace. */
export class PathGuardError extends Error {
  /** The kind of refusal. */
  readonly reason: PathRefusal;
  /** The path as the client gave it (clipped for display). */
  readonly path: string;
  /** Create a refusal. */
  constructor(reason: PathRefusal, message: string, path: string) {
    super(message);
    this.name = "PathGuardError";
    this.reason = reason;
    this.path = path;
  }
}

/**
 * A path for a message: control characters escaped (a NUL must be visible, not cut the text) and clipped
 * to 200 characters so a hostile megabyte-long path is not echoed back whole.
 *
 * @example
 * ```ts
 * import { displayPath } from "./paths.ts";
 * import assert from "node:assert/strict";
 * assert.equal(displayPath("a\u0000b"), "a\\u0000b");
 * ```
 */
export function displayPath(path: string): string {
  const escaped = path.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return escaped.length <= 200 ? escaped : `${escaped.slice(0, 200)}…`;
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/**
 * The textual half of the guard: split a client path into normalized components, or throw
 * {@link PathGuardError}. `/` is the separator everywhere; `\`, drive prefixes and absolute paths are
 * refused rather than interpreted, so a path means the same on every platform. `.` parts are dropped and
 * a `..` that stays inside the root is folded away as Deno itself folds it before any system call; one
 * that climbs above the root is refused.
 *
 * @example
 * ```ts
 * import { relativeParts } from "./paths.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(relativeParts("configs/./a.json"), ["configs", "a.json"]);
 * assert.throws(() => relativeParts("../a.json"), /Path must stay inside the project root: \.\.\/a\.json/);
 * ```
 */
export function relativeParts(path: string, os: string = "linux", roots: readonly string[] = []): string[] {
  if (typeof path !== "string" || path.length === 0) {
    throw new PathGuardError(
      "invalid-path",
      "A non-empty path relative to the project root is required.",
      "",
    );
  }
  const shown = displayPath(path);
  const bytes = new TextEncoder().encode(path).length;
  if (bytes > MAX_PATH_BYTES) {
    throw new PathGuardError(
      "invalid-path",
      `Path is too long (${bytes} bytes; the limit is ${MAX_PATH_BYTES}): ${shown}`,
      shown,
    );
  }
  if (path.includes("\0")) {
    throw new PathGuardError("invalid-path", `Path contains a NUL byte: ${shown}`, shown);
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0001-\u001f\u007f]/.test(path)) {
    throw new PathGuardError("invalid-path", `Path contains a control character: ${shown}`, shown);
  }
  if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path) || path.startsWith("~")) {
    throw new PathGuardError(
      "invalid-path",
      `Path must be relative to the project root: ${shown}${absoluteHint(path, os, roots)}`,
      shown,
    );
  }
  if (path.includes("\\")) {
    const slashed = validRelative(path.replaceAll("\\", "/"), os);
    const hint = slashed === null ? "" : `; send "${displayPath(slashed)}"`;
    throw new PathGuardError("invalid-path", `Path must use '/' as its separator: ${shown}${hint}`, shown);
  }
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) {
        throw new PathGuardError("outside-root", `Path must stay inside the project root: ${shown}`, shown);
      }
      parts.pop();
      continue;
    }
    if (new TextEncoder().encode(part).length > MAX_COMPONENT_BYTES) {
      throw new PathGuardError(
        "invalid-path",
        `Path has a name longer than ${MAX_COMPONENT_BYTES} bytes: ${shown}`,
        shown,
      );
    }
    if (os === "windows" && (/[<>:"|?*]/.test(part) || WINDOWS_RESERVED.test(part) || /[. ]$/.test(part))) {
      throw new PathGuardError(
        "invalid-path",
        `Path has a name Windows cannot store safely: ${shown}`,
        shown,
      );
    }
    parts.push(part);
  }
  if (parts.length === 0) {
    throw new PathGuardError(
      "invalid-path",
      `Path must name a file inside the project root: ${shown}`,
      shown,
    );
  }
  if (parts.length > MAX_PATH_COMPONENTS) {
    throw new PathGuardError(
      "invalid-path",
      `Path has more than ${MAX_PATH_COMPONENTS} components: ${shown}`,
      shown,
    );
  }
  return parts;
}

/**
 * What a refusal of the absolute `path` adds: the relative path to send instead when `path` lies inside
 * one of `roots` (the root's real path and its path as given, so `/tmp/p` and `/private/tmp/p` both
 * match on macOS), else a pointer to the relative form.
 *
 * Absolute paths are refused, not converted, even inside the root: one spelling per file on the wire (the
 * one answers and bxp_list_files use), and an absolute path names a file as the client's machine sees
 * it, which over HTTP is not this one, so whether it "works" would depend on the server's folder layout.
 * Backslashes are refused for the same reason and because on POSIX `\` is a legal name character, so
 * `data\in.csv` may name another file than `data/in.csv`. The refusal names the form to send, so a model
 * corrects itself in one step. Judged textually and by whole components; the suggested path is guarded
 * like any other when it is sent.
 */
function absoluteHint(path: string, os: string, roots: readonly string[]): string {
  const windows = os === "windows";
  const norm = (p: string) => {
    const slashed = windows ? p.replaceAll("\\", "/") : p;
    const trimmed = slashed.length > 1 ? slashed.replace(/\/+$/, "") : slashed;
    return windows ? trimmed.toLowerCase() : trimmed;
  };
  const slashed = windows ? path.replaceAll("\\", "/") : path;
  for (const root of roots) {
    const prefix = norm(root);
    if (norm(path) === prefix) return " (that is the project root itself; name a file inside it)";
    const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
    // Compared on the original text's own first characters, so the cut below lands where they end.
    const head = slashed.slice(0, base.length);
    if ((windows ? head.toLowerCase() : head) !== base) continue;
    const relative = validRelative(slashed.slice(base.length), os);
    if (relative !== null) return ` (it lies inside the project root: send "${displayPath(relative)}")`;
  }
  return " (paths name files below the project root, e.g. data/in.csv; bxp_list_files lists them)";
}

/** `path` normalized as {@link relativeParts} would accept it, or null when it would be refused. */
function validRelative(path: string, os: string): string | null {
  try {
    return relativeParts(path, os).join("/");
  } catch {
    return null;
  }
}

/**
 * Whether `candidate` is `root` or lies below it, judged by whole path components (never a string
 * prefix: `/srv/root-evil` is not inside `/srv/root`). Both must be absolute.
 *
 * @example
 * ```ts
 * import { isInside } from "./paths.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isInside("/srv/root", "/srv/root/a/b"), true);
 * assert.equal(isInside("/srv/root", "/srv/root-evil/a"), false);
 * ```
 */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  if (rel === "") return true;
  if (rel === ".." || rel.startsWith(`..${sep}`)) return false;
  return !/^([A-Za-z]:|[\\/])/.test(rel);
}

/**
 * Folders owned by version control or a package manager, matched case-insensitively at any depth:
 * bxp-mcp never writes inside them and `bxp_list_files` does not descend into them. `vendor` is left out
 * on purpose: in a conversion project it is as likely to hold a supplier's exports as PHP or Go packages.
 */
export const PROTECTED_FOLDERS: readonly string[] = [
  ".git",
  ".hg",
  ".svn",
  ".bzr",
  "_darcs",
  ".jj",
  ".pijul",
  "CVS",
  "node_modules",
  "bower_components",
  "jspm_packages",
  ".venv",
];

const PROTECTED = new Set(PROTECTED_FOLDERS.map((name) => name.toLowerCase()));

/**
 * The first protected folder among `folders` (path components), or null.
 *
 * @example
 * ```ts
 * import { protectedFolderIn } from "./paths.ts";
 * import assert from "node:assert/strict";
 * assert.equal(protectedFolderIn(["a", ".GIT", "hooks"]), ".GIT");
 * ```
 */
export function protectedFolderIn(folders: readonly string[]): string | null {
  return folders.find((name) => PROTECTED.has(name.toLowerCase())) ?? null;
}

/** A file-system object's identity; `null` members where the platform does not report them. */
export interface Identity {
  dev: number | null;
  ino: number | null;
}

/** Same object, where both sides report identity; unknown identity never counts as a mismatch. */
export function sameIdentity(a: Identity, b: Identity): boolean {
  if (a.ino === null || b.ino === null || a.dev === null || b.dev === null) return true;
  return a.ino === b.ino && a.dev === b.dev;
}

/** The outcome of walking a checked path below the root. */
export interface WalkedPath {
  /** The normalized relative path, `/`-separated (for messages and answers). */
  relative: string;
  /** The absolute path below the root's real path. */
  absolute: string;
  /** Identity of the root and of every existing folder on the way, outermost first. */
  folders: { path: string; id: Identity }[];
  /** Components (by index) from which on nothing exists yet; `parts.length` when the target exists. */
  missingFrom: number;
  /** The target's lstat, or null when it does not exist. */
  target: Deno.FileInfo | null;
  /** The components. */
  parts: string[];
}

const identityOf = (info: Deno.FileInfo): Identity => ({ dev: info.dev, ino: info.ino });

async function lstatOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Closes the directory descriptor of a ProjectRoot no longer referenced. */
const rootDescriptors = new FinalizationRegistry<RootHandle>((handle) => handle.fs.close(handle.fd));

/** Options of {@link ProjectRoot.readFile}. */
export interface ReadOptions {
  /** Refuse files larger than this many bytes. */
  maxBytes: number;
  /** What the file is, for messages ("Config", "CSV input"). */
  what: string;
}

/**
 * The fixed project root of one bxp-mcp run. Opened once at startup (its real path taken then) and never
 * changed afterwards; every access re-checks that the root folder is still the one opened.
 */
export class ProjectRoot {
  /** The root's real path (symlinks resolved once, at startup). */
  readonly path: string;
  readonly #id: Identity;
  readonly #os: string;
  /** The root's spellings a client may use in an absolute path (real, and as given): for refusals only. */
  readonly #spellings: readonly string[];
  #handle: RootHandle | null = null;

  private constructor(path: string, id: Identity, os: string, given: string = path) {
    this.path = path;
    this.#id = id;
    this.#os = os;
    this.#spellings = given === path ? [path] : [path, given];
  }

  /**
   * Open `dir` (relative to the working directory, or absolute) as the root: it must exist and be a
   * folder. Throws {@link PathGuardError} naming it otherwise.
   */
  static async open(dir: string, os: string = Deno.build.os): Promise<ProjectRoot> {
    const shown = displayPath(dir);
    if (dir === "" || dir.includes("\0")) {
      throw new PathGuardError("invalid-path", `Project root is not a usable path: ${shown}`, shown);
    }
    let real: string;
    let info: Deno.FileInfo;
    try {
      real = await Deno.realPath(resolve(dir));
      info = await Deno.stat(real);
    } catch {
      throw new PathGuardError(
        "unreadable",
        `Project root does not exist or is not readable: ${shown}`,
        shown,
      );
    }
    if (!info.isDirectory) {
      throw new PathGuardError("not-regular", `Project root is not a directory: ${shown}`, shown);
    }
    return new ProjectRoot(real, identityOf(info), os, resolve(dir));
  }

  /** The root folder with the identity it had at startup; throws PathGuardError when it changed since. */
  checkedRoot(): { path: string; id: Identity } {
    let info: Deno.FileInfo | null = null;
    try {
      info = Deno.lstatSync(this.path);
    } catch {
      // reported below
    }
    if (info === null || !info.isDirectory || !sameIdentity(identityOf(info), this.#id)) {
      throw new PathGuardError("changed", "Project root changed or disappeared since startup.", "");
    }
    return { path: this.path, id: identityOf(info) };
  }

  /**
   * The root's directory descriptor, for access resolved beneath it (`beneath.ts`), or null where the
   * platform offers no such calls (then the path checks alone guard). Opened on first use by the real
   * path taken at startup and refused unless it is still the folder opened then; kept for the session, so
   * a later swap of the root's own path cannot redirect it.
   */
  beneathHandle(): RootHandle | null {
    if (this.#handle !== null) return this.#handle;
    const fs = this.#os === Deno.build.os ? beneath() : null;
    if (fs === null) {
      warnPathChecksOnly(this.#os);
      return null;
    }
    let fd: number;
    try {
      fd = fs.openRoot(this.path);
    } catch {
      throw new PathGuardError("changed", "Project root changed or disappeared since startup.", "");
    }
    const info = fs.fstat(fd);
    if (info.kind !== "dir" || !sameIdentity({ dev: info.dev, ino: info.ino }, this.#id)) {
      fs.close(fd);
      throw new PathGuardError("changed", "Project root changed or disappeared since startup.", "");
    }
    this.#handle = { fs, fd };
    // A client-named root replaced by another one is dropped, not closed: its descriptor goes with it.
    rootDescriptors.register(this, this.#handle);
    return this.#handle;
  }

  /**
   * Check `path` against the root: the textual rules, then every existing component with `lstat` (a
   * symbolic link anywhere is refused, dangling ones included; folders must be folders), then the real
   * path of the deepest existing component must still be inside the root.
   */
  async walk(path: string): Promise<WalkedPath> {
    const parts = relativeParts(path, this.#os, this.#spellings);
    const rel = parts.join("/");
    const shown = displayPath(rel);
    const rootInfo = await lstatOrNull(this.path).catch(() => null);
    if (rootInfo === null || !rootInfo.isDirectory || !sameIdentity(identityOf(rootInfo), this.#id)) {
      throw new PathGuardError("changed", "Project root changed or disappeared since startup.", shown);
    }
    const folders = [{ path: this.path, id: identityOf(rootInfo) }];
    let missingFrom = parts.length;
    let target: Deno.FileInfo | null = null;
    let current = this.path;
    for (let i = 0; i < parts.length; i++) {
      current = join(current, parts[i]);
      const here = displayPath(parts.slice(0, i + 1).join("/"));
      let info: Deno.FileInfo | null;
      try {
        info = await lstatOrNull(current);
      } catch {
        throw new PathGuardError("unreadable", `Path cannot be resolved: ${here}`, shown);
      }
      if (info === null) {
        missingFrom = i;
        break;
      }
      if (info.isSymlink) {
        throw new PathGuardError(
          "symlink",
          i === parts.length - 1
            ? `Path is a symbolic link: ${shown}`
            : `Path goes through a symbolic link: ${here}`,
          shown,
        );
      }
      if (i < parts.length - 1) {
        if (!info.isDirectory) {
          throw new PathGuardError("not-regular", `Path component is not a directory: ${here}`, shown);
        }
        folders.push({ path: current, id: identityOf(info) });
      } else {
        target = info;
      }
    }
    // Belt and braces for links lstat does not flag (e.g. Windows junctions): the real path of the
    // deepest existing component must still be inside the root.
    const deepest = missingFrom === parts.length ? current : folders[folders.length - 1].path;
    let real: string;
    try {
      real = await Deno.realPath(deepest);
    } catch {
      throw new PathGuardError("unreadable", `Path cannot be resolved: ${shown}`, shown);
    }
    if (!isInside(this.path, real)) {
      throw new PathGuardError(
        "outside-root",
        `Path resolves outside the project root through the filesystem: ${shown}`,
        shown,
      );
    }
    return { relative: rel, absolute: join(this.path, ...parts), folders, missingFrom, target, parts };
  }

  /**
   * Read a regular, singly linked file inside the root, at most `maxBytes` long. The opened handle's
   * identity must match the checked path (a swap between check and open is refused) and the size is
   * enforced while reading, in case the file grows.
   */
  async readFile(path: string, options: ReadOptions): Promise<{ relative: string; bytes: Uint8Array }> {
    const { relative, shown, file } = await this.#openRegular(path, options, true);
    try {
      if (file.size > options.maxBytes) throw tooLarge(options, file.size, shown);
      return { relative, bytes: await readBounded(file, options, shown) };
    } finally {
      file.close();
    }
  }

  /**
   * What {@link ProjectRoot.readFile} and {@link ProjectRoot.readHead} both check before reading: `path`
   * walks to a regular, singly linked file (with `capped`, also no larger than `options.maxBytes` by its
   * `lstat`), then opened by `#open`. The caller closes the file.
   */
  async #openRegular(
    path: string,
    options: ReadOptions,
    capped: boolean,
  ): Promise<{ relative: string; shown: string; file: OpenedFile }> {
    const walked = await this.walk(path);
    const shown = displayPath(walked.relative);
    const info = walked.target;
    if (info === null) {
      throw new PathGuardError("not-found", `${options.what} file not found: ${shown}`, shown);
    }
    if (!info.isFile) throw new PathGuardError("not-regular", `Not a regular file: ${shown}`, shown);
    if (info.nlink !== null && info.nlink > 1) {
      throw new PathGuardError("hardlink", `File has other hard links; refusing to read it: ${shown}`, shown);
    }
    if (capped && info.size > options.maxBytes) throw tooLarge(options, info.size, shown);
    return { relative: walked.relative, shown, file: await this.#open(walked, shown) };
  }

  /**
   * Open a walked target for reading: beneath the root's descriptor where the platform allows it, else by
   * path with the checks around the open.
   */
  async #open(walked: WalkedPath, shown: string): Promise<OpenedFile> {
    const handle = this.beneathHandle();
    if (handle !== null) return openBeneathVerified(handle, walked, shown);
    await loadNodeFs();
    const fd = openVerified(walked, shown);
    return {
      size: nodeFs().fstatSync(fd).size,
      read: (buffer, offset, length) => readAt(fd, buffer, offset, length),
      close: () => nodeFs().closeSync(fd),
    };
  }

  /**
   * The first `maxBytes` bytes of a regular, singly linked file inside the root, whatever its size, through
   * the same checks as {@link ProjectRoot.readFile} (for previews). `size` is the file's size when opened.
   */
  async readHead(
    path: string,
    options: ReadOptions,
  ): Promise<{ relative: string; bytes: Uint8Array; size: number; truncated: boolean }> {
    const { relative, shown, file } = await this.#openRegular(path, options, false);
    try {
      const size = file.size;
      const buffer = new Uint8Array(Math.min(options.maxBytes, Math.max(size, 0)) + 1);
      let filled = 0;
      while (filled < buffer.length) {
        let n: number;
        try {
          n = await file.read(buffer, filled, buffer.length - filled);
        } catch {
          throw new PathGuardError("unreadable", `Cannot read ${shown}`, shown);
        }
        if (n === 0) break;
        filled += n;
      }
      const truncated = filled > options.maxBytes;
      return {
        relative,
        bytes: buffer.slice(0, Math.min(filled, options.maxBytes)),
        size,
        truncated,
      };
    } finally {
      file.close();
    }
  }

  /** {@link ProjectRoot.readFile}, decoded as UTF-8 (a leading BOM kept, as the config reader expects). */
  async readText(path: string, options: ReadOptions): Promise<{ relative: string; text: string }> {
    const { relative, bytes } = await this.readFile(path, options);
    return { relative, text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes) };
  }
}

function tooLarge(options: ReadOptions, size: number, shown: string): PathGuardError {
  return new PathGuardError(
    "too-large",
    `${options.what} file is ${size} bytes, over the ${options.maxBytes}-byte limit: ${shown}`,
    shown,
  );
}

/**
 * Read from a verified descriptor without blocking the session thread (a regular file: the FIFO case was
 * refused before).
 */
function readAt(fd: number, buffer: Uint8Array, offset: number, length: number): Promise<number> {
  return new Promise((resolve, reject) => {
    nodeFs().read(fd, buffer, offset, length, null, (error, n) => error ? reject(error) : resolve(n));
  });
}

/** An opened, verified file: its size when opened, reads at the current position, close. */
interface OpenedFile {
  size: number;
  read(buffer: Uint8Array, offset: number, length: number): Promise<number>;
  close(): void;
}

let warnedPathChecksOnly = false;

/**
 * Says once, on stderr, that a platform which has descriptor-relative opens is guarded by the path checks
 * alone (no C library at a granted path, say): that guard narrows the race with a concurrent local process
 * but cannot close it, and an operator must not believe otherwise. Windows has no such calls: nothing to say.
 */
function warnPathChecksOnly(os: string): void {
  if (warnedPathChecksOnly || (os !== "linux" && os !== "darwin") || os !== Deno.build.os) return;
  warnedPathChecksOnly = true;
  logToStderr(
    `warning: files under the root are opened by path, not beneath the root's descriptor (${beneathUnavailable()}); ` +
      "a concurrent local process may race the checks (see docs/security.md)",
  );
}

/** The root's directory descriptor and the calls that resolve beneath it. */
export interface RootHandle {
  fs: Beneath;
  fd: number;
}

/**
 * The refusal for an fd-relative open that failed after the path checks passed: the file system changed
 * in between (a link appeared: ELOOP; a folder became a file or link: ENOTDIR; an escape: EXDEV), or the
 * target went away.
 */
export function beneathRefusal(error: unknown, shown: string, what: string): PathGuardError {
  const code = error instanceof BeneathError ? error.code : "";
  if (code === "ELOOP") {
    return new PathGuardError("symlink", `Path goes through a symbolic link: ${shown}`, shown);
  }
  if (code === "EXDEV") {
    return new PathGuardError("outside-root", `Path must stay inside the project root: ${shown}`, shown);
  }
  if (code === "ENOENT") return new PathGuardError("not-found", `${what} file not found: ${shown}`, shown);
  if (code === "ENOTDIR") {
    return new PathGuardError("changed", `A folder on the way changed while opening ${shown}`, shown);
  }
  return new PathGuardError("unreadable", `Cannot open ${shown}${code === "" ? "" : ` (${code})`}`, shown);
}

/**
 * Open a walked target beneath the root's descriptor, following no link and never leaving the root, and
 * check the descriptor: a regular file with one link, the identity the walk saw (so what is read is what
 * was checked).
 */
function openBeneathVerified(handle: RootHandle, walked: WalkedPath, shown: string): OpenedFile {
  const { fs } = handle;
  let fd: number;
  try {
    fd = fs.openBeneath(handle.fd, walked.parts, "read");
  } catch (error) {
    throw beneathRefusal(error, shown, "File");
  }
  try {
    const info = fs.fstat(fd);
    if (info.kind !== "file") throw new PathGuardError("not-regular", `Not a regular file: ${shown}`, shown);
    if (info.nlink > 1) {
      throw new PathGuardError("hardlink", `File has other hard links; refusing it: ${shown}`, shown);
    }
    const expected = identityOf(walked.target as Deno.FileInfo);
    if (!sameIdentity({ dev: info.dev, ino: info.ino }, expected)) {
      throw new PathGuardError("changed", `File changed while it was being opened: ${shown}`, shown);
    }
    return {
      size: info.size,
      read: (buffer, offset, length) => fs.read(fd, buffer, offset, length),
      close: () => fs.close(fd),
    };
  } catch (error) {
    fs.close(fd);
    throw error;
  }
}

async function readBounded(file: OpenedFile, options: ReadOptions, shown: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  // One read for a file that did not grow since it was opened (its size and one byte more), then the end.
  let want = Math.min(file.size, options.maxBytes) + 1;
  while (true) {
    const buffer = new Uint8Array(Math.max(want, 1));
    want = 64 * 1024;
    let n: number;
    try {
      n = await file.read(buffer, 0, buffer.length);
    } catch {
      throw new PathGuardError("unreadable", `Cannot read ${shown}`, shown);
    }
    if (n === 0) break;
    total += n;
    if (total > options.maxBytes) throw tooLarge(options, total, shown);
    chunks.push(buffer.subarray(0, n));
  }
  return concatBytes(chunks);
}

/** Open flags for a guarded read: never blocks on a FIFO swapped in late (O_NONBLOCK, where defined). */
function readFlags(): number {
  const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = nodeFs().constants;
  return O_RDONLY | (O_NONBLOCK ?? 0) | (O_NOFOLLOW ?? 0);
}

/**
 * Open a checked target for reading and verify the descriptor before a byte is read: a regular file
 * with one link, the identity the walk saw, and the link-free path still naming that very object right
 * after the open (folders re-checked around it). Returns the descriptor; throws PathGuardError (the
 * descriptor closed) otherwise.
 */
function openVerified(walked: WalkedPath, shown: string): number {
  const fs = nodeFs(); // outside the try below: read before loadNodeFs() is a bug to report, not a refusal
  const expected = identityOf(walked.target as Deno.FileInfo);
  if (!foldersUnchangedSync(walked.folders)) {
    throw new PathGuardError("changed", `A folder on the way changed while opening ${shown}`, shown);
  }
  let fd: number;
  try {
    fd = fs.openSync(walked.absolute, readFlags());
  } catch {
    throw new PathGuardError("unreadable", `Cannot open ${shown}`, shown);
  }
  try {
    verifyOpenedSync(fd, walked.folders, walked.absolute, expected, shown);
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/**
 * The post-open check shared by reads and writes: the descriptor is a regular file with one link and
 * identity `expected` (when given), and `path` (lstat, not followed) plus every folder on the way still
 * name it, checked on both sides. Synchronous, so no other call of this process runs in between.
 */
export function verifyOpenedSync(
  fd: number,
  folders: readonly { path: string; id: Identity }[],
  path: string,
  expected: Identity | null,
  shown: string,
): Identity {
  let opened: NodeStats;
  try {
    opened = nodeFs().fstatSync(fd);
  } catch {
    throw new PathGuardError("unreadable", `Cannot inspect ${shown}`, shown);
  }
  if (!opened.isFile()) {
    throw new PathGuardError("not-regular", `Not a regular file: ${shown}`, shown);
  }
  if (opened.nlink > 1) {
    throw new PathGuardError("hardlink", `File has other hard links; refusing it: ${shown}`, shown);
  }
  const id: Identity = { dev: opened.dev ?? null, ino: opened.ino ?? null };
  if (expected !== null && !sameIdentity(id, expected)) {
    throw new PathGuardError("changed", `File changed while it was being opened: ${shown}`, shown);
  }
  if (!foldersUnchangedSync(folders) || !namesSync(path, id) || !foldersUnchangedSync(folders)) {
    throw new PathGuardError("changed", `A folder on the way changed while opening ${shown}`, shown);
  }
  return id;
}

/** Whether every folder is still a folder (not a link) with the identity recorded for it. */
export function foldersUnchangedSync(folders: readonly { path: string; id: Identity }[]): boolean {
  for (const folder of folders) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(folder.path);
    } catch {
      return false;
    }
    if (info.isSymlink || !info.isDirectory || !sameIdentity(identityOf(info), folder.id)) return false;
  }
  return true;
}

/** Whether `path`, not followed, is a regular file with identity `id`. */
export function namesSync(path: string, id: Identity): boolean {
  try {
    const info = Deno.lstatSync(path);
    return info.isFile && !info.isSymlink && sameIdentity(identityOf(info), id);
  } catch {
    return false;
  }
}
