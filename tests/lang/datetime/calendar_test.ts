import assert from "node:assert/strict";
import {
  civilToDays,
  daysInMonth,
  daysToCivil,
  formatIsoDate,
  isLeapYear,
  isoWeekday,
  isoWeekNumber,
  isValidDate,
  nthWeekdayOfMonth,
} from "../../../src/lang/datetime/calendar.ts";

Deno.test("civilToDays/daysToCivil agree with Date.UTC across eras, including before 1970", () => {
  // Date.UTC is an independent oracle here (tests may use it; the module never does).
  for (let days = -800_000; days <= 800_000; days += 997) {
    const date = new Date(days * 86_400_000);
    const civil = daysToCivil(days);
    assert.deepEqual(civil, {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
    });
    assert.equal(civilToDays(civil.year, civil.month, civil.day), days);
  }
  assert.equal(civilToDays(1970, 1, 1), 0);
  assert.deepEqual(daysToCivil(-1), { year: 1969, month: 12, day: 31 });
  assert.equal(civilToDays(2000, 2, 29), 11016);
});

Deno.test("leap years and month lengths", () => {
  assert.equal(isLeapYear(2000), true);
  assert.equal(isLeapYear(1900), false);
  assert.equal(isLeapYear(2024), true);
  assert.equal(isLeapYear(2023), false);
  assert.equal(daysInMonth(2024, 2), 29);
  assert.equal(daysInMonth(1900, 2), 28);
  assert.equal(daysInMonth(2024, 4), 30);
  assert.equal(daysInMonth(2024, 13), 0);
  assert.equal(isValidDate(2023, 2, 29), false);
  assert.equal(isValidDate(2024, 2, 29), true);
  assert.equal(isValidDate(2024, 0, 1), false);
});

Deno.test("isoWeekday: Monday = 1 … Sunday = 7", () => {
  assert.equal(isoWeekday(0), 4); // 1970-01-01 was a Thursday
  assert.equal(isoWeekday(civilToDays(2024, 1, 1)), 1);
  assert.equal(isoWeekday(civilToDays(2024, 3, 31)), 7);
  assert.equal(isoWeekday(civilToDays(1924, 10, 10)), 5);
});

Deno.test("isoWeekNumber at year boundaries", () => {
  assert.equal(isoWeekNumber(2021, 1, 1), 53);
  assert.equal(isoWeekNumber(2021, 1, 4), 1);
  assert.equal(isoWeekNumber(2024, 12, 30), 1);
  assert.equal(isoWeekNumber(2024, 12, 28), 52);
  assert.equal(isoWeekNumber(2020, 12, 31), 53);
  assert.equal(isoWeekNumber(2026, 1, 1), 1);
  assert.equal(isoWeekNumber(2024, 2, 29), 9);
});

Deno.test("nthWeekdayOfMonth: from the start, from the end, and missing occurrences", () => {
  assert.deepEqual(nthWeekdayOfMonth(2024, 3, 7, -1), { year: 2024, month: 3, day: 31 });
  assert.deepEqual(nthWeekdayOfMonth(2024, 10, 7, -1), { year: 2024, month: 10, day: 27 });
  assert.equal(nthWeekdayOfMonth(2024, 3, 7, 2)?.day, 10);
  assert.equal(nthWeekdayOfMonth(2024, 11, 7, 1)?.day, 3);
  assert.equal(nthWeekdayOfMonth(2024, 3, 7, -2)?.day, 24);
  assert.equal(nthWeekdayOfMonth(1924, 3, 7, -1)?.day, 30);
  assert.equal(nthWeekdayOfMonth(2023, 2, 7, 5), null);
  assert.equal(nthWeekdayOfMonth(2024, 13, 7, 1), null);
  assert.equal(nthWeekdayOfMonth(2024, 3, 8, 1), null);
  assert.equal(nthWeekdayOfMonth(2024, 3, 7, 0), null);
  assert.equal(nthWeekdayOfMonth(2024, 3, 7, -6), null);
});

Deno.test("formatIsoDate pads and refuses negative years", () => {
  assert.equal(formatIsoDate(24, 3, 5), "0024-03-05");
  assert.equal(formatIsoDate(0, 1, 1), "0000-01-01");
  assert.equal(formatIsoDate(12024, 1, 1), "12024-01-01");
  assert.equal(formatIsoDate(-1, 1, 1), null);
});
