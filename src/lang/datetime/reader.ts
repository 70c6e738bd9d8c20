/**
 * The one ISO reader behind the date builtins and the time-zone functions: `YYYY-MM-DD`,
 * optionally followed by ` hh:mm:ss` or `Thh:mm:ss`, optionally followed by an ISO tail
 * (fractional seconds, then `Z` or `±HH:MM`) that is checked and then ignored, because these
 * builtins work on wall-clock values. The whole string must match.
 *
 * @example
 * ```ts
 * import { readDateTime } from "./reader.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   readDateTime("2024-03-15T14:23:01.5+02:00"),
 *   { year: 2024, month: 3, day: 15, hour: 14, minute: 23, second: 1 },
 * );
 * assert.equal(readDateTime("2024/03/15"), null);
 * ```
 * @module
 */

import { isValidDate } from "./calendar.ts";
import { readOffset } from "./format.ts";

/** A wall-clock date and time; a bare date reads as midnight. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function digit(s: string, pos: number): number {
  const code = s.charCodeAt(pos);
  return code >= 0x30 && code <= 0x39 ? code - 0x30 : -1;
}

function twoDigits(s: string, pos: number): number {
  const tens = digit(s, pos);
  const ones = digit(s, pos + 1);
  return tens < 0 || ones < 0 ? -1 : tens * 10 + ones;
}

/** Parse `s` as described in the module doc; null when it does not match or names no real time. */
export function readDateTime(s: string): WallClock | null {
  if (s.length < 10 || s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d) return null;
  const century = twoDigits(s, 0);
  const yy = twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  if (century < 0 || yy < 0 || month < 0 || day < 0) return null;
  const year = century * 100 + yy;
  if (!isValidDate(year, month, day)) return null;
  if (s.length === 10) return { year, month, day, hour: 0, minute: 0, second: 0 };

  const separator = s.charCodeAt(10);
  if ((separator !== 0x20 && separator !== 0x54) || s.length < 19) return null;
  if (s.charCodeAt(13) !== 0x3a || s.charCodeAt(16) !== 0x3a) return null;
  const hour = twoDigits(s, 11);
  const minute = twoDigits(s, 14);
  const second = twoDigits(s, 17);
  if (hour < 0 || minute < 0 || second < 0 || hour > 23 || minute > 59 || second > 59) return null;
  if (!isIsoTail(s, 19)) return null;
  return { year, month, day, hour, minute, second };
}

/** True when `s` from `pos` is empty or `[.digits][Z | ±HH:MM | ±HHMM]`. */
function isIsoTail(s: string, pos: number): boolean {
  let p = pos;
  if (p < s.length && s.charCodeAt(p) === 0x2e) {
    p++;
    const firstDigit = p;
    while (p < s.length && digit(s, p) >= 0) p++;
    if (p === firstDigit) return false;
  }
  if (p === s.length) return true;
  const offset = readOffset(s, p);
  return offset !== null && offset[1] === s.length;
}
