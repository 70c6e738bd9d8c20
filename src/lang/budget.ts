/**
 * Bounded work per evaluation: a hostile or mistaken expression gets a clean error instead of running
 * the process out of memory or time. bxp has no such limit; no real conversion comes near these.
 *
 * Two limits apply to every evaluation (one record through one expression):
 *
 * - **Result size** ({@link MAX_VALUE_CHARS}): no text value an expression builds (a concatenation, a
 *   function result) may exceed 32 Mi characters (UTF-16 code units). A CSV record is capped at 10 MiB
 *   by the reader, so a value built from one record stays far below it; only runaway growth
 *   (`REPLACE` that multiplies, concatenations of copies) reaches it. Error: `ResultTooLarge`.
 * - **Work** ({@link MAX_EVAL_WORK}): one evaluation may account for at most 128 Mi units, where each
 *   column read costs its length, each function's text result its length, each `&` chain the length of
 *   what it built, and each `REPLACE` the length of its input times the number of search strings it
 *   tries. Texts under 1024 characters are not charged (without loops, what that leaves out is bounded
 *   by the size of the expression). Error: `WorkLimitExceeded`.
 *
 * Sizes are checked where strings are built, never per character, so the engine's hot path pays one
 * comparison per call or column read, and a long text one addition more. The counter is module state:
 * evaluation is synchronous and each worker thread has its own copy.
 *
 * @example
 * ```ts
 * import { metered, MAX_EVAL_WORK } from "./budget.ts";
 * const { value, work } = metered(MAX_EVAL_WORK, () => "result");
 * ```
 * @module
 */

import { ExprError } from "./errors.ts";

/** Longest text value an evaluation may build, in UTF-16 code units (32 Mi). */
export const MAX_VALUE_CHARS = 32 * 1024 * 1024;

/** Work units one evaluation may spend (128 Mi); see the module notes for what costs what. */
export const MAX_EVAL_WORK = 128 * 1024 * 1024;

/**
 * The running evaluation's account: `used` so far of `limit`. A compiled expression resets `used` as it
 * starts evaluating (evaluations do not nest), so right after one `used` is what it spent.
 */
export const meter = { used: 0, limit: MAX_EVAL_WORK };

/** `ResultTooLarge` for a value of `chars` characters built by `what`. */
export function resultTooLarge(what: string, chars: number, off = 0, len = 0): ExprError {
  return new ExprError(
    "ResultTooLarge",
    `${what} would build a text of ${chars} characters; one value may hold at most ${MAX_VALUE_CHARS}` +
      ` (32 Mi) — is a REPLACE or a concatenation multiplying its input?`,
    off,
    len,
  );
}

/** `WorkLimitExceeded` for the running evaluation. */
export function workLimitExceeded(off = 0, len = 0): ExprError {
  return new ExprError(
    "WorkLimitExceeded",
    `evaluation stopped after ${meter.used} work units, over its budget of ${meter.limit}` +
      ` (column reads, built text and REPLACE scans count their length) — simplify the expression`,
    off,
    len,
  );
}

/** Spend `units`; throws `WorkLimitExceeded` when the evaluation is over budget. */
export function charge(units: number, off = 0, len = 0): void {
  if ((meter.used += units) > meter.limit) throw workLimitExceeded(off, len);
}

/** Check a built text against {@link MAX_VALUE_CHARS} and charge its length; returns it. */
export function built(s: string, what: string, off = 0, len = 0): string {
  if (s.length > MAX_VALUE_CHARS) throw resultTooLarge(what, s.length, off, len);
  if ((meter.used += s.length) > meter.limit) throw workLimitExceeded(off, len);
  return s;
}

/**
 * Run `fn` with its own account of `limit` units, restoring the caller's account afterwards (constant
 * folding at compile time uses this). Returns the value and the units spent; rethrows what `fn` throws.
 */
export function metered<T>(limit: number, fn: () => T): { value: T; work: number } {
  const savedUsed = meter.used;
  const savedLimit = meter.limit;
  meter.used = 0;
  meter.limit = limit;
  try {
    const value = fn();
    return { value, work: meter.used };
  } finally {
    meter.used = savedUsed;
    meter.limit = savedLimit;
  }
}

/** Units spent by the evaluation that ran last (read right after it, successful or not). */
export function lastEvaluationWork(): number {
  return meter.used;
}
