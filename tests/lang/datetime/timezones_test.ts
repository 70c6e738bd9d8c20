import assert from "node:assert/strict";
import { ExprError } from "../../../src/lang/errors.ts";
import { isDst, toUtc, tzConvert, tzOffset } from "../../../src/lang/datetime/timezones.ts";

Deno.test("TO_UTC subtracts the parsed offset", () => {
  const fmt = "YYYY-MM-DD[T]hh:mm:ssZZ";
  assert.equal(toUtc("2024-03-15T14:23:01+02:00", fmt), "2024-03-15 12:23:01");
  assert.equal(toUtc("2024-01-15T09:00:00-05:00", fmt), "2024-01-15 14:00:00");
  assert.equal(toUtc("2024-07-15T23:45:00+09:00", fmt), "2024-07-15 14:45:00");
  assert.equal(toUtc("2024-01-01T00:30:00+01:00", fmt), "2023-12-31 23:30:00");
  assert.equal(toUtc("2024-12-31T22:00:00-05:30", fmt), "2025-01-01 03:30:00");
  assert.equal(toUtc("2024-03-15T14:23:01Z", fmt), "2024-03-15 14:23:01");
  assert.equal(toUtc("1965-06-01 10:00:00+0100", "YYYY-MM-DD hh:mm:ssZZ"), "1965-06-01 09:00:00");
  // A literal Z (no ZZ token) reads as UTC.
  assert.equal(toUtc("2024-03-15T14:23:01Z", "YYYY-MM-DD[T]hh:mm:ss[Z]"), "2024-03-15 14:23:01");
  assert.equal(toUtc("15/03/2024 2:23 PM +02:00", "DD/MM/YYYY i:mm A ZZ"), "2024-03-15 12:23:00");
  assert.equal(toUtc("", fmt), "");
  assert.equal(toUtc("2024-03-15", fmt), "");
  assert.equal(toUtc("2024-03-15T14:23:01+25:00", fmt), "");
});

Deno.test("TZ_OFFSET is DST-aware at a local wall-clock time", () => {
  assert.equal(tzOffset("2024-01-15 14:30:00", "Europe/Prague"), "+01:00");
  assert.equal(tzOffset("2024-07-15 14:30:00", "Europe/Prague"), "+02:00");
  assert.equal(tzOffset("2024-07-15", "Europe/Prague"), "+02:00");
  assert.equal(tzOffset("2024-01-15T09:00:00", "America/New_York"), "-05:00");
  assert.equal(tzOffset("2024-07-15 09:00:00", "America/New_York"), "-04:00");
  assert.equal(tzOffset("2024-07-15 12:00:00", "Asia/Kolkata"), "+05:30");
  assert.equal(tzOffset("2024-07-15 12:00:00", "America/St_Johns"), "-02:30");
  assert.equal(tzOffset("2024-07-15 12:00:00", "UTC"), "+00:00");
  assert.equal(tzOffset("2024-07-15 12:00:00", "+05:45"), "+05:45");
  assert.equal(tzOffset("2040-07-15 12:00:00", "Europe/Prague"), "+02:00");
});

