/**
 * Expression errors, named after bxp's error names so agents can switch on them.
 *
 * @example
 * ```ts
 * import { ExprError } from "./errors.ts";
 * import assert from "node:assert/strict";
 * const err = new ExprError("UnknownFunction", "unknown function 'FOO'", 0, 3);
 * assert.deepEqual(
 *   err.toJSON(),
 *   { ok: false, error: "UnknownFunction", detail: "unknown function 'FOO'", off: 0, len: 3 },
 * );
 * ```
 * @module
 */

/** The bxp error names this implementation raises. */
export type ExprErrorName =
  | "UnexpectedToken"
  | "UnexpectedEnd"
  | "UnterminatedString"
  | "UnterminatedFieldRef"
  | "ExpectedComma"
  | "ExpectedRParen"
  | "UnknownFunction"
  | "WrongArgCount"
  | "NotANumber"
  | "NumberOverflow"
  | "NumberOutOfRange"
  | "InvalidDate"
  | "SplitPartBadIndex"
  | "DateFormatBadToken"
  | "StringExpected"
  | "BadRegexPattern"
  | "UnknownVariable"
  | "NestingTooDeep"
  | "ExpressionTooLong"
  | "ExpressionTooDeep"
  | "UnexpectedChar"
  | "UnexpectedKeyword"
  | "ExpectedLParen"
  | "MalformedNumber"
  | "StringComparisonUnsupported"
  | "LookupRequiresName"
  | "BadInput"
  | "ResultTooLarge"
  | "WorkLimitExceeded";

/**
 * The base of {@link ExprError}: its prototype is `Error.prototype` (so an expression error is still an
 * `Error` to `instanceof`, `String()` and every `catch` that reads `message`), but constructing through it
 * runs no `Error` constructor. Building a real Error costs this runtime 4-7 µs, even with
 * `Error.stackTraceLimit` at 0, and a plain object tens of nanoseconds; a column whose expression failed on
 * every row made a whole conversion four times slower. An expression error is data, reported by name and
 * span: it has no stack trace to lose.
 */
const StacklessError = function StacklessError() {} as unknown as ErrorConstructor;
(StacklessError as { prototype: Error }).prototype = Error.prototype;

/**
 * A failure while parsing, checking or evaluating an expression.
 * `off`/`len` are the byte span (UTF-8) of the culprit in the source; `len` 0 means "not pinned".
 *
 * @example
 * ```ts
 * import { ExprError } from "./errors.ts";
 * import assert from "node:assert/strict";
 * const e = new ExprError("NotANumber", "'abc' is not a number", 0, 5);
 * assert.equal(e instanceof Error, true);
 * assert.equal(e.message, "NotANumber: 'abc' is not a number");
 * ```
 */
export class ExprError extends StacklessError {
  /** bxp error name, e.g. `NotANumber`. */
  readonly error: string;
  /** Human detail. */
  detail: string;
  /** Byte offset of the culprit in the expression source. */
  off: number;
  /** Byte length of the culprit; 0 when the span is unknown. */
  len: number;
  /** Did-you-mean hint (e.g. the nearest function name for `UnknownFunction`). */
  suggest: string | undefined;

  constructor(error: ExprErrorName | string, detail: string, off = 0, len = 0) {
    super();
    this.message = `${error}: ${detail}`;
    this.name = "ExprError";
    this.error = error;
    this.detail = detail;
    this.off = off;
    this.len = len;
    this.suggest = undefined;
  }

  /** True when this error is a data error (bad value at run time) that IFERROR may catch. */
  get isDataError(): boolean {
    return DATA_ERRORS.has(this.error);
  }

  /** bxp's error object shape: `off`/`len` only when the span is pinned (`len > 0`). */
  toJSON(): { ok: false; error: string; detail: string; off?: number; len?: number } {
    const out: { ok: false; error: string; detail: string; off?: number; len?: number } = {
      ok: false,
      error: this.error,
      detail: this.detail,
    };
    if (this.len > 0) {
      out.off = this.off;
      out.len = this.len;
    }
    return out;
  }
}

/**
 * Errors caused by row data rather than by the template; IFERROR catches only these.
 * Same set as bxp: a bad number, an out-of-range number, a bad date, overflow, and an
 * ordering comparison between non-numeric strings. `StringExpected` is a template mistake.
 */
export const DATA_ERRORS: ReadonlySet<string> = new Set([
  "NotANumber",
  "NumberOverflow",
  "NumberOutOfRange",
  "InvalidDate",
  "StringComparisonUnsupported",
]);
