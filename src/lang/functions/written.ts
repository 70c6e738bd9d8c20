/**
 * Functions whose text result is written exactly as it is (see `../as_written.ts`): `FORMAT_NUMBER` for
 * targets that need fixed decimals or other separators (`185.50`, `185,50`, `1 234,50`), and `AS_TEXT` to
 * keep a value's text as the input wrote it (`1111.0`, `007.50`).
 *
 * @example
 * ```ts
 * import { formatNumberText } from "./written.ts";
 * import assert from "node:assert/strict";
 * assert.equal(formatNumberText(1234_500_000_000_000n, 2, ",", " "), "1 234,50");
 * assert.equal(formatNumberText(-4_999_000_000_000n, 2, ".", ""), "-5.00");
 * ```
 * @module
 */

import { roundDecimal, SCALE_DIGITS } from "../decimal.ts";
import { ExprError } from "../errors.ts";
import type { EagerImpl } from "../spec.ts";
import { toNumber, valueToString } from "../value.ts";
import { asWritten } from "../as_written.ts";
import { clampInt, intArg } from "./shared.ts";

/** Longest separator accepted (a non-breaking or narrow space is one character; `'` is one too). */
const MAX_SEPARATOR_CHARS = 3;

/** `raw` rounded half away from zero to `decimals` places, with those separators. */
export function formatNumberText(raw: bigint, decimals: number, decimal: string, group: string): string {
  const rounded = roundDecimal(raw, decimals);
  const negative = rounded < 0n;
  const digits = (negative ? -rounded : rounded).toString().padStart(SCALE_DIGITS + 1, "0");
  const intDigits = digits.slice(0, digits.length - SCALE_DIGITS);
  const frac = digits.slice(digits.length - SCALE_DIGITS, digits.length - SCALE_DIGITS + decimals);
  let int = intDigits;
  if (group !== "" && intDigits.length > 3) {
    const parts: string[] = [];
    let end = intDigits.length;
    for (; end > 3; end -= 3) parts.unshift(intDigits.slice(end - 3, end));
    parts.unshift(intDigits.slice(0, end));
    int = parts.join(group);
  }
  // A value that rounds to zero is written without a sign ("-0.00" is no amount a target accepts).
  return (negative ? "-" : "") + (decimals > 0 ? int + decimal + frac : int);
}

function separator(v: string, what: string, allowEmpty: boolean): string {
  if (v === "" && allowEmpty) return v;
  if (v === "" || [...v].length > MAX_SEPARATOR_CHARS || /[0-9+\-]/.test(v)) {
    throw new ExprError(
      "BadInput",
      `FORMAT_NUMBER: ${what} must be 1 to ${MAX_SEPARATOR_CHARS} characters and no digit or sign, got '${v}'`,
    );
  }
  return v;
}

/** FORMAT_NUMBER(x, decimals [, decimal_separator [, group_separator]]). */
export const formatNumberImpl: EagerImpl = (args) => {
  const x = toNumber(args[0]);
  const decimals = clampInt(intArg(args[1]), 0, SCALE_DIGITS);
  const decimal = args.length > 2 ? separator(args[2] as string, "decimal_separator", false) : ".";
  const group = args.length > 3 ? separator(args[3] as string, "group_separator", true) : "";
  if (group !== "" && group === decimal) {
    throw new ExprError("BadInput", `FORMAT_NUMBER: the group and decimal separators are both '${group}'`);
  }
  return asWritten(formatNumberText(x, decimals, decimal, group));
};

/** AS_TEXT(value): the value's text, written as it is. */
export const asTextImpl: EagerImpl = (args) => asWritten(valueToString(args[0]));
