/**
 * Civil-calendar arithmetic on plain integers: proleptic Gregorian dates as day numbers counted
 * from 1970-01-01 (negative before it). No `Date` objects, so years before 1970 and far from it
 * behave exactly like recent ones.
 *
 * @example
 * ```ts
 * import { civilToDays, daysToCivil, isoWeekday } from "./calendar.ts";
 * import assert from "node:assert/strict";
 * assert.equal(civilToDays(1970, 1, 1), 0);
 * assert.deepEqual(daysToCivil(-1), { year: 1969, month: 12, day: 31 });
 * assert.equal(isoWeekday(0), 4); // Thursday
 * ```
 * @module
 */

/** A calendar date. */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True for Gregorian leap years (divisible by 4, except centuries not divisible by 400). */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1-12) of `year`; 0 for a month outside 1-12. */
export function daysInMonth(year: number, month: number): number {
  if (month < 1 || month > 12) return 0;
  if (month === 2 && isLeapYear(year)) return 29;
  return MONTH_LENGTHS[month - 1];
}

/** True when year/month/day names a real calendar day (the year is unconstrained). */
export function isValidDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/**
 * Day number (days since 1970-01-01) of a civil date, after Howard Hinnant's days-from-civil:
 * the year is shifted to start in March so the leap day is the last day of the shifted year.
 */
export function civilToDays(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const shiftedMonth = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * shiftedMonth + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** Inverse of {@link civilToDays}. */
export function daysToCivil(days: number): CivilDate {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/** ISO weekday of a day number: Monday = 1 … Sunday = 7. */
export function isoWeekday(days: number): number {
  return (((days + 3) % 7) + 7) % 7 + 1;
}

/** ISO 8601 week number (1-53) of a date: week 1 is the Monday-based week holding the first Thursday. */
export function isoWeekNumber(year: number, month: number, day: number): number {
  const days = civilToDays(year, month, day);
  const thursday = days + 4 - isoWeekday(days);
  const thursdayYear = daysToCivil(thursday).year;
  return Math.floor((thursday - civilToDays(thursdayYear, 1, 1)) / 7) + 1;
}

/**
 * Date of the `n`-th ISO `weekday` (Mon = 1 … Sun = 7) of `month`; a negative `n` counts from the
 * month's end (-1 = last). Null when an argument is out of range or the occurrence does not exist.
 */
export function nthWeekdayOfMonth(year: number, month: number, weekday: number, n: number): CivilDate | null {
  if (month < 1 || month > 12 || weekday < 1 || weekday > 7 || n === 0) return null;
  const length = daysInMonth(year, month);
  let day: number;
  if (n > 0) {
    const firstWeekday = isoWeekday(civilToDays(year, month, 1));
    day = 1 + mod(weekday - firstWeekday, 7) + (n - 1) * 7;
  } else {
    const lastWeekday = isoWeekday(civilToDays(year, month, length));
    day = length - mod(lastWeekday - weekday, 7) + (n + 1) * 7;
  }
  if (day < 1 || day > length) return null;
  return { year, month, day };
}

/** Zero-padded decimal of a non-negative integer. */
export function pad(value: number, width: number): string {
  const text = String(value);
  return text.length >= width ? text : "0".repeat(width - text.length) + text;
}

/**
 * Canonical `YYYY-MM-DD`; null for a negative year, which has no such rendering
 * (bxp treats it like any other impossible date).
 */
export function formatIsoDate(year: number, month: number, day: number): string | null {
  if (year < 0) return null;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** Floor modulo (result has the sign of the divisor). */
function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}
