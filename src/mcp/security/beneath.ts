/**
 * File access resolved beneath a directory handle, never through a path the file system may redirect:
 * the one way to close the race a second local process can run against a check-then-open guard by
 * swapping a folder of the root for a symbolic link (each path component is otherwise looked at in one
 * moment and resolved by the open in another). Deno has no `openat`, so this module calls the C library
 * through `Deno.dlopen` (libc.so.6 on Linux, libSystem on macOS), as Go's `os.Root` and Rust's `cap-std`
 * do natively:
 *
 * - Linux: `openat2(rootfd, "a/b/c", {resolve: RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 *   RESOLVE_NO_MAGICLINKS})` (syscall 437 through libc's `syscall()`), which the kernel resolves in one
 *   step refusing any link and any escape; where openat2 is missing (kernels before 5.6, or a seccomp
 *   filter answering ENOSYS/EPERM) one `openat(dirfd, name, O_NOFOLLOW | O_DIRECTORY)` per folder.
 * - macOS: one `openat(dirfd, name, O_NOFOLLOW | O_DIRECTORY)` per folder (written for macOS, not run
 *   here).
 * - Elsewhere (Windows), or when the C library cannot be opened: {@link beneath} is null and the callers
 *   keep their path checks.
 *
 * Files are then read through the returned descriptor (`fstat` for type, links and size first), and
 * written as a temporary file created with `O_CREAT | O_EXCL | O_NOFOLLOW` inside the verified folder's
 * descriptor and moved into place with `linkat` / `renameat` relative to that same descriptor, so no
 * step names a path that could be redirected. The process needs `--allow-ffi` for the C library's path
 * only (see deno.json's bxp-mcp task); {@link libcPath} finds that path.
 *
 * Here a temporary folder is the root (where {@link beneath} is null, as on Windows, nothing is opened):
 *
 * @example
 * ```ts
 * import { beneath } from "./beneath.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * try {
 *   await Deno.mkdir(`${dir}/configs`);
 *   await Deno.writeTextFile(`${dir}/configs/bank.json5`, "{}");
 *   const fs = beneath();
 *   if (fs !== null) {
 *     await Deno.symlink(`${dir}/configs/bank.json5`, `${dir}/link.json5`);
 *     const root = fs.openRoot(dir);
 *     const fd = fs.openBeneath(root, ["configs", "bank.json5"], "read");
 *     assert.equal(fs.fstat(fd).size, 2);
 *     // A link is never followed:
 *     assert.throws(() => fs.openBeneath(root, ["link.json5"], "read"), { name: "BeneathError" });
 *     fs.close(fd);
 *     fs.close(root);
 *   }
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 * @module
 */

/** An OS error from a call of this module: the errno's name (`ENOENT`, `ELOOP`, ...), never a path. */
export class BeneathError extends Error {
  /** The errno's symbolic name, or `E<number>` for one this module does not name. */
  readonly code: string;
  /** Create the error. */
  constructor(code: string, call: string) {
    super(`${call}: ${code}`);
    this.name = "BeneathError";
    this.code = code;
  }
}

/** What `fstat` / `fstatat` report that the guard uses. */
export interface BeneathStat {
  kind: "file" | "dir" | "link" | "other";
  /** Permission bits (mode & 0o7777). */
  mode: number;
  nlink: number;
  size: number;
  dev: number;
  ino: number;
}

/** How an {@link Beneath.openBeneath} target is opened. */
export type OpenKind = "read" | "dir";

