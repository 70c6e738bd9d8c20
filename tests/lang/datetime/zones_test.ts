import assert from "node:assert/strict";
import { civilToDays } from "../../../src/lang/datetime/calendar.ts";
import {
  findZone,
  localToUtc,
  offsetAt,
  offsetAtLocal,
  offsetSecondsAt,
  type Zone,
} from "../../../src/lang/datetime/zones.ts";

function unix(year: number, month: number, day: number, hour = 0, minute = 0): number {
  return civilToDays(year, month, day) * 86400 + hour * 3600 + minute * 60;
}

function zone(name: string): Zone {
  const found = findZone(name);
  assert.ok(found, name);
  return found;
}

Deno.test("findZone: IANA ids (exact spelling), UTC, fixed offsets; unknown is null", () => {
  assert.ok(findZone("Europe/Prague"));
  assert.ok(findZone("America/New_York"));
  assert.ok(findZone("UTC"));
  assert.ok(findZone("Asia/Kolkata"));
  assert.equal(findZone("Not/AZone"), null);
  assert.equal(findZone(""), null);
  assert.equal(findZone("europe/prague"), null);
  assert.equal(findZone("+25:00"), null);
  assert.equal(findZone("+02:00x"), null);
  assert.equal(findZone("+02:00")?.fixedOffsetSeconds, 7200);
  assert.equal(findZone("-0530")?.fixedOffsetSeconds, -19800);
  assert.equal(findZone("Europe/Prague"), findZone("Europe/Prague"));
});

Deno.test("offsetAt: CET/CEST and EST/EDT with DST flags", () => {
  const prague = zone("Europe/Prague");
  assert.deepEqual(offsetAt(prague, 1705320000), { offsetSeconds: 3600, dst: false });
  assert.deepEqual(offsetAt(prague, 1721044800), { offsetSeconds: 7200, dst: true });
  const newYork = zone("America/New_York");
  assert.deepEqual(offsetAt(newYork, 1705320000), { offsetSeconds: -18000, dst: false });
  assert.deepEqual(offsetAt(newYork, 1721044800), { offsetSeconds: -14400, dst: true });
  assert.deepEqual(offsetAt(zone("Asia/Kolkata"), 1721044800), { offsetSeconds: 19800, dst: false });
  assert.deepEqual(offsetAt(zone("UTC"), 1721044800), { offsetSeconds: 0, dst: false });
  assert.deepEqual(offsetAt(zone("+02:00"), 1721044800), { offsetSeconds: 7200, dst: false });
  // Southern hemisphere: Sydney's summer is in January.
  assert.deepEqual(offsetAt(zone("Australia/Sydney"), 1705320000), { offsetSeconds: 39600, dst: true });
  assert.deepEqual(offsetAt(zone("Australia/Sydney"), 1721044800), { offsetSeconds: 36000, dst: false });
});

Deno.test("offsetAt: transition instants and far-future years", () => {
  const prague = zone("Europe/Prague");
  // 2024-03-31 01:00 UTC: CET -> CEST; 2024-10-27 01:00 UTC: back.
  assert.equal(offsetSecondsAt(prague, unix(2024, 3, 31, 1) - 1), 3600);
  assert.equal(offsetSecondsAt(prague, unix(2024, 3, 31, 1)), 7200);
  assert.equal(offsetSecondsAt(prague, unix(2024, 10, 27, 1) - 1), 7200);
  assert.equal(offsetSecondsAt(prague, unix(2024, 10, 27, 1)), 3600);
  assert.deepEqual(offsetAt(prague, unix(2040, 7, 1, 12)), { offsetSeconds: 7200, dst: true });
  assert.deepEqual(offsetAt(prague, unix(2040, 1, 1, 12)), { offsetSeconds: 3600, dst: false });
});

Deno.test("offsetAt: instants before 1970 read as 1970-01-01 (bxp's tables start there)", () => {
  const prague = zone("Europe/Prague");
  assert.equal(offsetSecondsAt(prague, unix(1944, 7, 1, 12)), 3600); // not the wartime +02:00
  assert.equal(offsetSecondsAt(prague, unix(1850, 1, 1)), 3600); // not local mean time
  assert.equal(offsetSecondsAt(zone("America/New_York"), unix(1960, 7, 1)), -18000);
});

Deno.test("local wall clock to UTC: exact away from transitions", () => {
  const prague = zone("Europe/Prague");
  assert.equal(localToUtc(prague, unix(2024, 1, 15, 14, 30)), unix(2024, 1, 15, 13, 30));
  assert.equal(localToUtc(prague, unix(2024, 7, 15, 14, 30)), unix(2024, 7, 15, 12, 30));
  // Just before and after each change.
  assert.equal(localToUtc(prague, unix(2024, 3, 31, 1, 59)), unix(2024, 3, 31, 0, 59));
  assert.equal(localToUtc(prague, unix(2024, 3, 31, 3, 0)), unix(2024, 3, 31, 1, 0));
  assert.equal(localToUtc(prague, unix(2024, 10, 27, 1, 59)), unix(2024, 10, 26, 23, 59));
  assert.equal(localToUtc(prague, unix(2024, 10, 27, 3, 0)), unix(2024, 10, 27, 2, 0));
  const newYork = zone("America/New_York");
  assert.equal(localToUtc(newYork, unix(2024, 3, 10, 1, 59)), unix(2024, 3, 10, 6, 59));
  assert.equal(localToUtc(newYork, unix(2024, 3, 10, 3, 0)), unix(2024, 3, 10, 7, 0));
  assert.equal(localToUtc(newYork, unix(2024, 3, 10, 5, 0)), unix(2024, 3, 10, 9, 0));
  assert.equal(localToUtc(newYork, unix(2024, 11, 3, 0, 59)), unix(2024, 11, 3, 4, 59));
  assert.equal(localToUtc(newYork, unix(2024, 11, 3, 2, 0)), unix(2024, 11, 3, 7, 0));
});

Deno.test("local wall clock inside a DST change resolves to one side", () => {
  const prague = zone("Europe/Prague");
  // Skipped hour (02:00-03:00 on 2024-03-31) and repeated hour (02:00-03:00 on 2024-10-27).
  assert.deepEqual(offsetAtLocal(prague, unix(2024, 3, 31, 2, 30)), { offsetSeconds: 3600, dst: false });
  assert.deepEqual(offsetAtLocal(prague, unix(2024, 10, 27, 2, 30)), { offsetSeconds: 3600, dst: false });
  const newYork = zone("America/New_York");
  assert.deepEqual(offsetAtLocal(newYork, unix(2024, 3, 10, 2, 30)), { offsetSeconds: -14400, dst: true });
  assert.deepEqual(offsetAtLocal(newYork, unix(2024, 11, 3, 1, 30)), { offsetSeconds: -14400, dst: true });
});
