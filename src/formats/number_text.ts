/**
 * How bxp turns number literals found in JSON and xlsx input into field text, without binary floating point.
 *
 * - JSON: an integer-looking literal (no `.`, `e`, `E`; not `-0`) is kept verbatim; a literal with an
 *   exponent is expanded through the 12-fractional-digit fixed-point core (`1.5e-3` -> `0.0015`; kept
 *   verbatim when out of range, e.g. `1e40`); any other literal has trailing zeros and then a dangling `.`
 *   trimmed (`415.20` -> `415.2`, `178.0` -> `178`).
 * - xlsx: exponent as above; otherwise trailing zeros after the `.` are trimmed (`518.740000` -> `518.74`),
 *   and a value without `.` is verbatim.
 *
 * @example
 * ```ts
 * import { jsonNumberText, xlsxNumberText } from "./number_text.ts";
 * import assert from "node:assert/strict";
 * assert.equal(jsonNumberText("1e3"), "1000");
 * assert.equal(xlsxNumberText("1.0000"), "1");
 * ```
 * @module
 */

const FRACTION_DIGITS = 12;
const SCALE = 10n ** BigInt(FRACTION_DIGITS);
// The fixed-point core is a signed 128-bit integer scaled by 1e12.
const MAX_SCALED = (1n << 127n) - 1n;

const SCIENTIFIC = /^([+-]?)(\d*)(?:\.(\d*))?[eE]([+-]?\d+)$/;

/**
 * Expand a number with an exponent to plain decimal text, rounded half away from zero to 12 fractional
 * digits, trailing zeros trimmed. Returns null when it does not parse or falls outside the core's range.
 */
export function expandScientific(text: string): string | null {
  const m = SCIENTIFIC.exec(text);
  if (!m) return null;
  const [, sign, intDigits, fracDigits = "", expText] = m;
  const digits = intDigits + fracDigits;
  if (digits.length === 0) return null;
  const exponent = Number(expText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 10_000) return null;
  // value = digits * 10^(exponent - fracDigits.length); scaled = value * 10^12
  const shift = exponent - fracDigits.length + FRACTION_DIGITS;
  let scaled: bigint;
  const mantissa = BigInt(digits);
  if (shift >= 0) {
    scaled = mantissa * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    scaled = mantissa / divisor;
    if ((mantissa % divisor) * 2n >= divisor) scaled += 1n; // half away from zero (magnitude)
  }
  if (scaled > MAX_SCALED) return null;
  return formatScaled(sign === "-" ? -scaled : scaled);
}

function formatScaled(scaled: bigint): string {
  const negative = scaled < 0n;
  const magnitude = negative ? -scaled : scaled;
  const whole = (magnitude / SCALE).toString();
  let fraction = (magnitude % SCALE).toString().padStart(FRACTION_DIGITS, "0");
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 48) end--;
  fraction = fraction.substring(0, end);
  const body = fraction.length > 0 ? `${whole}.${fraction}` : whole;
  return negative && magnitude !== 0n ? `-${body}` : body;
}

function hasExponent(text: string): boolean {
  return text.includes("e") || text.includes("E");
}

/** Field text for a JSON number literal, as bxp's JSON reader produces it. */
export function jsonNumberText(literal: string): string {
  const integerLike = !literal.includes(".") && !hasExponent(literal) && literal !== "-0";
  if (integerLike) return literal;
  if (hasExponent(literal)) return expandScientific(literal) ?? literal;
  // Plain decimal: trim trailing zeros, then a dangling point.
  let end = literal.length;
  while (end > 1 && literal.charCodeAt(end - 1) === 48) end--;
  if (end > 0 && literal.charCodeAt(end - 1) === 46) end--;
  return literal.substring(0, end);
}

/** Field text for the `<v>` of a plain numeric xlsx cell, as bxp's xlsx reader produces it. */
export function xlsxNumberText(raw: string): string {
  if (hasExponent(raw)) return expandScientific(raw) ?? raw;
  const dot = raw.indexOf(".");
  if (dot < 0) return raw;
  let end = raw.length;
  while (end > dot + 1 && raw.charCodeAt(end - 1) === 48) end--;
  if (end === dot + 1) end = dot;
  return raw.substring(0, end);
}