/** The calls of this module, bound to the platform's C library. */
export interface Beneath {
  /** Which resolution is used: `openat2` (Linux 5.6+) or `openat` per component. */
  readonly method: "openat2" | "openat";
  /**
   * Open a folder by absolute path (the root, taken once), not following a final link. It (and every
   * folder opened beneath it) can be written in only when Deno grants this thread write access to `path`.
   */
  openRoot(path: string): number;
  /**
   * Open `parts` (plain names: no `.`, `..`, `/` or NUL; the caller's textual guard ensures it) beneath the
   * folder `dirfd`, following no link anywhere and never leaving it. `dir` opens a folder; `read` opens a
   * file read-only without blocking (a FIFO is refused by the caller after fstat).
   */
  openBeneath(dirfd: number, parts: readonly string[], kind: OpenKind): number;
  /** `openat(dirfd, name, O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW)`: a new file in the folder, never a link. */
  createIn(dirfd: number, name: string, mode: number): number;
  /** `mkdirat(dirfd, name, mode)`. */
  mkdirIn(dirfd: number, name: string, mode: number): void;
  /** `fstat(fd)`. */
  fstat(fd: number): BeneathStat;
  /** `fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW)`. */
  statIn(dirfd: number, name: string): BeneathStat;
  /** `read(fd, ...)` on a blocking thread (a slow disk never stalls the session). Returns the count. */
  read(fd: number, buffer: Uint8Array, offset: number, length: number): Promise<number>;
  /** Write all of `bytes` (to a file made by {@link Beneath.createIn} only, as fchmod). */
  writeAll(fd: number, bytes: Uint8Array): void;
  /** `fchmod(fd, mode)`. */
  fchmod(fd: number, mode: number): void;
  /** `fsync(fd)`. */
  fsync(fd: number): void;
  /** `linkat(dirfd, from, dirfd, to, 0)`: fails with EEXIST when anything is at `to`. */
  linkIn(dirfd: number, from: string, to: string): void;
  /** `renameat(dirfd, from, dirfd, to)`: replaces `to` (a link there is replaced, never followed). */
  renameIn(dirfd: number, from: string, to: string): void;
  /** `unlinkat(dirfd, name, 0)` (or `AT_REMOVEDIR` for a folder). */
  unlinkIn(dirfd: number, name: string, folder?: boolean): void;
  /** `close(fd)`; errors ignored (nothing to do about them). */
  close(fd: number): void;
}

/**
 * The C library's path candidates for this platform, in the order tried; deno.json's bxp-mcp task grants
 * `--allow-ffi` for exactly these paths (a test keeps the two lists equal).
 */
export const LIBC_CANDIDATES: Readonly<Record<string, readonly string[]>> = {
  linux: [
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/lib/aarch64-linux-gnu/libc.so.6",
    "/usr/lib/aarch64-linux-gnu/libc.so.6",
    "/lib64/libc.so.6",
    "/usr/lib64/libc.so.6",
    "/usr/lib/libc.so.6",
    "/lib/libc.so.6",
  ],
  darwin: ["/usr/lib/libSystem.B.dylib"],
};

/**
 * The C library this process may open: the first candidate that exists (macOS keeps libSystem in the
 * dyld cache, not on disk, so its one candidate is taken as is) and that the ffi permission grants. Null
 * where none does (Windows, an unlisted layout such as NixOS, or no `--allow-ffi`).
 */
export function libcPath(os: string = Deno.build.os): string | null {
  for (const path of LIBC_CANDIDATES[os] ?? []) {
    try {
      if (Deno.permissions.querySync({ name: "ffi", path }).state !== "granted") continue;
      if (os !== "darwin") Deno.statSync(path);
      return path;
    } catch {
      // absent, or not readable here: try the next
    }
  }
  return null;
}

interface Consts {
  O_RDONLY: number;
  O_WRONLY: number;
  O_CREAT: number;
  O_EXCL: number;
  O_NONBLOCK: number;
  O_NOFOLLOW: number;
  O_DIRECTORY: number;
  O_CLOEXEC: number;
  AT_SYMLINK_NOFOLLOW: number;
  AT_REMOVEDIR: number;
  errno: Record<number, string>;
}

// Linux's generic errno values (x86_64 and aarch64 share them).
const LINUX_ERRNO: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  5: "EIO",
  6: "ENXIO",
  7: "E2BIG",
  11: "EAGAIN",
  12: "ENOMEM",
  13: "EACCES",
  16: "EBUSY",
  17: "EEXIST",
  18: "EXDEV",
  20: "ENOTDIR",
  21: "EISDIR",
  22: "EINVAL",
  24: "EMFILE",
  26: "ETXTBSY",
  28: "ENOSPC",
  30: "EROFS",
  31: "EMLINK",
  36: "ENAMETOOLONG",
  38: "ENOSYS",
  39: "ENOTEMPTY",
  40: "ELOOP",
  95: "EOPNOTSUPP",
  122: "EDQUOT",
};

