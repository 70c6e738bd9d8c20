/**
 * Runtime values of the expression language and bxp's coercion rules between them.
 *
 * A value is a string, a fixed-point decimal (a `bigint`, see `decimal.ts`) or a boolean. The kind
 * matters: a non-empty string is always truthy (even `"0"`), while the number 0 is falsy; string-only
 * functions refuse numbers (`StringExpected`).
 *
 * @example
 * ```ts
 * import { toBool, toNumber, valueToString } from "./value.ts";
 * import assert from "node:assert/strict";
 * assert.equal(valueToString(toNumber("1,234.50")), "1234.5");
 * assert.equal(toBool("0"), true); // non-empty string
 * ```
 * @module
 */

import { ExprError } from "./errors.ts";
import { formatDecimal, INVALID, OVERFLOW, parseDecimal } from "./decimal.ts";

/** A runtime value: text, an exact decimal (raw `bigint` scaled by 10^12), or a boolean. */
export type Value = string | bigint | boolean;

/** Raw decimal value of 1. */
const ONE = 1_000_000_000_000n;

/**
 * True for `nan`, `inf`, `infinity` (any case, optional sign, surrounding whitespace): exports write
 * these for missing numbers, so arithmetic reads them as 0 instead of failing.
 */
export function isNonFiniteToken(s: string): boolean {
  const n = s.length;
  if (n < 3 || n > 16) return false;
  let body = s.trim();
  const c = body.charCodeAt(0);
  if (c === 43 || c === 45) body = body.slice(1);
  const lower = body.toLowerCase();
  return lower === "nan" || lower === "inf" || lower === "infinity";
}

/**
 * Parse a number written with thousands groups: `[-]d{1,3}(<th>ddd)+(<dec>d+)?`. At least one group
 * is required, so plain numbers are left to `parseDecimal`.
 *
 * @returns the raw decimal, or `null` when `s` does not have that exact shape.
 */
export function parseGroupedNumber(s: string, thousands: string, decimal: string): bigint | null {
  const n = s.length;
  let i = 0;
  if (n > 0 && s.charCodeAt(0) === 45) i = 1;
  const lead = i;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  const leadDigits = i - lead;
  if (leadDigits < 1 || leadDigits > 3) return null;
  const th = thousands.charCodeAt(0);
  let intDigits = s.slice(0, i);
  let groups = 0;
  while (i < n && s.charCodeAt(i) === th) {
    if (n - i - 1 < 3) return null;
    if (!isDigit(s.charCodeAt(i + 1)) || !isDigit(s.charCodeAt(i + 2)) || !isDigit(s.charCodeAt(i + 3))) {
      return null;
    }
    intDigits += s.slice(i + 1, i + 4);
    i += 4;
    groups++;
  }
  if (groups === 0) return null;
  let text = intDigits;
  if (i < n && s.charCodeAt(i) === decimal.charCodeAt(0)) {
    const start = ++i;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
    if (i === start) return null;
    text += "." + s.slice(start, i);
  }
  if (i !== n) return null;
  const parsed = parseDecimal(text);
  return typeof parsed === "bigint" ? parsed : null;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Coerce to a decimal, bxp style: `""` and non-finite tokens are 0, booleans are 1/0, plain numbers
 * and American-grouped numbers (`1,234.56`) parse.
 *
 * @throws ExprError `NumberOutOfRange` for a well-formed number past the range, `NotANumber` otherwise.
 */
export function toNumber(v: Value): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "boolean") return v ? ONE : 0n;
  if (v.length === 0) return 0n;
  const parsed = parseDecimal(v);
  if (typeof parsed === "bigint") return parsed;
  if (parsed === OVERFLOW) throw numberFailure(v);
  if (isNonFiniteToken(v)) return 0n;
  const grouped = parseGroupedNumber(v, ",", ".");
  if (grouped !== null) return grouped;
  throw numberFailure(v);
}

/**
 * The error {@link toNumber} throws for `v`, for a caller that has already seen {@link tryToNumber} give
 * null: it throws once, with its own span, instead of catching toNumber's throw to pin and rethrow it.
 *
 * @example
 * ```ts
 * import { numberFailure } from "./value.ts";
 * import assert from "node:assert/strict";
 * assert.equal(numberFailure("abc").error, "NotANumber");
 * assert.equal(numberFailure("1e300").error, "NumberOutOfRange");
 * ```
 */
export function numberFailure(v: string): ExprError {
  return parseDecimal(v) === OVERFLOW
    ? new ExprError("NumberOutOfRange", `number out of range: "${v}"`)
    : new ExprError("NotANumber", `not a number: "${v}"`);
}

/** `toNumber` that answers `null` instead of throwing. */
export function tryToNumber(v: Value): bigint | null {
  if (typeof v === "bigint") return v;
  if (typeof v === "boolean") return v ? ONE : 0n;
  if (v.length === 0) return 0n;
  const parsed = parseDecimal(v);
  if (typeof parsed === "bigint") return parsed;
  if (parsed === INVALID) {
    if (isNonFiniteToken(v)) return 0n;
    return parseGroupedNumber(v, ",", ".");
  }
  return null;
}

