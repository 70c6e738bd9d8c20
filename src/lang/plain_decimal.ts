/**
 * Allocation-free reading of money-sized decimal text, for comparisons on the per-row hot path.
 *
 * Most numeric fields are short plain decimals (`523.45`, `-3`, `0.5`). Parsing them into the bigint
 * fixed-point form costs several bigint allocations per row; here they become two exact doubles
 * instead: the integer part (at most 15 digits, so below 2^53) and the fraction scaled to 12 digits
 * (below 10^12), both carrying the sign. Text outside that shape is refused, and callers fall back to
 * the general path (`tryToNumber`), so results never depend on which path ran.
 *
 * @example
 * ```ts
 * import { comparePlain, PlainDecimalReader } from "./plain_decimal.ts";
 * import assert from "node:assert/strict";
 * const a = new PlainDecimalReader();
 * const b = new PlainDecimalReader();
 * assert.equal(a.read("-1.5") && b.read("0.25"), true);
 * assert.equal(comparePlain(a.int, a.frac, b.int, b.frac), -1);
 * ```
 * @module
 */

import { SCALE } from "./decimal.ts";

/** Integer digits accepted: 15 keep the integer part exact in a double. */
const MAX_INT_DIGITS = 15;
/** Fractional digits accepted: up to the fixed-point scale, so nothing is rounded. */
const MAX_FRAC_DIGITS = 12;
/** Longest accepted text: sign, integer digits, dot, fractional digits. */
const MAX_LENGTH = 1 + MAX_INT_DIGITS + 1 + MAX_FRAC_DIGITS;

const FRAC_SCALE: readonly number[] = Array.from({ length: MAX_FRAC_DIGITS + 1 }, (_, k) => 10 ** (12 - k));

/**
 * Reads `[+-]digits[.digits]` (at least one digit, at most 15 before and 12 after the dot) into two
 * exact doubles. One reader holds one result, so a caller comparing two texts keeps two readers.
 */
export class PlainDecimalReader {
  /** Integer part, truncated toward zero, with the sign of the value (may be -0). */
  int = 0;
  /** Fraction times 10^12, with the sign of the value (may be -0). */
  frac = 0;

  /**
   * Read `s`; true when it has the plain shape, and then `int`/`frac` hold its exact value (the same
   * value `parseDecimal` gives). False leaves `int`/`frac` unspecified.
   */
  read(s: string): boolean {
    const n = s.length;
    if (n === 0 || n > MAX_LENGTH) return false;
    let i = 0;
    let c = s.charCodeAt(0);
    const negative = c === 45;
    if (negative || c === 43) i = 1;
    const intStart = i;
    let int = 0;
    for (; i < n; i++) {
      c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      int = int * 10 + (c - 48);
    }
    const intDigits = i - intStart;
    if (intDigits > MAX_INT_DIGITS) return false;
    let frac = 0;
    let fracDigits = 0;
    if (i < n) {
      if (c !== 46) return false;
      const fracStart = ++i;
      for (; i < n; i++) {
        c = s.charCodeAt(i);
        if (c < 48 || c > 57) return false;
        frac = frac * 10 + (c - 48);
      }
      fracDigits = i - fracStart;
      if (fracDigits > MAX_FRAC_DIGITS) return false;
    }
    if (intDigits + fracDigits === 0) return false;
    frac *= FRAC_SCALE[fracDigits];
    this.int = negative ? -int : int;
    this.frac = negative ? -frac : frac;
    return true;
  }

  /**
   * Load a raw fixed-point value (value × 10^12); true when its integer part is exact as a double,
   * false (nothing loaded) otherwise. Used once per compiled constant, never per row.
   */
  load(raw: bigint): boolean {
    const whole = raw / SCALE;
    if (whole > BigInt(Number.MAX_SAFE_INTEGER) || whole < -BigInt(Number.MAX_SAFE_INTEGER)) return false;
    this.int = Number(whole);
    this.frac = Number(raw % SCALE);
    return true;
  }
}

/**
 * Order of two values read by {@link PlainDecimalReader}: -1, 0 or 1.
 * The integer parts truncate toward zero, which is monotonic, so a smaller integer part means a smaller
 * value; equal integer parts leave the (same-signed) fractions to decide.
 */
export function comparePlain(aInt: number, aFrac: number, bInt: number, bFrac: number): number {
  if (aInt !== bInt) return aInt < bInt ? -1 : 1;
  if (aFrac !== bFrac) return aFrac < bFrac ? -1 : 1;
  return 0;
}