const DARWIN_ERRNO: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  5: "EIO",
  6: "ENXIO",
  7: "E2BIG",
  12: "ENOMEM",
  13: "EACCES",
  16: "EBUSY",
  17: "EEXIST",
  18: "EXDEV",
  20: "ENOTDIR",
  21: "EISDIR",
  22: "EINVAL",
  24: "EMFILE",
  26: "ETXTBSY",
  28: "ENOSPC",
  30: "EROFS",
  31: "EMLINK",
  35: "EAGAIN",
  45: "EOPNOTSUPP",
  62: "ELOOP",
  63: "ENAMETOOLONG",
  66: "ENOTEMPTY",
  69: "EDQUOT",
  78: "ENOSYS",
};

function constsFor(os: string, arch: string): Consts | null {
  if (os === "linux" && (arch === "x86_64" || arch === "aarch64")) {
    const x86 = arch === "x86_64";
    return {
      O_RDONLY: 0,
      O_WRONLY: 1,
      O_CREAT: 0o100,
      O_EXCL: 0o200,
      O_NONBLOCK: 0o4000,
      // The two flags arm64 numbers differently from the generic values x86_64 uses.
      O_NOFOLLOW: x86 ? 0o400000 : 0o100000,
      O_DIRECTORY: x86 ? 0o200000 : 0o40000,
      O_CLOEXEC: 0o2000000,
      AT_SYMLINK_NOFOLLOW: 0x100,
      AT_REMOVEDIR: 0x200,
      errno: LINUX_ERRNO,
    };
  }
  if (os === "darwin" && (arch === "x86_64" || arch === "aarch64")) {
    return {
      O_RDONLY: 0,
      O_WRONLY: 1,
      O_CREAT: 0x200,
      O_EXCL: 0x800,
      O_NONBLOCK: 0x4,
      O_NOFOLLOW: 0x100,
      O_DIRECTORY: 0x100000,
      O_CLOEXEC: 0x1000000,
      AT_SYMLINK_NOFOLLOW: 0x20,
      AT_REMOVEDIR: 0x80,
      errno: DARWIN_ERRNO,
    };
  }
  return null;
}

const LINUX_SYS = {
  x86_64: { openat2: 437, newfstatat: 262 },
  aarch64: { openat2: 437, newfstatat: 79 },
} as const;

const AT_EMPTY_PATH = 0x1000; // Linux
const RESOLVE_NO_MAGICLINKS = 0x02;
const RESOLVE_NO_SYMLINKS = 0x04;
const RESOLVE_BENEATH = 0x08;

/** Whether `name` is one plain path component (what every `*In` call and the component walk take). */
function plainName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/\0]/.test(name);
}

const encoder = new TextEncoder();
/** A NUL-terminated copy of `text` for a C call. */
const cString = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(`${text}\0`);

/** Decode a `struct stat` of this platform. */
function decodeStat(os: string, arch: string, buffer: Uint8Array<ArrayBuffer>): BeneathStat {
  const view = new DataView(buffer.buffer);
  let dev: number, ino: number, mode: number, nlink: number, size: number;
  if (os === "linux" && arch === "x86_64") {
    dev = Number(view.getBigUint64(0, true));
    ino = Number(view.getBigUint64(8, true));
    nlink = Number(view.getBigUint64(16, true));
    mode = view.getUint32(24, true);
    size = Number(view.getBigInt64(48, true));
  } else if (os === "linux") {
    dev = Number(view.getBigUint64(0, true));
    ino = Number(view.getBigUint64(8, true));
    mode = view.getUint32(16, true);
    nlink = view.getUint32(20, true);
    size = Number(view.getBigInt64(48, true));
  } else {
    // macOS, 64-bit inodes: dev i32, mode u16, nlink u16, ino u64, ..., size at 96.
    dev = view.getInt32(0, true);
    mode = view.getUint16(4, true);
    nlink = view.getUint16(6, true);
    ino = Number(view.getBigUint64(8, true));
    size = Number(view.getBigInt64(96, true));
  }
  const type = mode & 0o170000;
  const kind = type === 0o100000 ? "file" : type === 0o040000 ? "dir" : type === 0o120000 ? "link" : "other";
  return { kind, mode: mode & 0o7777, nlink, size, dev, ino };
}

