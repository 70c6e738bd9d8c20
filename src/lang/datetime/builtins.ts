/**
 * The calendar builtins: `DATEADD`, `DATEDIFF`, `WORKDAY`, `YEAR`, `MONTH`, `DAY`, `WEEKDAY`,
 * `QUARTER`, `WEEKNUM`, `EOMONTH`, `NTH_DOW`, `HOUR`, `MINUTE`, `SECOND`, `IS_DATE`, `NOW`.
 *
 * Shared contract (bxp's): an empty date argument gives "", a malformed one raises `InvalidDate`
 * (only `IS_DATE` answers instead), numbers come back as decimal strings and dates as `YYYY-MM-DD`.
 * Every date argument goes through the one ISO reader, so a timestamp works where a date does.
 *
 * @example
 * ```ts
 * import { dateAdd, weeknum } from "./builtins.ts";
 * import assert from "node:assert/strict";
 * assert.equal(dateAdd("2024-01-31", 7), "2024-02-07");
 * assert.equal(weeknum("2021-01-01"), "53");
 * ```
 * @module
 */

import { ExprError } from "../errors.ts";
import {
  civilToDays,
  daysInMonth,
  daysToCivil,
  formatIsoDate,
  isoWeekday,
  isoWeekNumber,
  nthWeekdayOfMonth,
  pad,
} from "./calendar.ts";
import { parseWithFormat } from "./format.ts";
import { readDateTime, type WallClock } from "./reader.ts";

/** Day offsets beyond ±10 000 years are treated as absurd: the result is "" (bxp's bound). */
const MAX_DAY_OFFSET = 3_652_500;

/** Read a non-empty date argument or raise `InvalidDate` naming it. */
export function readOrRaise(value: string): WallClock {
  const read = readDateTime(value);
  if (read === null) {
    throw new ExprError("InvalidDate", `invalid date '${value}': expected YYYY-MM-DD or YYYY-MM-DD hh:mm:ss`);
  }
  return read;
}

function dayNumberOf(value: string): number {
  const read = readOrRaise(value);
  return civilToDays(read.year, read.month, read.day);
}

/** `YYYY-MM-DD` of a day number; a date before year 0 raises like any impossible date. */
function isoOfDays(days: number, source: string): string {
  const date = daysToCivil(days);
  const text = formatIsoDate(date.year, date.month, date.day);
  if (text === null) throw new ExprError("InvalidDate", `date arithmetic on '${source}' goes before year 0`);
  return text;
}

/** Whole day offset (truncated toward zero), or null when it is not finite or out of bounds. */
function dayOffset(n: number): number | null {
  if (!Number.isFinite(n)) return null;
  const whole = Math.trunc(n);
  return Math.abs(whole) > MAX_DAY_OFFSET ? null : whole;
}

/** `DATEADD(d, n)`: `d` plus `n` calendar days. */
export function dateAdd(d: string, n: number): string {
  if (d === "") return "";
  const offset = dayOffset(n);
  if (offset === null) return "";
  return isoOfDays(dayNumberOf(d) + offset, d);
}

/** `DATEDIFF(d1, d2)`: calendar days from `d2` to `d1` (positive when `d1` is later). */
export function dateDiff(d1: string, d2: string): string {
  if (d1 === "" || d2 === "") return "";
  const first = dayNumberOf(d1);
  return String(first - dayNumberOf(d2));
}

/**
 * `WORKDAY(d, n)`: step `n` business days (Mon-Fri) from `d`; negative steps back, 0 returns `d`
 * unchanged even on a weekend. Each step moves one day and counts it only if it is a weekday.
 */
export function workday(d: string, n: number): string {
  if (d === "") return "";
  const offset = dayOffset(n);
  if (offset === null) return "";
  let days = dayNumberOf(d);
  let remaining = offset;
  const direction = remaining > 0 ? 1 : -1;
  const step = () => {
    days += direction;
    if (isoWeekday(days) <= 5) remaining -= direction;
  };
  // From a weekday, five counted steps always span exactly one week, so whole weeks jump at once.
  while (remaining !== 0 && isoWeekday(days) > 5) step();
  const weeks = Math.trunc(remaining / 5);
  days += weeks * 7;
  remaining -= weeks * 5;
  while (remaining !== 0) step();
  return isoOfDays(days, d);
}

/** Apply `pick` to a read date argument; "" for an empty argument. */
function component(value: string, pick: (read: WallClock) => number): string {
  if (value === "") return "";
  return String(pick(readOrRaise(value)));
}

/** `YEAR(d)`. */
export function year(d: string): string {
  return component(d, (r) => r.year);
}

/** `MONTH(d)`: 1-12. */
export function month(d: string): string {
  return component(d, (r) => r.month);
}

/** `DAY(d)`: 1-31. */
export function day(d: string): string {
  return component(d, (r) => r.day);
}