/** Truthiness: booleans as they are, numbers when non-zero, strings when non-empty (even `"0"`). */
export function toBool(v: Value): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "bigint") return v !== 0n;
  return v.length > 0;
}

/** Text form: decimals formatted (`1000.00` computed prints `1000`), booleans `true`/`false`. */
export function valueToString(v: Value): string {
  if (typeof v === "string") return v;
  if (typeof v === "bigint") return formatDecimal(v);
  return v ? "true" : "false";
}

/** Equality of `=`, `IN`, `NULLIF`, `CASE`: numeric when both sides are numbers, else exact text. */
export function valuesEqual(a: Value, b: Value): boolean {
  const an = tryToNumber(a);
  if (an !== null) {
    const bn = tryToNumber(b);
    if (bn !== null) return an === bn;
  }
  return valueToString(a) === valueToString(b);
}

/**
 * Tidy a text result that looks numeric without passing it through the fixed-point core:
 * leading-zero integers and integers longer than 15 digits stay verbatim, scientific notation is
 * expanded, trailing fractional zeros are trimmed (`1000.00` -> `1000`); anything else is unchanged.
 */
export function canonicalNumericString(s: string): string {
  const n = s.length;
  if (n === 0) return s;
  const c0 = s.charCodeAt(0);
  if (!(isDigit(c0) || c0 === 45 || c0 === 43 || c0 === 46)) return s;
  if (n >= 2 && c0 === 48 && isDigit(s.charCodeAt(1))) return s;
  // Text without a '.' or an exponent comes back unchanged whatever it parses to: skip the parse.
  let dot = -1;
  let plain = true; // [-+]digits[.digits] with a short integer part: certainly in range
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) continue;
    if (c === 46 && dot < 0) {
      dot = i;
      continue;
    }
    if (c === 101 || c === 69) {
      plain = false;
      dot = Math.max(dot, 0);
      break;
    }
    if (i === 0) continue; // the sign, checked above
    return s;
  }
  if (dot < 0) return s;
  if (n > 15 && /^[0-9]+$/.test(s)) return s;
  const signLen = c0 === 45 || c0 === 43 ? 1 : 0;
  if (plain && dot > signLen && dot <= 16 && dot < n - 1) {
    // digits '.' digits with at most 15 integer digits: a valid in-range decimal, so only the trim remains.
    let end = n;
    while (end > dot + 1 && s.charCodeAt(end - 1) === 48) end--;
    if (end === n) return s; // nothing to trim: no copy
    return s.slice(0, end === dot + 1 ? dot : end);
  }
  const parsed = parseDecimal(s);
  if (typeof parsed !== "bigint") return s;
  if (s.indexOf("e") >= 0 || s.indexOf("E") >= 0) return formatDecimal(parsed);
  if (s.indexOf(".") < 0) return s;
  let end = n;
  while (end > 1 && s.charCodeAt(end - 1) === 48) end--;
  if (end > 0 && s.charCodeAt(end - 1) === 46) end--;
  return s.slice(0, end);
}

/**
 * Rewrite a field value that uses `sep` as its decimal point (csv_decimal_separator_in) into the
 * canonical `.` form, as text. Recognised shapes: `1234,56` / `-1,5` (one separator, digits
 * otherwise) and grouped `1.234,56` / `1.234` (`.` thousands groups). Anything else is unchanged.
 */
export function normalizeDecimalSeparator(raw: string, sep: string): string {
  if (sep === "." || raw.length === 0) return raw;
  if (parseGroupedNumber(raw, ".", sep) !== null) {
    let out = "";
    for (const ch of raw) {
      if (ch === ".") continue;
      out += ch === sep ? "." : ch;
    }
    return out;
  }
  if (raw.indexOf(sep) >= 0 && isNumericWithSeparator(raw, sep)) return raw.split(sep).join(".");
  return raw;
}

/** `[-]digits[<sep>digits]`. */
function isNumericWithSeparator(s: string, sep: string): boolean {
  const n = s.length;
  let i = 0;
  if (s.charCodeAt(0) === 45) i++;
  if (i >= n || !isDigit(s.charCodeAt(i))) return false;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  if (i < n && s[i] === sep) {
    i++;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  }
  return i === n;
}

/**
 * Truthiness of a value, or of an already-printed result. Typed values follow `toBool`. For text
 * the documented row_rules rule applies: "", "false" and text reading as the number 0 are false.
 * Prefer `CompiledExpr.evaluateBool`, which keeps bxp's exact typed rule (a "0" field is truthy,
 * a computed 0 is not); printed text cannot tell those apart.
 */
export function isTruthy(v: Value): boolean {
  if (typeof v !== "string") return toBool(v);
  if (v.length === 0 || v === "false") return false;
  const n = parseDecimal(v);
  return !(typeof n === "bigint" && n === 0n);
}
