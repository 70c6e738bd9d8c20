/**
 * Whether a process still runs, as both programs ask it before removing what a dead run of theirs left
 * behind (bxp-cli its stale temp files, bxp-mcp its token folders). One probe for both, so they agree on
 * what "dead" means.
 *
 * @example
 * ```ts
 * import { pidRunning } from "./pid_probe.ts";
 * import assert from "node:assert/strict";
 * assert.equal(pidRunning(0), null); // not a process id
 * assert.notEqual(pidRunning(Deno.pid), false); // this process runs (true, or null where it cannot be told)
 * ```
 * @module
 */

/**
 * Whether process `pid` runs on this machine: true when it does (or belongs to another user), false only
 * when the system says there is no such process, null when it cannot be told (then callers keep what they
 * found). Asked first with signal 0 (needs run access), then through `/proc` (needs read access to it;
 * Deno 2 grants that only with `--allow-all`), never on Windows.
 */
export function pidRunning(pid: number): boolean | null {
  if (Deno.build.os === "windows" || !Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    // Signal 0 checks that the process exists and delivers nothing; Deno.kill takes it as a number.
    Deno.kill(pid, 0 as unknown as Deno.Signal);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    if (error instanceof Deno.errors.PermissionDenied) return true;
  }
  try {
    Deno.statSync("/proc/self");
  } catch {
    return null;
  }
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}
