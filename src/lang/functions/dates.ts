/**
 * Date and time-zone functions: argument coercion here, calendar logic in `../datetime/mod.ts`.
 *
 * Component functions (YEAR, HOUR, DATEDIFF, ...) return numbers, as in bxp, so their results
 * behave as numbers (`LEN(YEAR(d))` is `StringExpected`, `IF(HOUR(t), ...)` is false at midnight).
 *
 * @module
 */

import * as datetime from "../datetime/mod.ts";
import { dateConverter } from "../datetime/mod.ts";
import { parseDecimal } from "../decimal.ts";
import type { EagerImpl } from "../spec.ts";
import type { Value } from "../value.ts";
import { intArg, requireString } from "./shared.ts";

/** Largest day offset DATEADD / WORKDAY accept; beyond it the result is "". */
export const MAX_DAY_OFFSET = 3_652_500n;

function asNumber(text: string): Value {
  if (text.length === 0) return text;
  const parsed = parseDecimal(text);
  return typeof parsed === "bigint" ? parsed : text;
}

function dayOffset(v: Value): number | null {
  const n = intArg(v);
  if (n > MAX_DAY_OFFSET || n < -MAX_DAY_OFFSET) return null;
  return Number(n);
}

const I32_MAX = 2147483647n;

function i32(v: Value): number | null {
  const n = intArg(v);
  if (n > I32_MAX || n < -I32_MAX - 1n) return null;
  return Number(n);
}

/** NOW(). */
export const nowImpl: EagerImpl = () => datetime.nowUtc();

/** DATE_CONVERT(value, from, to). */
export const dateConvertImpl: EagerImpl = (args) =>
  datetime.dateConvert(args[0] as string, args[1] as string, args[2] as string);

/**
 * DATE_CONVERT at a call site whose two formats are literal text: formats compiled once and results
 * remembered per input (see `dateConverter`). Other call sites keep `dateConvertImpl`.
 */
export const dateConvertSpecialize = (constants: readonly (Value | undefined)[]): EagerImpl | undefined => {
  const from = constants[1];
  const to = constants[2];
  if (typeof from !== "string" || typeof to !== "string") return undefined;
  const convert = dateConverter(from, to);
  return (args) => convert(args[0] as string);
};

/** IS_DATE(d [, format]): never raises for the value; blank and non-text are false. */
export const isDateImpl: EagerImpl = (args) => {
  const d = args[0];
  if (typeof d !== "string" || d.length === 0) return false;
  if (args.length < 2) return datetime.isDate(d);
  return datetime.isDate(d, requireString(args[1], "IS_DATE format"));
};

/** DATEADD(d, n). */
export const dateAddImpl: EagerImpl = (args) => {
  const d = args[0] as string;
  if (d.length === 0) return "";
  const n = dayOffset(args[1]);
  return n === null ? "" : datetime.dateAdd(d, n);
};

/** WORKDAY(d, n). */
export const workdayImpl: EagerImpl = (args) => {
  const d = args[0] as string;
  if (d.length === 0) return "";
  const n = dayOffset(args[1]);
  return n === null ? "" : datetime.workday(d, n);
};

/** DATEDIFF(d1, d2): days from d2 to d1. */
export const dateDiffImpl: EagerImpl = (args) => {
  const a = args[0] as string;
  const b = args[1] as string;
  if (a.length === 0 || b.length === 0) return "";
  return asNumber(datetime.dateDiff(a, b));
};

function component(read: (d: string) => string): EagerImpl {
  return (args) => {
    const d = args[0] as string;
    return d.length === 0 ? "" : asNumber(read(d));
  };
}

/** YEAR(d). */
export const yearImpl: EagerImpl = component(datetime.year);
/** MONTH(d). */
export const monthImpl: EagerImpl = component(datetime.month);
/** DAY(d). */
export const dayImpl: EagerImpl = component(datetime.day);
/** WEEKDAY(d): ISO, Monday = 1. */
export const weekdayImpl: EagerImpl = component(datetime.weekday);
/** QUARTER(d). */
export const quarterImpl: EagerImpl = component(datetime.quarter);
/** WEEKNUM(d): ISO week. */
export const weeknumImpl: EagerImpl = component(datetime.weeknum);
/** HOUR(t). */
export const hourImpl: EagerImpl = component(datetime.hour);
/** MINUTE(t). */
export const minuteImpl: EagerImpl = component(datetime.minute);
/** SECOND(t). */
export const secondImpl: EagerImpl = component(datetime.second);

/** EOMONTH(d). */
export const eomonthImpl: EagerImpl = (args) => {
  const d = args[0] as string;
  return d.length === 0 ? "" : datetime.eomonth(d);
};

/** DATE_TRUNC(d, unit). */
export const dateTruncImpl: EagerImpl = (args) => datetime.dateTrunc(args[0] as string, args[1] as string);

/** NTH_DOW(year, month, weekday, n). */
export const nthDowImpl: EagerImpl = (args) => {
  const y = i32(args[0]);
  const m = i32(args[1]);
  const w = i32(args[2]);
  const n = i32(args[3]);
  if (y === null || m === null || w === null || n === null) return "";
  return datetime.nthDow(y, m, w, n);
};

/** TO_UTC(ts, format). */
export const toUtcImpl: EagerImpl = (args) => {
  const ts = args[0] as string;
  return ts.length === 0 ? "" : datetime.toUtc(ts, args[1] as string);
};

/** TZ_OFFSET(datetime, zone). */
export const tzOffsetImpl: EagerImpl = (args) => datetime.tzOffset(args[0] as string, args[1] as string);

/** TZ_CONVERT(ts, from_zone, to_zone). */
export const tzConvertImpl: EagerImpl = (args) =>
  datetime.tzConvert(args[0] as string, args[1] as string, args[2] as string);

/** IS_DST(datetime, zone): non-text arguments are simply false. */
export const isDstImpl: EagerImpl = (args) => {
  const [d, zone] = args;
  if (typeof d !== "string" || typeof zone !== "string") return false;
  return datetime.isDst(d, zone);
};