/** `WEEKDAY(d)`: ISO day of week, Monday = 1 … Sunday = 7. */
export function weekday(d: string): string {
  return component(d, (r) => isoWeekday(civilToDays(r.year, r.month, r.day)));
}

/** `QUARTER(d)`: 1-4. */
export function quarter(d: string): string {
  return component(d, (r) => Math.ceil(r.month / 3));
}

/** `WEEKNUM(d)`: ISO 8601 week number, 1-53 (2021-01-01 is week 53, 2024-12-30 week 1). */
export function weeknum(d: string): string {
  return component(d, (r) => isoWeekNumber(r.year, r.month, r.day));
}

/** `HOUR(t)`: 0-23; a bare date reads as midnight. */
export function hour(t: string): string {
  return component(t, (r) => r.hour);
}

/** `MINUTE(t)`: 0-59. */
export function minute(t: string): string {
  return component(t, (r) => r.minute);
}

/** `SECOND(t)`: 0-59. */
export function second(t: string): string {
  return component(t, (r) => r.second);
}

/** `EOMONTH(d)`: last day of `d`'s month as `YYYY-MM-DD`. */
export function eomonth(d: string): string {
  if (d === "") return "";
  const read = readOrRaise(d);
  return formatIsoDate(read.year, read.month, daysInMonth(read.year, read.month)) ?? "";
}

/** The periods `DATE_TRUNC` cuts to. */
export const TRUNC_UNITS = ["year", "quarter", "month", "week", "day"] as const;

/**
 * `DATE_TRUNC(d, unit)`: the first day of the `unit` (year, quarter, month, ISO week starting on Monday, or
 * day) that contains `d`, as `YYYY-MM-DD`; a time of day is dropped.
 */
export function dateTrunc(d: string, unit: string): string {
  const u = unit.toLowerCase();
  if (!(TRUNC_UNITS as readonly string[]).includes(u)) {
    throw new ExprError(
      "BadInput",
      `DATE_TRUNC unit must be one of ${TRUNC_UNITS.join(", ")}, got '${unit}'`,
    );
  }
  if (d === "") return "";
  const read = readOrRaise(d);
  if (u === "week") {
    const days = civilToDays(read.year, read.month, read.day);
    return isoOfDays(days - (isoWeekday(days) - 1), d);
  }
  const month = u === "year" ? 1 : u === "quarter" ? read.month - ((read.month - 1) % 3) : read.month;
  return formatIsoDate(read.year, month, u === "day" ? read.day : 1) ?? "";
}

/** Whole 32-bit integer (truncated toward zero), or null outside that range / not finite. */
function toInt32(n: number): number | null {
  if (!Number.isFinite(n)) return null;
  const whole = Math.trunc(n);
  return whole > 2147483647 || whole < -2147483648 ? null : whole;
}

/**
 * `NTH_DOW(year, month, weekday, n)`: the `n`-th ISO `weekday` of the month (negative `n` counts
 * from the end); "" when it does not exist or an argument is out of range.
 */
export function nthDow(year: number, month: number, weekday: number, n: number): string {
  const y = toInt32(year), m = toInt32(month), w = toInt32(weekday), k = toInt32(n);
  if (y === null || m === null || w === null || k === null) return "";
  const date = nthWeekdayOfMonth(y, m, w, k);
  if (date === null) return "";
  const text = formatIsoDate(date.year, date.month, date.day);
  if (text === null) throw new ExprError("InvalidDate", `NTH_DOW year ${y} is before year 0`);
  return text;
}

/**
 * `IS_DATE(value [, fmt])`: whether `value` reads as a date — by the ISO reader, or under `fmt`
 * exactly as `DATE_CONVERT` would read it. Never raises; blank is false.
 */
export function isDate(value: string, fmt?: string): boolean {
  if (value.trim() === "") return false;
  if (fmt === undefined) return readDateTime(value) !== null;
  return parseWithFormat(value, fmt) !== null;
}

/** `NOW()`: the current UTC time as `YYYY-MM-DDTHH:MM:SSZ`. */
export function nowUtc(): string {
  const unix = Math.floor(Date.now() / 1000);
  return formatUnixSeconds(unix, "T") + "Z";
}

/** `YYYY-MM-DD<sep>hh:mm:ss` of Unix seconds; null before year 0. */
export function formatUnixSeconds(unix: number, separator: string): string {
  const days = Math.floor(unix / 86400);
  const rest = unix - days * 86400;
  const date = daysToCivil(days);
  const iso = formatIsoDate(date.year, date.month, date.day);
  if (iso === null) return "";
  const hh = Math.floor(rest / 3600), mm = Math.floor((rest % 3600) / 60), ss = rest % 60;
  return `${iso}${separator}${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}`;
}
