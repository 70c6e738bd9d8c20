/**
 * Year-first dates with unpadded months and days (`2012/4/5` beside `2012/10/15`) are one shape with one
 * format that reads every value, `YYYY/M/D`, not two formats tried in turn (the day's width once split
 * them).
 */

import assert from "node:assert/strict";
import { inferColumnDates, inferDateFormat } from "../../src/draft/dates.ts";

Deno.test("2012/4/5 and 2012/10/15 read as YYYY/M/D", () => {
  assert.equal(inferDateFormat(["2012/4/5", "2012/10/15", "2012/11/3"])?.format, "YYYY/M/D");
  assert.deepEqual(inferColumnDates(["2012/4/5", "2012/10/15"])?.formats, ["YYYY/M/D"]);
});

Deno.test("padded year-first dates keep their padded format", () => {
  assert.equal(inferDateFormat(["2012/04/05", "2012/10/15"])?.format, "YYYY/MM/DD");
});

Deno.test("day-first dates with a two-digit year are still told from a four-digit one", () => {
  assert.notEqual(inferDateFormat(["15/4/12", "3/11/2012"])?.format, "D/M/YYYY");
});
