/**
 * Results written as they are. An expression's text result that looks numeric is written in bxp's shortest
 * form (`185.50` -> `185.5`, see `canonicalNumericString`). A function whose purpose is its exact text
 * (`FORMAT_NUMBER`, `AS_TEXT`) marks what it produced during the current evaluation, and an expression
 * whose result is one of those texts is written unchanged, however deep the call sits (`IF(..,
 * FORMAT_NUMBER([x], 2), ..)` keeps its two decimals).
 *
 * @example
 * ```ts
 * import { asWritten, startEvaluation, writtenAsIs } from "./as_written.ts";
 * import assert from "node:assert/strict";
 * startEvaluation();
 * asWritten("185.50");
 * assert.equal(writtenAsIs("185.50"), true);
 * assert.equal(writtenAsIs("185.5"), false);
 * startEvaluation();
 * assert.equal(writtenAsIs("185.50"), false);
 * ```
 * @module
 */

/** What marked functions produced in this evaluation (evaluations do not nest; see compile.ts). */
const produced: string[] = [];
/** More marks than this in one evaluation are not kept (they still concatenate, as any text does). */
const MAX_MARKS = 64;

/** Forgets the marks of the previous evaluation. */
export function startEvaluation(): void {
  if (produced.length !== 0) produced.length = 0;
}

/** Marks `text` as produced by a function whose result is written as it is; returns it. */
export function asWritten(text: string): string {
  if (produced.length < MAX_MARKS) produced.push(text);
  return text;
}

/** True when the evaluation's result `text` is a text a marked function produced in it. */
export function writtenAsIs(text: string): boolean {
  return produced.length !== 0 && produced.includes(text);
}
