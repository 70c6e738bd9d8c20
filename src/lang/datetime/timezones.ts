/**
 * The time-zone builtins: `TO_UTC`, `TZ_OFFSET`, `TZ_CONVERT`, `IS_DST`. Zones are IANA ids,
 * `UTC` or fixed offsets (`+02:00`); an unknown zone gives "" (or false). Wall-clock arguments go
 * through the shared ISO reader: empty gives ""/false, malformed raises `InvalidDate`.
 *
 * @example
 * ```ts
 * import { toUtc, tzConvert } from "./timezones.ts";
 * import assert from "node:assert/strict";
 * assert.equal(toUtc("2024-03-15T14:23:01+02:00", "YYYY-MM-DD[T]hh:mm:ssZZ"), "2024-03-15 12:23:01");
 * assert.equal(tzConvert("2024-07-15 12:00:00", "America/New_York", "Europe/Prague"), "2024-07-15 18:00:00");
 * ```
 * @module
 */

import { formatUnixSeconds, readOrRaise } from "./builtins.ts";
import { civilToDays } from "./calendar.ts";
import { formatOffset, parseWithFormat } from "./format.ts";
import type { WallClock } from "./reader.ts";
import { findZone, localToUtc, offsetAtLocal, offsetSecondsAt, offsetSecondsAtLocal } from "./zones.ts";

/** Wall-clock fields as seconds counted as if they were UTC. */
function wallSeconds(w: WallClock): number {
  return civilToDays(w.year, w.month, w.day) * 86400 + w.hour * 3600 + w.minute * 60 + w.second;
}

/**
 * `TO_UTC(ts, fmt)`: read `ts` under `fmt` (which carries a `ZZ` offset or a literal `Z`) and
 * subtract the offset, giving `YYYY-MM-DD hh:mm:ss` in UTC. A format without `ZZ` reads as UTC.
 * "" when `ts` is empty or does not fit `fmt`.
 */
export function toUtc(ts: string, fmt: string): string {
  if (ts === "") return "";
  const parts = parseWithFormat(ts, fmt);
  if (parts === null) return "";
  return formatUnixSeconds(wallSeconds(parts) - (parts.offsetMinutes ?? 0) * 60, " ");
}

/** `TZ_OFFSET(datetime, zone)`: the `±HH:MM` offset of `zone` at local wall-clock `datetime`. */
export function tzOffset(datetime: string, zone: string): string {
  if (datetime === "") return "";
  const local = wallSeconds(readOrRaise(datetime));
  const resolved = findZone(zone);
  if (resolved === null) return "";
  return formatOffset(offsetSecondsAtLocal(resolved, local));
}

/** `TZ_CONVERT(ts, fromZone, toZone)`: wall-clock `ts` in `fromZone` as `YYYY-MM-DD hh:mm:ss` in `toZone`. */
export function tzConvert(ts: string, fromZone: string, toZone: string): string {
  if (ts === "") return "";
  const local = wallSeconds(readOrRaise(ts));
  const from = findZone(fromZone);
  const to = findZone(toZone);
  if (from === null || to === null) return "";
  const utc = localToUtc(from, local);
  return formatUnixSeconds(utc + offsetSecondsAt(to, utc), " ");
}

/** `IS_DST(datetime, zone)`: whether daylight-saving time is in effect at local `datetime`. */
export function isDst(datetime: string, zone: string): boolean {
  if (datetime === "") return false;
  const local = wallSeconds(readOrRaise(datetime));
  const resolved = findZone(zone);
  if (resolved === null) return false;
  return offsetAtLocal(resolved, local).dst;
}