Deno.test("DST changes in Europe/Prague and America/New_York", () => {
  // Prague springs forward 2024-03-31 02:00 -> 03:00 and falls back 2024-10-27 03:00 -> 02:00.
  assert.equal(tzOffset("2024-03-31 01:59:59", "Europe/Prague"), "+01:00");
  assert.equal(tzOffset("2024-03-31 03:00:00", "Europe/Prague"), "+02:00");
  assert.equal(tzOffset("2024-10-27 01:59:59", "Europe/Prague"), "+02:00");
  assert.equal(tzOffset("2024-10-27 03:00:00", "Europe/Prague"), "+01:00");
  assert.equal(isDst("2024-03-30 12:00:00", "Europe/Prague"), false);
  assert.equal(isDst("2024-03-31 12:00:00", "Europe/Prague"), true);
  assert.equal(isDst("2024-10-27 12:00:00", "Europe/Prague"), false);
  // New York springs forward 2024-03-10 02:00 -> 03:00 and falls back 2024-11-03 02:00 -> 01:00.
  assert.equal(tzOffset("2024-03-10 01:59:59", "America/New_York"), "-05:00");
  assert.equal(tzOffset("2024-03-10 03:00:00", "America/New_York"), "-04:00");
  assert.equal(tzOffset("2024-03-10 06:00:00", "America/New_York"), "-04:00");
  assert.equal(tzOffset("2024-11-03 00:59:59", "America/New_York"), "-04:00");
  assert.equal(tzOffset("2024-11-03 02:00:00", "America/New_York"), "-05:00");
  assert.equal(isDst("2024-03-10 12:00:00", "America/New_York"), true);
  assert.equal(isDst("2024-11-03 12:00:00", "America/New_York"), false);
  // Converting across a change on the UTC side is exact.
  assert.equal(tzConvert("2024-03-31 00:59:59", "UTC", "Europe/Prague"), "2024-03-31 01:59:59");
  assert.equal(tzConvert("2024-03-31 01:00:00", "UTC", "Europe/Prague"), "2024-03-31 03:00:00");
  assert.equal(tzConvert("2024-10-27 00:30:00", "UTC", "Europe/Prague"), "2024-10-27 02:30:00");
  assert.equal(tzConvert("2024-10-27 01:30:00", "UTC", "Europe/Prague"), "2024-10-27 02:30:00");
  // Inside the skipped/repeated local hour one side is chosen (documented approximation).
  assert.equal(tzOffset("2024-03-31 02:30:00", "Europe/Prague"), "+01:00");
  assert.equal(tzOffset("2024-10-27 02:30:00", "Europe/Prague"), "+01:00");
  assert.equal(tzOffset("2024-03-10 02:30:00", "America/New_York"), "-04:00");
  assert.equal(tzOffset("2024-11-03 01:30:00", "America/New_York"), "-04:00");
});

Deno.test("TZ_CONVERT between IANA zones, UTC and fixed offsets", () => {
  assert.equal(tzConvert("2024-07-15 12:00:00", "America/New_York", "Europe/Prague"), "2024-07-15 18:00:00");
  assert.equal(tzConvert("2024-01-15 14:30:00", "Europe/Prague", "America/New_York"), "2024-01-15 08:30:00");
  assert.equal(tzConvert("2024-07-15 23:45:00", "Asia/Tokyo", "America/New_York"), "2024-07-15 10:45:00");
  assert.equal(tzConvert("2024-07-15 12:00:00", "UTC", "+02:00"), "2024-07-15 14:00:00");
  assert.equal(tzConvert("2024-07-15 12:00:00", "-03:30", "UTC"), "2024-07-15 15:30:00");
  assert.equal(tzConvert("2024-12-31 23:00:00", "UTC", "Asia/Tokyo"), "2025-01-01 08:00:00");
  assert.equal(tzConvert("2024-07-15", "Europe/Prague", "UTC"), "2024-07-14 22:00:00");
  assert.equal(tzConvert("2024-07-15T12:00:00Z", "Europe/Prague", "Europe/Prague"), "2024-07-15 12:00:00");
  assert.equal(tzConvert("1960-07-15 12:00:00", "Europe/Prague", "UTC"), "1960-07-15 11:00:00");
});

Deno.test("unknown zones give '' / false; empty input too; malformed input raises", () => {
  assert.equal(tzOffset("2024-07-15 12:00:00", "Mars/Olympus"), "");
  assert.equal(tzOffset("2024-07-15 12:00:00", "europe/prague"), "");
  assert.equal(tzConvert("2024-07-15 12:00:00", "Mars/Olympus", "UTC"), "");
  assert.equal(tzConvert("2024-07-15 12:00:00", "UTC", ""), "");
  assert.equal(isDst("2024-07-15 12:00:00", "Mars/Olympus"), false);
  assert.equal(isDst("2024-07-15 12:00:00", "+02:00"), false);
  assert.equal(tzOffset("", "Europe/Prague"), "");
  assert.equal(tzConvert("", "UTC", "Europe/Prague"), "");
  assert.equal(isDst("", "Europe/Prague"), false);
  for (const call of [() => tzOffset("15.07.2024", "UTC"), () => isDst("2024-07-15 12:00", "UTC")]) {
    assert.throws(call, (err: unknown) => err instanceof ExprError && err.error === "InvalidDate");
  }
});
