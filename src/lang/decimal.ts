/**
 * Exact fixed-point decimals: a `bigint` holding the value times 10^12 (12 fractional digits).
 *
 * The range is that of a signed 128-bit integer at that scale, about ±1.7e26. `+`/`-` are exact;
 * `*`, `/` and rounding round the 12th fractional digit half away from zero. No binary floating point
 * is involved anywhere, so `0.02 + 0.08` is exactly `0.1`.
 *
 * @example
 * ```ts
 * import { divDecimal, formatDecimal, parseDecimal } from "./decimal.ts";
 * import assert from "node:assert/strict";
 * const one = parseDecimal("1") as bigint;
 * assert.equal(formatDecimal(divDecimal(one, parseDecimal("3") as bigint) as bigint), "0.333333333333");
 * ```
 * @module
 */

/** Number of fractional digits kept. */
export const SCALE_DIGITS = 12;
/** 10^12: the raw value of 1. */
export const SCALE = 1_000_000_000_000n;
/** Largest raw value (2^127 - 1). */
export const MAX_RAW: bigint = (1n << 127n) - 1n;
/** Smallest raw value (-2^127). */
export const MIN_RAW: bigint = -(1n << 127n);

/** Parse failure: the text is not a plain number. */
export const INVALID = "invalid" as const;
/** Parse or arithmetic failure: a well-formed number outside the representable range. */
export const OVERFLOW = "overflow" as const;
/** Why a parse failed. */
export type ParseFailure = typeof INVALID | typeof OVERFLOW;

const POW10: bigint[] = [];
for (let i = 0, p = 1n; i <= 80; i++, p *= 10n) POW10.push(p);

/** 10^e as a bigint (cached for small exponents). */
export function pow10(e: number): bigint {
  return e < POW10.length ? POW10[e] : 10n ** BigInt(e);
}

/** True when `raw` lies inside the representable range. */
export function inRange(raw: bigint): boolean {
  return raw <= MAX_RAW && raw >= MIN_RAW;
}

/** `num / den` rounded half away from zero. `den` must not be zero. */
export function divRoundHalfAway(num: bigint, den: bigint): bigint {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  // bigint division truncates toward zero, so the remainder carries the sign of `num`.
  const q = num / den;
  const r2 = (num - q * den) * 2n;
  if (r2 >= den) return q + 1n;
  if (-r2 >= den) return q - 1n;
  return q;
}

/**
 * Parse a plain number: optional `+`/`-`, digits with at most one `.`, optional exponent (`e`/`E`,
 * signed, up to 4 digits). No whitespace, no grouping. Digits past the 12th fractional place are
 * rounded half away from zero.
 *
 * @returns the raw scaled value, `INVALID` for anything else, or `OVERFLOW` when out of range.
 */
export function parseDecimal(s: string): bigint | ParseFailure {
  const n = s.length;
  if (n === 0) return INVALID;
  let i = 0;
  let negative = false;
  let c = s.charCodeAt(0);
  if (c === 43) i++;
  else if (c === 45) {
    negative = true;
    i++;
  }
  const mantStart = i;
  let dot = -1;
  let digitCount = 0;
  let expAt = -1;
  for (; i < n; i++) {
    c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      digitCount++;
    } else if (c === 46) {
      if (dot >= 0) return INVALID;
      dot = i;
    } else if (c === 101 || c === 69) {
      expAt = i;
      break;
    } else {
      return INVALID;
    }
  }
  if (digitCount === 0) return INVALID;
  let exp = 0;
  if (expAt >= 0) {
    i = expAt + 1;
    let expNegative = false;
    if (i < n && (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45)) {
      expNegative = s.charCodeAt(i) === 45;
      i++;
    }
    const expDigitsStart = i;
    for (; i < n; i++) {
      c = s.charCodeAt(i);
      if (c < 48 || c > 57) return INVALID;
      exp = exp * 10 + (c - 48);
    }
    const expDigits = n - expDigitsStart;
    if (expDigits === 0 || expDigits > 4) return INVALID;
    if (expNegative) exp = -exp;
  }
  const mantEnd = expAt >= 0 ? expAt : n;
  const frac = dot < 0 ? 0 : mantEnd - dot - 1;
  const shiftFast = exp - frac + SCALE_DIGITS;
  if (digitCount <= 15 && shiftFast >= 0 && shiftFast <= 48) {
    // Fast path: the mantissa fits a double exactly, so build it without string concatenation.
    let mant = 0;
    for (let k = mantStart; k < mantEnd; k++) {
      const d = s.charCodeAt(k);
      if (d !== 46) mant = mant * 10 + (d - 48);
    }
    const raw = BigInt(mant) * pow10(shiftFast);
    const signed = negative ? -raw : raw;
    // Below 10^15 * 10^23 = 10^38 < 2^127 the range check cannot fail: skip its bigint compares.
    if (shiftFast <= 23) return signed;
    return inRange(signed) ? signed : OVERFLOW;
  }
  const digits = dot < 0 ? s.slice(mantStart, mantEnd) : s.slice(mantStart, dot) + s.slice(dot + 1, mantEnd);
  const shift = exp - frac + SCALE_DIGITS;
  let raw: bigint;
  if (shift >= 0) {
    // Fast path: the common "123.45" shape needs only zero padding.
    if (shift > 48) return /^0*$/.test(digits) ? 0n : OVERFLOW;
    raw = BigInt(shift === 0 ? digits : digits + "0".repeat(shift));
  } else {
    const drop = -shift;
    if (drop > 60 + digits.length) return 0n;
    raw = divRoundHalfAway(BigInt(digits), pow10(drop));
  }
  if (negative) raw = -raw;
  return inRange(raw) ? raw : OVERFLOW;
}

