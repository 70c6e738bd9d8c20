/**
 * Which evaluation jobs are cheap enough to run on the calling thread (bxp-mcp's session thread) itself,
 * without a worker's time limit, and running them there. The hand-off to a worker thread and back costs a
 * loaded two-core machine a tenth of a millisecond or more, several times what a typical `bxp_eval` or
 * `bxp_validate` costs.
 *
 * A job runs inline only when its cost is bounded by construction:
 *
 * - **Size.** Its text inputs (the config, the expression, the row, the maps and lookups) hold at most
 *   {@link INLINE_MAX_CHARS} characters. Parsing and checking are linear in them (the field-typo check
 *   compares names pairwise, at most a few million short comparisons at this size), and every nesting
 *   depth is capped by the parsers; placing findings in the annotated config is linear too.
 * - **Work.** Everything the work budget charges (long texts built, read or scanned, see
 *   `lang/budget.ts`) counts against {@link INLINE_SPEND_LIMIT} for the whole job, compilations and
 *   constant folding included. What goes uncharged is under 1024 characters per expression node, and the
 *   nodes are bounded by the size.
 * - **No unmetered step.** A regular expression or a time zone's rules cost more than their text's
 *   length; the language refuses them under a spend limit.
 *
 * A job outside these bounds, or one that reaches them while running, is not answered from here: its
 * partial result is discarded and it runs on a worker as before, with the full budget and the time
 * limit. Since evaluation is pure, the answer is the same wherever it was computed.
 *
 * What that bound comes to: a typical call takes 20-150 µs; the slowest inputs built to
 * stress each bound (a 16 Ki config with 900 findings, 2000 nested calls over 1000-character values,
 * REPLACE scans up to the spend limit) took 2-40 ms each on the two-core bench machine (`deno task bench
 * --only mcp` times them).
 *
 * @example
 * ```ts
 * import { runInline } from "./inline_jobs.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   runInline({ kind: "eval", expr: "1 + 2", headers: null, fields: null })?.text,
 *   '{"ok":true,"value":"3"}',
 * );
 * assert.equal(
 *   runInline({ kind: "eval", expr: "REGEX_MATCH('a', 'a')", headers: null, fields: null }),
 *   null,
 * );
 * ```
 *
 * @module
 */

import { withinSpendLimit } from "../lang/mod.ts";
import { type EvalJob, type EvalOutcome, runEvalJob } from "./jobs.ts";

/** Largest job, in characters of text inputs (strings, keys, numbers as written), run inline. */
export const INLINE_MAX_CHARS = 16 * 1024;

/** Work units (see `lang/budget.ts`) an inline job may spend in all: a few milliseconds of text work at most. */
export const INLINE_SPEND_LIMIT = 256 * 1024;

/**
 * The characters of a job's inputs, counted until they pass `cap` (then a number above `cap`): the
 * strings, object keys and scalars anywhere in it, so a huge map or row is turned away after `cap`
 * characters of looking.
 *
 * @example
 * ```ts
 * import { jobChars } from "./inline_jobs.ts";
 * import assert from "node:assert/strict";
 * // 13 + 10, and each key + 1
 * assert.equal(jobChars({ kind: "validate_expr", expr: "UPPER('x')" }, 100), 33);
 * ```
 */
export function jobChars(job: EvalJob, cap: number): number {
  let total = 0;
  // An explicit stack: a deeply nested request must not recurse. Nothing is pushed once past the cap.
  const stack: unknown[] = [job];
  while (stack.length > 0 && total <= cap) {
    const value = stack.pop();
    if (typeof value === "string") total += value.length;
    else if (typeof value === "number" || typeof value === "boolean") total += 5;
    else if (Array.isArray(value)) {
      total += 1 + value.length;
      if (total <= cap) { for (const item of value) stack.push(item); }
    } else if (value !== null && typeof value === "object") {
      for (const key in value) {
        total += key.length + 1;
        if (total > cap) break;
        stack.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}

/**
 * Run `job` on this thread when it is within the inline bounds (see the module notes) and stays within
 * them while running; null when it must run on a worker instead (too large, over the spend limit, an
 * unmetered step, or it threw: the worker reports that as before).
 */
export function runInline(job: EvalJob): EvalOutcome | null {
  if (jobChars(job, INLINE_MAX_CHARS) > INLINE_MAX_CHARS) return null;
  try {
    const run = withinSpendLimit(INLINE_SPEND_LIMIT, () => runEvalJob(job));
    return run.exceeded ? null : run.value;
  } catch {
    return null;
  }
}