function bind(path: string, os: string, arch: string, c: Consts, tryOpenat2: boolean): Beneath {
  const darwinX86 = os === "darwin" && arch === "x86_64";
  // On arm64 macOS a variadic argument (openat's mode) is passed on the stack, where the ninth argument of
  // a fixed-argument call lands; x86_64 and Linux pass it in the fourth register like any argument.
  const darwinArm = os === "darwin" && arch === "aarch64";
  const openatParams: Deno.NativeType[] = darwinArm
    ? ["i32", "buffer", "i32", "u64", "u64", "u64", "u64", "u64", "u64"]
    : ["i32", "buffer", "i32", "u32"];
  const lib = Deno.dlopen(path, {
    openat: { parameters: openatParams, result: "i32" },
    mkdirat: { parameters: ["i32", "buffer", "u32"], result: "i32" },
    read: { name: "read", parameters: ["i32", "buffer", "usize"], result: "isize", nonblocking: true },
    write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
    fchmod: { parameters: ["i32", "u32"], result: "i32" },
    fsync: { parameters: ["i32"], result: "i32" },
    linkat: { parameters: ["i32", "buffer", "i32", "buffer", "i32"], result: "i32" },
    renameat: { parameters: ["i32", "buffer", "i32", "buffer"], result: "i32" },
    unlinkat: { parameters: ["i32", "buffer", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
    errno: { name: os === "darwin" ? "__error" : "__errno_location", parameters: [], result: "pointer" },
    // Reads errno through the C library: Deno.UnsafePointerView needs FFI access to every path.
    memcpy: { parameters: ["buffer", "pointer", "usize"], result: "pointer" },
    ...(os === "linux"
      ? { syscall: { parameters: ["i64", "i64", "buffer", "buffer", "i64"], result: "i64" } } as const
      : {}),
    ...(os === "darwin"
      ? {
        fstatat: {
          name: darwinX86 ? "fstatat$INODE64" : "fstatat",
          parameters: ["i32", "buffer", "buffer", "i32"],
          result: "i32",
        },
        fstat: { name: darwinX86 ? "fstat$INODE64" : "fstat", parameters: ["i32", "buffer"], result: "i32" },
      } as const
      : {}),
  });
  // deno-lint-ignore no-explicit-any
  const s = lib.symbols as any;
  const errnoBuffer = new Uint8Array(4);
  const errnoName = (): string => {
    const pointer = s.errno() as Deno.PointerValue;
    if (pointer !== null) s.memcpy(errnoBuffer, pointer, 4n);
    const value = pointer === null ? 0 : new DataView(errnoBuffer.buffer).getInt32(0, true);
    return c.errno[value] ?? `E${value}`;
  };
  const check = (result: number | bigint, call: string): number => {
    const n = Number(result);
    if (n < 0) throw new BeneathError(errnoName(), call);
    return n;
  };
  const openat = (dirfd: number, name: string, flags: number, mode = 0): number => {
    const args = darwinArm ? [dirfd, cString(name), flags, 0n, 0n, 0n, 0n, 0n, BigInt(mode)] : [
      dirfd,
      cString(name),
      flags,
      mode,
    ];
    return check(s.openat(...args), "openat");
  };
  const sys = os === "linux" ? LINUX_SYS[arch as "x86_64" | "aarch64"] : null;
  const statBuffer = () => new Uint8Array(256);
  const fstatat = (dirfd: number, name: string, flags: number): BeneathStat => {
    const buffer = statBuffer();
    if (sys !== null) check(s.syscall(sys.newfstatat, dirfd, cString(name), buffer, flags), "fstatat");
    else check(s.fstatat(dirfd, cString(name), buffer, flags), "fstatat");
    return decodeStat(os, arch, buffer);
  };
  const named = (name: string): void => {
    if (!plainName(name)) throw new BeneathError("EINVAL", "name");
  };
  // FFI bypasses Deno's write permission, so it is carried over: only a root Deno lets this thread write
  // (and the folders opened beneath it) can be written in, and only files created here are changed.
  const writable = new Set<number>();
  const created = new Set<number>();
  const mayWriteIn = (dirfd: number, call: string): void => {
    if (!writable.has(dirfd)) throw new BeneathError("EACCES", call);
  };
  const mayChange = (fd: number, call: string): void => {
    if (!created.has(fd)) throw new BeneathError("EACCES", call);
  };
  const fileFlags = c.O_RDONLY | c.O_NONBLOCK | c.O_NOFOLLOW | c.O_CLOEXEC;
  const dirFlags = c.O_RDONLY | c.O_DIRECTORY | c.O_NOFOLLOW | c.O_CLOEXEC;

  /** openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; throws ENOSYS & co where it is unavailable. */
  const openat2 = (dirfd: number, relative: string, flags: number): number => {
    const how = new Uint8Array(24);
    const view = new DataView(how.buffer);
    view.setBigUint64(0, BigInt(flags), true);
    view.setBigUint64(8, 0n, true);
    view.setBigUint64(16, BigInt(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS), true);
    return check(s.syscall(sys!.openat2, dirfd, cString(relative), how, 24), "openat2");
  };

  const perComponent = (dirfd: number, parts: readonly string[], kind: OpenKind): number => {
    let current = dirfd;
    try {
      for (let i = 0; i < parts.length; i++) {
        const last = i === parts.length - 1;
        const next = openat(current, parts[i], last && kind === "read" ? fileFlags : dirFlags);
        if (current !== dirfd) s.close(current);
        current = next;
      }
      return current === dirfd ? openat(dirfd, ".", dirFlags) : current;
    } catch (error) {
      if (current !== dirfd) s.close(current);
      throw error;
    }
  };

  // Probe openat2 once on a folder everyone has: kernels without it, and seccomp filters (some container
  // runtimes answer EPERM or ENOSYS for unknown system calls), fall back to openat per component.
  let method: "openat2" | "openat" = "openat";
  if (sys !== null && tryOpenat2) {
    try {
      const probe = openat(-100, "/", dirFlags);
      try {
        s.close(openat2(probe, ".", dirFlags));
        method = "openat2";
      } catch {
        // stays "openat"
      } finally {
        s.close(probe);
      }
    } catch {
      // stays "openat"
    }
  }

  return {
    method,
    openRoot(path) {
      const fd = openat(os === "darwin" ? -2 : -100, path, dirFlags);
      if (Deno.permissions.querySync({ name: "write", path }).state === "granted") writable.add(fd);
      return fd;
    },
    openBeneath(dirfd, parts, kind) {
      // Belt and braces behind the textual guard: the per-component walk must never be handed a `..`.
      if (!parts.every(plainName)) throw new BeneathError("EINVAL", "openBeneath");
      const flags = kind === "read" ? fileFlags : dirFlags;
      const fd = method === "openat2"
        ? openat2(dirfd, parts.length === 0 ? "." : parts.join("/"), flags)
        : perComponent(dirfd, parts, kind);
      if (kind === "dir" && writable.has(dirfd)) writable.add(fd);
      return fd;
    },
    createIn(dirfd, name, mode) {
      named(name);
      mayWriteIn(dirfd, "openat");
      const fd = openat(dirfd, name, c.O_WRONLY | c.O_CREAT | c.O_EXCL | c.O_NOFOLLOW | c.O_CLOEXEC, mode);
      // The mode of an arm64 macOS call is passed by a convention this module cannot test here: set it
      // again on the descriptor before a byte is written.
      if (os === "darwin") s.fchmod(fd, mode);
      created.add(fd);
      return fd;
    },
    mkdirIn(dirfd, name, mode) {
      named(name);
      mayWriteIn(dirfd, "mkdirat");
      check(s.mkdirat(dirfd, cString(name), mode), "mkdirat");
    },
    fstat(fd) {
      if (sys !== null) return fstatat(fd, "", AT_EMPTY_PATH | c.AT_SYMLINK_NOFOLLOW);
      const buffer = statBuffer();
      check(s.fstat(fd, buffer), "fstat");
      return decodeStat(os, arch, buffer);
    },
    statIn(dirfd, name) {
      named(name);
      return fstatat(dirfd, name, c.AT_SYMLINK_NOFOLLOW);
    },
    async read(fd, buffer, offset, length) {
      const view = buffer.subarray(offset, offset + length);
      const n = Number(await s.read(fd, view, BigInt(view.length)));
      if (n < 0) throw new BeneathError("EIO", "read");
      return n;
    },
    writeAll(fd, bytes) {
      mayChange(fd, "write");
      for (let at = 0; at < bytes.length;) {
        const rest = bytes.subarray(at);
        at += check(s.write(fd, rest, BigInt(rest.length)), "write");
      }
    },
    fchmod(fd, mode) {
      mayChange(fd, "fchmod");
      check(s.fchmod(fd, mode), "fchmod");
    },
    fsync(fd) {
      check(s.fsync(fd), "fsync");
    },
    linkIn(dirfd, from, to) {
      named(from);
      named(to);
      mayWriteIn(dirfd, "linkat");
      check(s.linkat(dirfd, cString(from), dirfd, cString(to), 0), "linkat");
    },
    renameIn(dirfd, from, to) {
      named(from);
      named(to);
      mayWriteIn(dirfd, "renameat");
      check(s.renameat(dirfd, cString(from), dirfd, cString(to)), "renameat");
    },
    unlinkIn(dirfd, name, folder = false) {
      named(name);
      mayWriteIn(dirfd, "unlinkat");
      check(s.unlinkat(dirfd, cString(name), folder ? c.AT_REMOVEDIR : 0), "unlinkat");
    },
    close(fd) {
      writable.delete(fd);
      created.delete(fd);
      s.close(fd);
    },
  };
}

let bound: Beneath | null | undefined;
let unavailable = "";

/**
 * A fresh binding with openat2 on or off (`openat2: false` is the fallback path of old kernels, for tests);
 * null where {@link beneath} is.
 */
export function bindBeneath(options: { openat2: boolean }): Beneath | null {
  const c = constsFor(Deno.build.os, Deno.build.arch);
  const path = libcPath();
  if (c === null || path === null) return null;
  return bind(path, Deno.build.os, Deno.build.arch, c, options.openat2);
}

/**
 * This process's {@link Beneath}, bound on first use, or null where the platform has no such calls or the
 * C library cannot be opened ({@link beneathUnavailable} then says why).
 */
export function beneath(): Beneath | null {
  if (bound !== undefined) return bound;
  bound = null;
  const c = constsFor(Deno.build.os, Deno.build.arch);
  if (c === null) {
    unavailable = `no openat binding for ${Deno.build.os}/${Deno.build.arch}`;
    return null;
  }
  const path = libcPath();
  if (path === null) {
    unavailable = "the C library is not among the paths --allow-ffi grants";
    return null;
  }
  try {
    bound = bind(path, Deno.build.os, Deno.build.arch, c, true);
  } catch (error) {
    unavailable = `cannot open the C library (${error instanceof Error ? error.name : "error"})`;
  }
  if (sealed) dropFfi();
  return bound;
}

let sealed = false;

function dropFfi(): void {
  try {
    Deno.permissions.revokeSync({ name: "ffi" });
  } catch {
    // nothing granted to drop
  }
}

/**
 * Drop this thread's FFI permission for good as soon as {@link beneath} has bound its calls (at once if it
 * already has): the bound calls keep working, but no other library can be opened and no raw pointer made,
 * so the only native calls left to the thread are this module's fd-relative ones. The session worker calls
 * this first thing; the binding itself waits for the first path access (it costs a few milliseconds, which
 * a session that never reads a file should not pay at startup).
 */
export function sealBeneath(): void {
  sealed = true;
  if (bound !== undefined) dropFfi();
}

/** Why {@link beneath} is null ("" while it is not). */
export function beneathUnavailable(): string {
  beneath();
  return unavailable;
}
