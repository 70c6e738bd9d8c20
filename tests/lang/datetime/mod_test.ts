import { NEEDS_CONFORMANCE } from "../../_support/conformance.ts";
import assert from "node:assert/strict";
import * as datetime from "../../../src/lang/datetime/mod.ts";

const CONFORMANCE = new URL("../../../../shared/conformance/", import.meta.url);

Deno.test("mod.ts exports exactly the contract", () => {
  assert.deepEqual(Object.keys(datetime).sort(), [
    "DATE_TOKENS",
    "checkDateFormat",
    "convertDate",
    "dateAdd",
    "dateConvert",
    "dateConverter",
    "dateDiff",
    "dateTrunc",
    "day",
    "eomonth",
    "hour",
    "isDate",
    "isDst",
    "minute",
    "month",
    "nowUtc",
    "nthDow",
    "quarter",
    "second",
    "toUtc",
    "tzConvert",
    "tzOffset",
    "weekday",
    "weeknum",
    "workday",
    "year",
  ]);
});

/** Rows of a simple CSV (no quoted commas), header first. */
async function readCsv(url: URL): Promise<string[][]> {
  const text = await Deno.readTextFile(url);
  return text.split(/\r?\n/).filter((line) => line.length > 0).map((line) => line.split(","));
}

Deno.test("golden: docs/examples/basic/timezone-functions", NEEDS_CONFORMANCE, async () => {
  const dir = new URL("docs/examples/basic/timezone-functions/", CONFORMANCE);
  const [header, ...rows] = await readCsv(new URL("sample.csv", dir));
  const [expectedHeader, ...expected] = await readCsv(new URL("sample.expected", dir));
  assert.deepEqual(header, ["label", "raw_iso", "local_time", "zone"]);
  assert.deepEqual(expectedHeader, ["trade", "utc", "offset", "dst", "nyc"]);
  const produced = rows.map(([label, rawIso, localTime, zone]) => [
    label,
    datetime.toUtc(rawIso, "YYYY-MM-DD[T]hh:mm:ssZZ"),
    datetime.tzOffset(localTime, zone),
    String(datetime.isDst(localTime, zone)),
    datetime.tzConvert(localTime, zone, "America/New_York"),
  ]);
  assert.deepEqual(produced, expected);
});

Deno.test("golden: DATE_CONVERT over the dataset inputs", NEEDS_CONFORMANCE, async () => {
  // revolutx: "3 Sept 2022, 21:27:40" style dates, date column 7 (quoted, so split on quotes).
  const dir = new URL("datasets/revolutx_to_wealthfolio/", CONFORMANCE);
  const input = await Deno.readTextFile(new URL("sample_2022-02-09_2026-12-31.csv", dir));
  const dates = [...input.matchAll(/"(\d{1,2} [A-Za-z]{3,4} \d{4}, \d{2}:\d{2}:\d{2})"/g)].map((m) => m[1]);
  assert.ok(dates.length > 40);
  const converted = new Set(
    dates.map((d) => datetime.dateConvert(d, "D MMM YYYY, hh:mm:ss", "YYYY-MM-DD hh:mm:ss")),
  );
  assert.ok(!converted.has(""));
  const [, ...golden] = await readCsv(new URL("sample_2022-02-09_2026-12-31.expected", dir));
  assert.ok(golden.length > 10);
  for (const row of golden) {
    // Rows the rules keep carry the converted date and, in the last column, its compact form.
    assert.ok(converted.has(row[0]), `${row[0]} not produced`);
    assert.equal(row.at(-1), row[0].replace(/[- :]/g, ""));
  }
  assert.equal(
    datetime.dateConvert("3 Sept 2022, 21:27:40", "D MMM YYYY, hh:mm:ss", "YYYYMMDDhhmmss"),
    "20220903212740",
  );
  // anycoin: ISO with milliseconds and Z, cut by the wildcard.
  assert.equal(
    datetime.dateConvert("2023-12-23T06:20:20.182Z", "YYYY-MM-DD[T]hh:mm:ss[*]", "YYYY-MM-DD hh:mm:ss"),
    "2023-12-23 06:20:20",
  );
  // hubspot: US and ISO shapes into an ISO-Z literal.
  assert.equal(
    datetime.dateConvert("1/12/2024 10:30:00", "M/D/YYYY hh:mm:ss", "YYYY-MM-DD[T]hh:mm:ss[Z]"),
    "2024-01-12T10:30:00Z",
  );
  assert.equal(datetime.dateConvert("20240105", "YYYYMMDD", "YYYY-MM-DD"), "2024-01-05");
});

Deno.test("DATE_CONVERT over many rows of repeating dates gives every row its own answer", () => {
  // Speed is the bench's business (tools/bench); this pins that repeated inputs stay correct.
  const dates = Array.from({ length: 365 }, (_, i) => {
    const iso = datetime.dateAdd("2024-01-01", i);
    return [`${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`, iso];
  });
  for (let i = 0; i < 20_000; i++) {
    const [dmy, iso] = dates[(i * 7) % 365];
    assert.equal(datetime.dateConvert(dmy, "DD.MM.YYYY", "YYYY-MM-DD"), iso);
  }
});
