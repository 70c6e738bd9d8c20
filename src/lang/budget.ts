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
 * import assert from "node:assert/strict";
 * const { value, work } = metered(MAX_EVAL_WORK, () => "result");
 * assert.equal(value, "result");
 * assert.equal(work, 0); // the callback built no strings and read no columns
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
 *
 * `spent` counts the same units across evaluations and is never reset by them: {@link withinSpendLimit}
 * bounds a whole job (many compilations and evaluations) by it, and `exceeded` records that some limit was
 * hit even when the caller caught the error (validation turns expression errors into findings).
 */
export const meter = { used: 0, limit: MAX_EVAL_WORK, spent: 0, spendLimit: Infinity, exceeded: false };

/** `ResultTooLarge` for a value of `chars` characters built by `what`. */
export function resultTooLarge(what: string, chars: number, off = 0, len = 0): ExprError {
  meter.exceeded = true;
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
  meter.exceeded = true;
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
  meter.spent += units;
  if ((meter.used += units) > meter.limit || meter.spent > meter.spendLimit) {
    throw workLimitExceeded(off, len);
  }
}

/** Check a built text against {@link MAX_VALUE_CHARS} and charge its length; returns it. */
export function built(s: string, what: string, off = 0, len = 0): string {
  if (s.length > MAX_VALUE_CHARS) throw resultTooLarge(what, s.length, off, len);
  charge(s.length, off, len);
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

/**
 * Run `fn` (any number of compilations and evaluations) with at most `limit` units charged in all, and
 * tell whether it stayed within that and every other limit. The value of a run that did not (`exceeded`)
 * may differ from an unbounded run's: the caller discards it. Charges are made where long texts are built
 * or read (see the module notes), so a caller that also bounds the size of what `fn` is given bounds its
 * whole cost.
 *
 * @example
 * ```ts
 * import { withinSpendLimit } from "./budget.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(withinSpendLimit(1024, () => "ok"), { value: "ok", exceeded: false });
 * ```
 */
export function withinSpendLimit<T>(limit: number, fn: () => T): { value: T; exceeded: boolean } {
  const saved = { spent: meter.spent, spendLimit: meter.spendLimit, exceeded: meter.exceeded };
  meter.spent = 0;
  meter.spendLimit = limit;
  meter.exceeded = false;
  try {
    const value = fn();
    return { value, exceeded: meter.exceeded };
  } finally {
    meter.spent = saved.spent;
    meter.spendLimit = saved.spendLimit;
    meter.exceeded = saved.exceeded;
  }
}

/**
 * Inside {@link withinSpendLimit}: whether a limit has been hit so far, so that what was computed since
 * may differ from an unbounded run's and must not be kept (a memo of answers would otherwise serve the
 * bounded run's error later). Outside: false.
 *
 * @example
 * ```ts
 * import { spendLimitHit } from "./budget.ts";
 * import assert from "node:assert/strict";
 * assert.equal(spendLimitHit(), false);
 * ```
 */
export function spendLimitHit(): boolean {
  return meter.spendLimit !== Infinity && meter.exceeded;
}

/**
 * A step whose cost work units cannot measure (compiling and running a regular expression, loading a time
 * zone's rules): refused inside {@link withinSpendLimit}, whose caller then runs the job elsewhere (under a
 * time limit); free otherwise.
 */
export function unmeteredStep(what: string): void {
  if (meter.spendLimit === Infinity) return;
  meter.exceeded = true;
  throw new ExprError("WorkLimitExceeded", `${what} is not run under a spend limit`);
}

/** Units spent by the evaluation that ran last (read right after it, successful or not). */
export function lastEvaluationWork(): number {
  return meter.used;
}
