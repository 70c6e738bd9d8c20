/**
 * Number functions over the fixed-point core, plus the price-string helpers.
 *
 * @module
 */

import { ExprError } from "../errors.ts";
import {
  ceilDecimal,
  divRoundHalfAway,
  floorDecimal,
  inRange,
  modDecimal,
  negDecimal,
  OVERFLOW,
  powDecimal,
  roundDecimal,
  SCALE,
  sqrtDecimal,
  truncDecimal,
} from "../decimal.ts";
import type { EagerImpl } from "../spec.ts";
import { toNumber } from "../value.ts";
import { clampInt, intArg } from "./shared.ts";

/** Largest precision ROUND / TRUNC honour (either sign). */
export const MAX_PRECISION = 30;

function overflow(what: string): ExprError {
  return new ExprError("NumberOverflow", `${what}: result is outside the numeric range (about ±1.7e26)`);
}

/** ABS(x). */
export const absImpl: EagerImpl = (args) => {
  const x = toNumber(args[0]);
  if (x >= 0n) return x;
  const r = negDecimal(x);
  if (r === OVERFLOW) throw overflow("ABS");
  return r;
};

/** SIGN(x): -1, 0 or 1. */
export const signImpl: EagerImpl = (args) => {
  const x = toNumber(args[0]);
  return x > 0n ? SCALE : x < 0n ? -SCALE : 0n;
};

/** MROUND(x, m): the multiple of `m` nearest to `x`, halves away from zero; 0 when `m` is 0. */
export const mroundImpl: EagerImpl = (args) => {
  const x = toNumber(args[0]);
  const m = toNumber(args[1]);
  if (m === 0n) return 0n;
  const r = divRoundHalfAway(x, m) * m;
  if (!inRange(r)) throw overflow("MROUND");
  return r;
};

/** ROUND(x, n): half away from zero; n clamped to ±30. */
export const roundImpl: EagerImpl = (args) =>
  roundDecimal(toNumber(args[0]), clampInt(intArg(args[1]), -MAX_PRECISION, MAX_PRECISION));

/** FLOOR(x). */
export const floorImpl: EagerImpl = (args) => floorDecimal(toNumber(args[0]));

/** CEILING(x). */
export const ceilingImpl: EagerImpl = (args) => ceilDecimal(toNumber(args[0]));

/** TRUNC(x [, n]): toward zero. */
export const truncImpl: EagerImpl = (args) =>
  truncDecimal(
    toNumber(args[0]),
    args.length > 1 ? clampInt(intArg(args[1]), -MAX_PRECISION, MAX_PRECISION) : 0,
  );

/** POWER(b, n): exact whole powers 0..1024, "" otherwise. */
export const powerImpl: EagerImpl = (args) => {
  const r = powDecimal(toNumber(args[0]), toNumber(args[1]));
  if (r === null) return "";
  if (r === OVERFLOW) throw overflow("POWER");
  return r;
};

/** SQRT(x): "" for a negative x. */
export const sqrtImpl: EagerImpl = (args) => sqrtDecimal(toNumber(args[0])) ?? "";

/** MOD(a, b): sign of a; "" when b is 0. */
export const modImpl: EagerImpl = (args) => modDecimal(toNumber(args[0]), toNumber(args[1])) ?? "";

/** GREATEST(a, ...). */
export const greatestImpl: EagerImpl = (args) => {
  let best = toNumber(args[0]);
  for (let i = 1; i < args.length; i++) {
    const v = toNumber(args[i]);
    if (v > best) best = v;
  }
  return best;
};

/** LEAST(a, ...). */
export const leastImpl: EagerImpl = (args) => {
  let best = toNumber(args[0]);
  for (let i = 1; i < args.length; i++) {
    const v = toNumber(args[i]);
    if (v < best) best = v;
  }
  return best;
};

const RAND_MAX_DIGITS = 65;

/** RAND(n): n crypto-random digits, the first 1-9; n clamped to [1, 65]. */
export const randImpl: EagerImpl = (args) => {
  const n = clampInt(intArg(args[0]), 1, RAND_MAX_DIGITS);
  const digits: string[] = [];
  const pool = new Uint8Array(n * 2 + 8);
  while (digits.length < n) {
    crypto.getRandomValues(pool);
    for (let i = 0; i < pool.length && digits.length < n; i++) {
      const b = pool[i];
      // Rejection sampling keeps every digit equally likely.
      if (digits.length === 0) {
        if (b < 252) digits.push(String(1 + (b % 9)));
      } else if (b < 250) {
        digits.push(String(b % 10));
      }
    }
  }
  return digits.join("");
};

const SYMBOLS: ReadonlyArray<readonly [string, string]> = [
  ["$", "USD"],
  ["€", "EUR"],
  ["£", "GBP"],
  ["¥", "JPY"],
  ["₽", "RUB"],
];

function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === 32) start++;
  while (end > start && s.charCodeAt(end - 1) === 32) end--;
  return s.slice(start, end);
}

/**
 * PRICE_VALUE(s): drop a leading currency symbol and anything after the first space. A sign before the
 * symbol (`-$1250.65`, as US exports write debits) is kept in front of the amount; bxp returns such text
 * unchanged, which no later number function accepts.
 */
export const priceValueImpl: EagerImpl = (args) => {
  let r = trimSpaces(args[0] as string);
  let sign = "";
  if ((r.startsWith("-") || r.startsWith("+")) && SYMBOLS.some(([symbol]) => r.startsWith(symbol, 1))) {
    sign = r[0] === "-" ? "-" : "";
    r = r.slice(1);
  }
  for (const [symbol] of SYMBOLS) {
    if (r.startsWith(symbol)) {
      r = r.slice(symbol.length);
      break;
    }
  }
  if (sign !== "") r = sign + r;
  const space = r.indexOf(" ");
  return space < 0 ? r : r.slice(0, space);
};

/** PRICE_CURRENCY(s): ISO code of a leading symbol, else the text after the first space, else "". */
export const priceCurrencyImpl: EagerImpl = (args) => {
  const r = trimSpaces(args[0] as string);
  for (const [symbol, iso] of SYMBOLS) if (r.startsWith(symbol)) return iso;
  const space = r.indexOf(" ");
  return space < 0 ? "" : r.slice(space + 1);
};
