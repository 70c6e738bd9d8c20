/**
 * The resident memory of a bxp-cli child, for `bxp_simulate`'s memory limit. The V8 heap cap bounds one
 * isolate's heap only; bxp-cli has several (its block workers) plus buffers and code outside any heap, so
 * a fan-out config reached 1.5 GB of RSS under a 1 GiB heap cap. The whole process is watched instead.
 *
 * Linux: `VmRSS` of `/proc/<pid>/status`. Deno refuses every `/proc/<pid>` path without `--allow-all`,
 * which the permission-narrowed session worker never has, so the file is read through the C library
 * (`open` / `read` / `close`) on the one libc path the worker's FFI permission grants (`beneath.ts`'s
 * {@link libcPath}). The only path it ever opens is `/proc/<integer pid>/status`, read-only. Elsewhere
 * (macOS, Windows), or without that permission, there is no probe and only the heap cap applies.
 *
 * The session probes bxp-cli's child process; here the example probes its own process:
 *
 * @example
 * ```ts
 * import { residentProbe } from "./memory.ts";
 * import assert from "node:assert/strict";
 * const probe = residentProbe(); // null off Linux, or where the C library cannot be opened
 * if (probe !== null) {
 *   const rss = probe(Deno.pid); // bytes, or null once the process is gone
 *   assert.ok(rss !== null && rss > 1024 * 1024);
 *   assert.equal(probe(0), null); // not a process id
 * }
 * ```
 * @module
 */

import { libcPath } from "../security/beneath.ts";

/** Reads a process's resident set size in bytes, or null when it cannot (the process is gone). */
export type ResidentProbe = (pid: number) => number | null;

/** Where the probe works: stated in the tool description and the answer's limits. */
export const RESIDENT_PROBE_OSES = "Linux";

const SYMBOLS = {
  open: { parameters: ["buffer", "i32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
} as const;

/** `O_RDONLY | O_CLOEXEC` on Linux (x86_64 and aarch64 share the value). */
const OPEN_FLAGS = 0o2000000;

let cached: ResidentProbe | null | undefined;

/** The probe for this process, or null where none can work (see the module notes); opened once. */
export function residentProbe(): ResidentProbe | null {
  cached ??= bindProbe();
  return cached;
}

function bindProbe(): ResidentProbe | null {
  if (Deno.build.os !== "linux") return null;
  const path = libcPath("linux");
  if (path === null) return null;
  let lib: Deno.DynamicLibrary<typeof SYMBOLS>;
  try {
    lib = Deno.dlopen(path, SYMBOLS);
  } catch {
    return null;
  }
  const buffer = new Uint8Array(4096);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return (pid: number) => {
    if (!Number.isSafeInteger(pid) || pid <= 0) return null;
    const fd = lib.symbols.open(encoder.encode(`/proc/${pid}/status\0`), OPEN_FLAGS);
    if (fd < 0) return null;
    let n: number;
    try {
      n = Number(lib.symbols.read(fd, buffer, BigInt(buffer.length)));
    } finally {
      lib.symbols.close(fd);
    }
    if (n <= 0) return null;
    const match = /\nVmRSS:\s+(\d+) kB/.exec(decoder.decode(buffer.subarray(0, n)));
    return match === null ? null : Number(match[1]) * 1024;
  };
}

// Bound while this module is evaluated: the session worker drops its FFI permission once its imports
// are in (`sealBeneath`), and a library opened before that keeps working.
residentProbe();
