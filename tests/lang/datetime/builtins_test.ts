import assert from "node:assert/strict";
import { ExprError } from "../../../src/lang/errors.ts";
import {
  dateAdd,
  dateDiff,
  day,
  eomonth,
  hour,
  isDate,
  minute,
  month,
  nowUtc,
  nthDow,
  quarter,
  second,
  weekday,
  weeknum,
  workday,
  year,
} from "../../../src/lang/datetime/builtins.ts";

function raisesInvalidDate(fn: () => unknown, mentions: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ExprError);
    assert.equal(err.error, "InvalidDate");
    assert.ok(err.detail.includes(mentions), err.detail);
    assert.equal(err.isDataError, true);
    return true;
  });
}

Deno.test("documented examples", () => {
  assert.equal(dateAdd("2024-01-31", 7), "2024-02-07");
  assert.equal(dateDiff("2024-01-01", "2024-12-31"), "-365");
  assert.equal(workday("2024-01-01", 10), "2024-01-15");
  assert.equal(year("2024-03-15"), "2024");
  assert.equal(month("2024-03-15"), "3");
  assert.equal(day("2024-03-15"), "15");
  assert.equal(weekday("2024-03-15"), "5");
  assert.equal(eomonth("2024-02-10"), "2024-02-29");
  assert.equal(nthDow(2024, 3, 7, -1), "2024-03-31");
  assert.equal(weeknum("2021-01-01"), "53");
  assert.equal(weeknum("2024-12-30"), "1");
});

Deno.test("DATEADD / DATEDIFF across months, leap days and 1970", () => {
  assert.equal(dateAdd("2024-02-28", 1), "2024-02-29");
  assert.equal(dateAdd("2023-02-28", 1), "2023-03-01");
  assert.equal(dateAdd("2024-12-31", 1), "2025-01-01");
  assert.equal(dateAdd("1970-01-01", -1), "1969-12-31");
  assert.equal(dateAdd("1924-10-10", 365), "1925-10-10");
  assert.equal(dateAdd("2024-01-01", -7), "2023-12-25");
  assert.equal(dateAdd("2024-01-01", 2.9), "2024-01-03"); // truncated toward zero
  assert.equal(dateAdd("2024-01-01", -2.9), "2023-12-30");
  assert.equal(dateAdd("2024-03-15 23:59:59", 1), "2024-03-16"); // time half ignored
  assert.equal(dateDiff("2024-12-31", "2024-01-01"), "365");
  assert.equal(dateDiff("1970-01-01", "1969-12-31"), "1");
  assert.equal(dateDiff("2024-03-01T10:00:00Z", "2024-02-28"), "2");
});

Deno.test("DATEADD / WORKDAY: absurd offsets give '', the bound is ±3652500 days", () => {
  assert.equal(dateAdd("2024-01-01", 1_000_000_000), "");
  assert.equal(dateAdd("2024-01-01", -3_652_501), "");
  assert.equal(dateAdd("2024-01-01", 3_652_500), "12024-03-16");
  assert.equal(dateAdd("2024-01-01", Infinity), "");
  assert.equal(dateAdd("2024-01-01", NaN), "");
  assert.equal(workday("2024-01-01", 1e12), "");
  // The offset is checked before the date, as in bxp.
  assert.equal(dateAdd("not-a-date", 1e9), "");
  raisesInvalidDate(() => dateAdd("0001-01-01", -1000), "0001-01-01");
});

Deno.test("WORKDAY skips weekends in both directions", () => {
  assert.equal(workday("2024-03-15", 1), "2024-03-18"); // Fri -> Mon
  assert.equal(workday("2024-03-15", 2), "2024-03-19");
  assert.equal(workday("2024-03-18", -1), "2024-03-15"); // Mon -> Fri
  assert.equal(workday("2024-03-16", 0), "2024-03-16"); // Sat, n = 0: unchanged
  assert.equal(workday("2024-03-16", 1), "2024-03-18"); // Sat + 1 -> Mon
  assert.equal(workday("2024-03-16", 5), "2024-03-22"); // Sat + 5 -> Fri
  assert.equal(workday("2024-03-17", -1), "2024-03-15"); // Sun - 1 -> Fri
  assert.equal(workday("2024-03-13", 7), "2024-03-22");
  assert.equal(workday("2024-03-13", -7), "2024-03-04");
  // Agrees with stepping one day at a time over many starts and offsets.
  for (let start = 0; start < 14; start++) {
    for (let n = -23; n <= 23; n++) {
      const from = dateAdd("2024-03-04", start);
      assert.equal(workday(from, n), slowWorkday(from, n), `${from} ${n}`);
    }
  }
});

function slowWorkday(from: string, n: number): string {
  let current = from;
  let left = n;
  while (left !== 0) {
    current = dateAdd(current, Math.sign(left));
    if (Number(weekday(current)) <= 5) left -= Math.sign(left);
  }
  return current;
}

