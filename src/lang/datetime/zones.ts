/**
 * Time zones: IANA ids through the runtime's `Intl.DateTimeFormat` (one cached formatter per
 * zone), plus fixed offsets such as `+02:00`. Instants are whole Unix seconds.
 *
 * bxp's bundled tables start in 1970 and answer the 1970 offset for anything earlier, so instants
 * before 1970 are looked up at 1970-01-01 here too (no local mean time, no wartime offsets).
 *
 * @example
 * ```ts
 * import { findZone, localToUtc, offsetAt } from "./zones.ts";
 * import assert from "node:assert/strict";
 * const prague = findZone("Europe/Prague")!;
 * assert.equal(offsetAt(prague, 1721044800).offsetSeconds, 7200); // CEST
 * assert.equal(localToUtc(prague, 1721044800), 1721037600);
 * ```
 * @module
 */

import { civilToDays, daysToCivil } from "./calendar.ts";
import { readOffset } from "./format.ts";
import { unmeteredStep } from "../budget.ts";

/** A resolved zone: an IANA zone backed by a formatter, or a fixed offset. */
export interface Zone {
  readonly name: string;
  /** Null for a fixed offset. */
  readonly formatter: Intl.DateTimeFormat | null;
  readonly fixedOffsetSeconds: number;
}

/** The UTC offset in effect at an instant, and whether it is daylight-saving time. */
export interface ZoneOffset {
  offsetSeconds: number;
  dst: boolean;
}

const zoneCache = new Map<string, Zone | null>();
const ZONE_CACHE_LIMIT = 1024;

/**
 * Resolve a zone id: an IANA name (case-sensitive, as bxp's table is), `UTC`, or a fixed offset
 * `±HH:MM` / `±HHMM` / `Z`. Null for anything else.
 */
export function findZone(name: string): Zone | null {
  let zone = zoneCache.get(name);
  if (zone === undefined) {
    zone = resolveZone(name);
    if (zoneCache.size >= ZONE_CACHE_LIMIT) zoneCache.clear();
    zoneCache.set(name, zone);
  }
  return zone;
}

function resolveZone(name: string): Zone | null {
  if (name.length === 0) return null;
  const first = name.charCodeAt(0);
  if (first === 0x2b || first === 0x2d || name === "Z" || name === "z") {
    const read = readOffset(name, 0);
    if (read === null || read[1] !== name.length) return null;
    return { name, formatter: null, fixedOffsetSeconds: read[0] * 60 };
  }
  // Each IANA zone costs loading its rules into a formatter (about a millisecond), whatever the text.
  unmeteredStep("loading a time zone");
  let formatter: Intl.DateTimeFormat;
  try {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    return null;
  }
  // Intl accepts any letter case and offset spellings; bxp matches IANA spelling exactly.
  const canonical = formatter.resolvedOptions().timeZone;
  if (canonical !== name && canonical.toLowerCase() === name.toLowerCase()) return null;
  return { name, formatter, fixedOffsetSeconds: 0 };
}

// Rows of one file share a limited set of days, so offsets are cached per zone and UTC day: a day
// whose first and last second agree is taken to hold no change (no zone changes and changes back
// within one day), and any instant inside it gets that offset without asking Intl again.
const dayCache = new Map<string, number>();
const DAY_CACHE_LIMIT = 16384;
const MIXED_DAY = Number.NaN;

/** UTC offset of `zone` at Unix second `unix` (pre-1970 instants read as 1970-01-01). */
export function offsetSecondsAt(zone: Zone, unix: number): number {
  if (zone.formatter === null) return zone.fixedOffsetSeconds;
  const instant = unix < 0 ? 0 : unix;
  const dayStart = Math.floor(instant / 86400) * 86400;
  const key = zone.name + "@" + dayStart;
  let offset = dayCache.get(key);
  if (offset === undefined) {
    const first = computeOffset(zone.formatter, dayStart);
    offset = first === computeOffset(zone.formatter, dayStart + 86399) ? first : MIXED_DAY;
    if (dayCache.size >= DAY_CACHE_LIMIT) dayCache.clear();
    dayCache.set(key, offset);
  }
  return Number.isNaN(offset) ? computeOffset(zone.formatter, instant) : offset;
}

function computeOffset(formatter: Intl.DateTimeFormat, unix: number): number {
  let year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  let beforeCommonEra = false;
  for (const part of formatter.formatToParts(unix * 1000)) {
    switch (part.type) {
      case "year":
        year = Number(part.value);
        break;
      case "month":
        month = Number(part.value);
        break;
      case "day":
        day = Number(part.value);
        break;
      case "hour":
        hour = Number(part.value);
        break;
      case "minute":
        minute = Number(part.value);
        break;
      case "second":
        second = Number(part.value);
        break;
      case "era":
        beforeCommonEra = part.value.startsWith("B");
        break;
    }
  }
  if (beforeCommonEra) year = 1 - year;
  const local = civilToDays(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  return local - unix;
}

/**
 * Offset and DST flag of `zone` at `unix`. DST means the offset is above the zone's standard
 * offset, taken as the smaller of its mid-January and mid-July offsets that year.
 */
export function offsetAt(zone: Zone, unix: number): ZoneOffset {
  const offsetSeconds = offsetSecondsAt(zone, unix);
  if (zone.formatter === null) return { offsetSeconds, dst: false };
  const year = daysToCivil(Math.floor((unix < 0 ? 0 : unix) / 86400)).year;
  const january = offsetSecondsAt(zone, civilToDays(year, 1, 15) * 86400);
  const july = offsetSecondsAt(zone, civilToDays(year, 7, 15) * 86400);
  return { offsetSeconds, dst: offsetSeconds > Math.min(january, july) };
}

/**
 * The offset that applies to local wall-clock `localSeconds` (wall-clock seconds counted as if
 * UTC) in `zone`, found in two passes: the offset at the wall-clock reading itself gives a first
 * guess of the instant, and the offset at that guess is the answer. Exact away from DST changes;
 * a time skipped or repeated by a change resolves to one side of it rather than failing (bxp
 * documents that inside the transition hour a result can be off by the shift).
 */
export function offsetAtLocal(zone: Zone, localSeconds: number): ZoneOffset {
  return offsetAt(zone, localSeconds - offsetSecondsAt(zone, localSeconds));
}

/** Just the offset part of {@link offsetAtLocal}, without the DST probes. */
export function offsetSecondsAtLocal(zone: Zone, localSeconds: number): number {
  return offsetSecondsAt(zone, localSeconds - offsetSecondsAt(zone, localSeconds));
}

/** The UTC instant of local wall-clock `localSeconds` in `zone`, using {@link offsetAtLocal}. */
export function localToUtc(zone: Zone, localSeconds: number): number {
  return localSeconds - offsetSecondsAtLocal(zone, localSeconds);
}
