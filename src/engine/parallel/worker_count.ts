/**
 * How many evaluators convert a large file. One per core: the main thread is one of them, so there is one
 * worker thread per extra core, and no upper cap, so a bigger machine uses every core it has. The count
 * comes from `navigator.hardwareConcurrency` (the CPUs this process may run on); `BXP_WORKERS` overrides it,
 * and 0 or 1 keeps everything serial on the main thread.
 *
 * @example
 * ```ts
 * import { evaluatorCount } from "./worker_count.ts";
 * import assert from "node:assert/strict";
 * assert.equal(evaluatorCount(null, 8), 8); // seven workers and the main thread
 * assert.equal(evaluatorCount("0", 8), 0); // serial
 * ```
 * @module
 */

/** `env`: the `BXP_WORKERS` value (null when unset; a non-number is ignored); `cores`: hardware threads. */
export function evaluatorCount(env: string | null, cores: number | undefined): number {
  if (env !== null && /^\d+$/.test(env.trim())) return Number(env.trim());
  return Math.max(1, Math.floor(cores ?? 1));
}