Deno.test("components, quarter, week number, month end", () => {
  assert.equal(quarter("2024-01-01"), "1");
  assert.equal(quarter("2024-03-31"), "1");
  assert.equal(quarter("2024-04-01"), "2");
  assert.equal(quarter("2024-12-31"), "4");
  assert.equal(weeknum("2024-12-28"), "52");
  assert.equal(weeknum("2020-12-31"), "53");
  assert.equal(weeknum("2024-02-29 10:00:00"), "9");
  assert.equal(eomonth("2023-02-01"), "2023-02-28");
  assert.equal(eomonth("1900-02-15"), "1900-02-28");
  assert.equal(eomonth("2024-12-31T23:00:00"), "2024-12-31");
  assert.equal(weekday("2024-03-17"), "7");
  assert.equal(year("1924-10-10"), "1924");
  assert.equal(month("2024-03-15T14:23:01Z"), "3");
});

Deno.test("HOUR / MINUTE / SECOND: timestamps, and midnight for a bare date", () => {
  assert.equal(hour("2024-03-15 14:23:01"), "14");
  assert.equal(minute("2024-03-15T14:23:01+02:00"), "23");
  assert.equal(second("2024-03-15T14:23:01.999Z"), "1");
  assert.equal(hour("2024-03-15"), "0");
  assert.equal(minute("2024-03-15"), "0");
  assert.equal(second("2024-03-15"), "0");
});

Deno.test("empty arguments give '', malformed ones raise InvalidDate naming the value", () => {
  for (const fn of [year, month, day, weekday, quarter, weeknum, eomonth, hour, minute, second]) {
    assert.equal(fn(""), "");
  }
  assert.equal(dateAdd("", 1), "");
  assert.equal(workday("", 1), "");
  assert.equal(dateDiff("", "2024-01-01"), "");
  assert.equal(dateDiff("2024-01-01", ""), "");
  raisesInvalidDate(() => year("2024/01/15"), "2024/01/15");
  raisesInvalidDate(() => dateAdd("2024-13-01", 1), "2024-13-01");
  raisesInvalidDate(() => month("2024-03-15 nonsense"), "nonsense");
  raisesInvalidDate(() => hour("2024-03-15 25:00:00"), "25:00:00");
  raisesInvalidDate(() => dateDiff("2024-01-01", "01.01.2024"), "01.01.2024");
  raisesInvalidDate(() => eomonth("2023-02-29"), "2023-02-29");
  raisesInvalidDate(() => workday(" 2024-01-01", 1), "2024-01-01");
});

Deno.test("NTH_DOW: out-of-range arguments and missing occurrences give ''", () => {
  assert.equal(nthDow(2024, 10, 7, -1), "2024-10-27");
  assert.equal(nthDow(2024, 3, 7, 2), "2024-03-10");
  assert.equal(nthDow(2024, 1, 1, 1), "2024-01-01");
  assert.equal(nthDow(1924, 3, 7, -1), "1924-03-30");
  assert.equal(nthDow(2024, 3.9, 7, -1), "2024-03-31"); // arguments truncate
  assert.equal(nthDow(2023, 2, 7, 5), "");
  assert.equal(nthDow(2024, 13, 7, 1), "");
  assert.equal(nthDow(2024, 3, 8, 1), "");
  assert.equal(nthDow(2024, 3, 0, 1), "");
  assert.equal(nthDow(2024, 3, 7, 0), "");
  assert.equal(nthDow(1e12, 3, 7, 1), "");
  assert.equal(nthDow(2024, NaN, 7, 1), "");
  raisesInvalidDate(() => nthDow(-5, 3, 7, 1), "-5");
});

Deno.test("IS_DATE: the ISO shapes, or a DATE_CONVERT format; never raises", () => {
  assert.equal(isDate("2024-03-15"), true);
  assert.equal(isDate("2024-03-15T14:23:01Z"), true);
  assert.equal(isDate("2024-02-30"), false);
  assert.equal(isDate("2024/03/15"), false);
  assert.equal(isDate(""), false);
  assert.equal(isDate("   "), false);
  assert.equal(isDate("15.03.2024", "DD.MM.YYYY"), true);
  assert.equal(isDate("30.02.2024", "DD.MM.YYYY"), false);
  assert.equal(isDate("3 Sept 2022", "D MMM YYYY"), true);
  assert.equal(isDate("", "DD.MM.YYYY"), false);
});

Deno.test("NOW: current UTC time as YYYY-MM-DDTHH:MM:SSZ", () => {
  const before = Math.floor(Date.now() / 1000);
  const now = nowUtc();
  const after = Math.floor(Date.now() / 1000);
  assert.match(now, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const seconds = Date.parse(now) / 1000;
  assert.ok(seconds >= before && seconds <= after, now);
});
