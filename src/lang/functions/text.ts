/**
 * Text functions. Lengths and positions count UTF-8 bytes, as bxp does.
 *
 * @module
 */

import { fromInt } from "../decimal.ts";
import { utf8Length } from "../../util/utf8.ts";
import type { EagerImpl } from "../spec.ts";
import { toNumber, type Value } from "../value.ts";
import { clampInt, intArg, isAscii, trimWs, utf8Bytes, utf8Decode, utf8Slice } from "./shared.ts";
import { unaccent } from "./unaccent.ts";

/** TRIM(s): strip spaces, tabs, CR, LF; a number or boolean passes through. */
export const trimImpl: EagerImpl = (args) => typeof args[0] === "string" ? trimWs(args[0]) : args[0];

const MAX_PART = 0x7fffffffn;

/** SPLIT_PART(s, delim, n): n-th part, 1-based; "" past the end or for an empty delimiter. */
export const splitPartImpl: EagerImpl = (args) => {
  const s = args[0] as string;
  const delim = args[1] as string;
  if (delim.length === 0) return "";
  // No string holds 2^31 delimiters, so counting in a JS number beyond that changes nothing.
  const wanted = intArg(args[2]);
  let n = wanted > MAX_PART ? Number(MAX_PART) : Number(wanted);
  let from = 0;
  while (n > 1) {
    const at = s.indexOf(delim, from);
    if (at < 0) return "";
    from = at + delim.length;
    n--;
  }
  const end = s.indexOf(delim, from);
  return end < 0 ? s.slice(from) : s.slice(from, end);
};

/** CONTAINS(haystack, needle). */
export const containsImpl: EagerImpl = (args) => (args[0] as string).includes(args[1] as string);

/** STARTS_WITH(s, prefix). */
export const startsWithImpl: EagerImpl = (args) => (args[0] as string).startsWith(args[1] as string);

/** ENDS_WITH(s, suffix). */
export const endsWithImpl: EagerImpl = (args) => (args[0] as string).endsWith(args[1] as string);

/** LEN(s): UTF-8 byte count. */
export const lenImpl: EagerImpl = (args) => fromInt(utf8Length(args[0] as string));

/** LEFT(s, n): first n bytes. */
export const leftImpl: EagerImpl = (args) => {
  const s = args[0] as string;
  const t = intArg(args[1]);
  if (t < 0n) return "";
  const total = utf8Length(s);
  return utf8Slice(s, 0, clampInt(t, 0, total));
};

/** RIGHT(s, n): last n bytes. */
export const rightImpl: EagerImpl = (args) => {
  const s = args[0] as string;
  const t = intArg(args[1]);
  if (t < 0n) return "";
  const total = utf8Length(s);
  return utf8Slice(s, total - clampInt(t, 0, total), total);
};

/** SUBSTR(s, start, length): bytes from 1-based start. */
export const substrImpl: EagerImpl = (args) => {
  const s = args[0] as string;
  const start = intArg(args[1]);
  const length = intArg(args[2]);
  const total = utf8Length(s);
  if (length < 0n || start > BigInt(total)) return "";
  const begin = Number(start) - 1;
  return utf8Slice(s, begin, begin + clampInt(length, 0, total - begin));
};

/** UPPER(s): full Unicode. */
export const upperImpl: EagerImpl = (args) => (args[0] as string).toUpperCase();

/** LOWER(s): full Unicode. */
export const lowerImpl: EagerImpl = (args) => (args[0] as string).toLowerCase();

/** UNACCENT(s): bxp's diacritic stripping (see unaccent.ts). */
export const unaccentImpl: EagerImpl = (args) => {
  const s = args[0] as string;
  return isAscii(s) ? s : unaccent(s);
};

/** PROPER(s): capitalise each word (words break on anything that is not a letter). */
export const properImpl: EagerImpl = (args) => {
  const lower = (args[0] as string).toLowerCase();
  let out = "";
  let atWordStart = true;
  for (const ch of lower) {
    const c = ch.codePointAt(0)!;
    const isLetter = c >= 0x80 || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
    out += isLetter && atWordStart ? ch.toUpperCase() : ch;
    atWordStart = !isLetter;
  }
  return out;
};

/** POSITION(needle, haystack): 1-based byte position, 0 when absent. */
export const positionImpl: EagerImpl = (args) => {
  const needle = args[0] as string;
  const haystack = args[1] as string;
  const at = haystack.indexOf(needle);
  if (at < 0) return 0n;
  return fromInt(utf8Length(haystack.slice(0, at)) + 1);
};

const MAX_PAD = 65535;

function pad(args: Value[], left: boolean): Value {
  const s = args[0] as string;
  const filler = args[2] as string;
  const wanted = toNumber(args[1]);
  const target = wanted <= 0n ? 0 : clampInt(wanted / 1_000_000_000_000n, 0, MAX_PAD);
  const sBytes = utf8Length(s);
  if (sBytes >= target) return utf8Slice(s, 0, target);
  if (filler.length === 0) return s;
  const fill = target - sBytes;
  if (isAscii(s) && isAscii(filler)) {
    const run = filler.repeat(Math.ceil(fill / filler.length)).slice(0, fill);
    return left ? run + s : s + run;
  }
  const body = utf8Bytes(s);
  const unit = utf8Bytes(filler);
  const out = new Uint8Array(target);
  const fillStart = left ? 0 : sBytes;
  out.set(body, left ? fill : 0);
  for (let i = 0; i < fill; i++) out[fillStart + i] = unit[i % unit.length];
  return utf8Decode(out);
}

/** LPAD(s, len, pad). */
export const lpadImpl: EagerImpl = (args) => pad(args, true);

/** RPAD(s, len, pad). */
export const rpadImpl: EagerImpl = (args) => pad(args, false);