/**
 * Format a raw value: integer part plus up to 12 fractional digits, trailing zeros trimmed, no
 * dot when nothing fractional remains, never `-0`.
 */
export function formatDecimal(raw: bigint): string {
  if (raw === 0n) return "0";
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString();
  let intPart: string;
  let fracPart: string;
  if (digits.length > SCALE_DIGITS) {
    intPart = digits.slice(0, digits.length - SCALE_DIGITS);
    fracPart = digits.slice(digits.length - SCALE_DIGITS);
  } else {
    intPart = "0";
    fracPart = digits.padStart(SCALE_DIGITS, "0");
  }
  let end = fracPart.length;
  while (end > 0 && fracPart.charCodeAt(end - 1) === 48) end--;
  const text = end === 0 ? intPart : intPart + "." + fracPart.slice(0, end);
  return negative ? "-" + text : text;
}

/** Raw value of the integer `n`. */
export function fromInt(n: number | bigint): bigint {
  return BigInt(n) * SCALE;
}

/** Integer part, truncated toward zero. */
export function truncToInt(raw: bigint): bigint {
  return raw / SCALE;
}

/** JS number approximation (for handing day counts and similar to other modules). */
export function toJsNumber(raw: bigint): number {
  return Number(raw) / 1e12;
}

/** Exact sum, or `OVERFLOW`. */
export function addDecimal(a: bigint, b: bigint): bigint | typeof OVERFLOW {
  const r = a + b;
  return inRange(r) ? r : OVERFLOW;
}

/** Exact difference, or `OVERFLOW`. */
export function subDecimal(a: bigint, b: bigint): bigint | typeof OVERFLOW {
  const r = a - b;
  return inRange(r) ? r : OVERFLOW;
}

/** Product rounded half away from zero at the 12th digit, or `OVERFLOW`. */
export function mulDecimal(a: bigint, b: bigint): bigint | typeof OVERFLOW {
  const r = divRoundHalfAway(a * b, SCALE);
  return inRange(r) ? r : OVERFLOW;
}

/** Quotient rounded half away from zero, `null` on division by zero, or `OVERFLOW`. */
export function divDecimal(a: bigint, b: bigint): bigint | null | typeof OVERFLOW {
  if (b === 0n) return null;
  const r = divRoundHalfAway(a * SCALE, b);
  return inRange(r) ? r : OVERFLOW;
}

/** Negation, or `OVERFLOW` (only for the smallest value). */
export function negDecimal(a: bigint): bigint | typeof OVERFLOW {
  const r = -a;
  return inRange(r) ? r : OVERFLOW;
}

/** Largest integer value not above `a`. */
export function floorDecimal(a: bigint): bigint {
  let q = a / SCALE;
  if (a < 0n && q * SCALE !== a) q -= 1n;
  return q * SCALE;
}

/** Smallest integer value not below `a`. */
export function ceilDecimal(a: bigint): bigint {
  let q = a / SCALE;
  if (a > 0n && q * SCALE !== a) q += 1n;
  return q * SCALE;
}

/**
 * Round to `places` fractional digits (negative = tens, hundreds, ...), half away from zero.
 * `places >= 12` changes nothing; a result that would leave the range leaves `a` unchanged.
 */
export function roundDecimal(a: bigint, places: number): bigint {
  if (places >= SCALE_DIGITS) return a;
  const drop = SCALE_DIGITS - places;
  if (drop > 48) return a;
  const unit = pow10(drop);
  const r = divRoundHalfAway(a, unit) * unit;
  return inRange(r) ? r : a;
}

/** Cut toward zero after `places` fractional digits (negative = tens, hundreds, ...). */
export function truncDecimal(a: bigint, places: number): bigint {
  const drop = SCALE_DIGITS - places;
  if (drop <= 0) return a;
  if (drop > 38) return 0n;
  const unit = pow10(drop);
  return (a / unit) * unit;
}

/** Remainder with the sign of the dividend; `null` when `b` is zero. */
export function modDecimal(a: bigint, b: bigint): bigint | null {
  if (b === 0n) return null;
  return a - b * (a / b);
}

/**
 * `base` to the whole power `n` (0..1024), computed exactly and rounded once into the scale.
 * Returns `null` when `n` is fractional, negative or too large, `OVERFLOW` past the range.
 */
export function powDecimal(base: bigint, n: bigint): bigint | null | typeof OVERFLOW {
  if (n % SCALE !== 0n) return null;
  const e = n / SCALE;
  if (e < 0n || e > 1024n) return null;
  if (e === 0n) return SCALE;
  const k = Number(e);
  // Early exit keeps a typo'd exponent on a big base from building a huge intermediate.
  const absBase = base < 0n ? -base : base;
  if (absBase >= 2n * SCALE && k > 90) return OVERFLOW;
  const r = divRoundHalfAway(base ** e, pow10(SCALE_DIGITS * (k - 1)));
  return inRange(r) ? r : OVERFLOW;
}

/** Square root correctly rounded to the scale; `null` for a negative operand. */
export function sqrtDecimal(a: bigint): bigint | null {
  if (a < 0n) return null;
  if (a === 0n) return 0n;
  const target = a * SCALE; // sqrt(a / 1e12) * 1e12 = sqrt(a * 1e12)
  // Newton's method from a power of two above the root decreases monotonically to floor(sqrt).
  let x = 1n << BigInt(Math.ceil(target.toString(2).length / 2));
  for (;;) {
    const y = (x + target / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  // Round half up: exact ties cannot happen because (2x+1)^2 is odd and 4*target is even.
  if (4n * target >= (2n * x + 1n) * (2n * x + 1n)) x += 1n;
  return x;
}
