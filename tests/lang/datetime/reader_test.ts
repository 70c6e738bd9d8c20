import assert from "node:assert/strict";
import { readDateTime } from "../../../src/lang/datetime/reader.ts";

const midnight = { hour: 0, minute: 0, second: 0 };

Deno.test("reader: date, datetime with space or T, ISO tail", () => {
  assert.deepEqual(readDateTime("2024-03-15"), { year: 2024, month: 3, day: 15, ...midnight });
  const full = { year: 2024, month: 3, day: 15, hour: 14, minute: 23, second: 1 };
  assert.deepEqual(readDateTime("2024-03-15 14:23:01"), full);
  assert.deepEqual(readDateTime("2024-03-15T14:23:01"), full);
  assert.deepEqual(readDateTime("2024-03-15T14:23:01Z"), full);
  assert.deepEqual(readDateTime("2024-03-15T14:23:01.182Z"), full);
  assert.deepEqual(readDateTime("2024-03-15T14:23:01+02:00"), full);
  assert.deepEqual(readDateTime("2024-03-15T14:23:01.5-0530"), full);
  assert.deepEqual(readDateTime("1924-10-10"), { year: 1924, month: 10, day: 10, ...midnight });
  assert.deepEqual(readDateTime("2024-02-29"), { year: 2024, month: 2, day: 29, ...midnight });
});

Deno.test("reader: the whole string must match", () => {
  for (
    const bad of [
      "",
      "2024/01/15",
      "2024-1-15",
      "24-01-15",
      "2024-01-15 nonsense",
      "2024-01-15 ",
      "2024-01-15T",
      "2024-01-15 14:23",
      "2024-01-15 14:23:01 ",
      "2024-01-15 14:23:01.",
      "2024-01-15 14:23:01+02",
      "2024-01-15 14:23:01+0200x",
      "2024-01-15x14:23:01",
      " 2024-01-15",
      "+024-01-15",
    ]
  ) {
    assert.equal(readDateTime(bad), null, bad);
  }
});

Deno.test("reader: out-of-range fields are rejected", () => {
  for (
    const bad of [
      "2024-13-01",
      "2024-00-10",
      "2024-02-30",
      "2023-02-29",
      "2024-04-31",
      "2024-01-00",
      "2024-01-15 24:00:00",
      "2024-01-15 23:60:00",
      "2024-01-15 23:59:60",
      "2024-01-15 23:59:59+24:00",
    ]
  ) {
    assert.equal(readDateTime(bad), null, bad);
  }
});
