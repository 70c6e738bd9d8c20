/**
 * Small helpers shared by the function implementations.
 *
 * @module
 */

import { ExprError } from "../errors.ts";
import { truncToInt } from "../decimal.ts";
import { toNumber, type Value } from "../value.ts";

/** Strip spaces, tabs, CR and LF at both ends (bxp's notion of blank). */
export function trimWs(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isWs(s.charCodeAt(start))) start++;
  while (end > start && isWs(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

/** The value when it is text, else `StringExpected`. */
export function requireString(v: Value, what: string): string {
  if (typeof v === "string") return v;
  throw new ExprError(
    "StringExpected",
    `${what} must be text, got ${typeof v === "bigint" ? "a number" : "a boolean"}`,
  );
}

/** Integer part (toward zero) of a numeric argument. */
export function intArg(v: Value): bigint {
  return truncToInt(toNumber(v));
}

/** Clamp a bigint into [min, max] and return it as a JS number. */
export function clampInt(v: bigint, min: number, max: number): number {
  // Number() rounds only beyond 2^53, far outside any bound, and rounding keeps the order: the
  // comparisons decide as the bigint ones would, without allocating bigints per call.
  const n = Number(v);
  if (n < min) return min;
  if (n > max) return max;
  return n;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** True when every UTF-16 unit is ASCII (byte offsets equal string offsets). */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** UTF-8 bytes of `s`. */
export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Decode UTF-8 bytes (a cut through a character becomes U+FFFD). */
export function utf8Decode(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Byte range [start, end) of `s` as text. */
export function utf8Slice(s: string, start: number, end: number): string {
  if (isAscii(s)) return s.slice(start, end);
  return utf8Decode(utf8Bytes(s).subarray(start, end));
}
