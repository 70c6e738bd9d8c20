import assert from "node:assert/strict";
import {
  convertDate,
  type DateParts,
  formatCompiled,
  formatOffset,
  normalizeMonthAbbreviations,
  parseCompiled,
  parseWithFormat,
  readOffset,
} from "../../../src/lang/datetime/format.ts";
import { compileFormat } from "../../../src/lang/datetime/tokens.ts";

function parts(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): DateParts {
  return { year, month, day, hour, minute, second, offsetMinutes: null };
}

function format(p: DateParts, fmt: string): string | null {
  return formatCompiled(p, compileFormat(fmt));
}

Deno.test("format: every token writes its documented shape", () => {
  const p = parts(2024, 3, 7, 14, 5, 9);
  const expected: [string, string][] = [
    ["YYYY", "2024"],
    ["YY", "24"],
    ["MM", "03"],
    ["M", "3"],
    ["MMMM", "March"],
    ["MMM", "Mar"],
    ["DD", "07"],
    ["D", "7"],
    ["hh", "14"],
    ["h", "14"],
    ["ii", "02"],
    ["i", "2"],
    ["mm", "05"],
    ["m", "5"],
    ["ss", "09"],
    ["s", "9"],
    ["A", "PM"],
    ["a", "pm"],
    ["ZZ", "+00:00"],
    ["EEEE", "Thursday"],
    ["EEE", "Thu"],
    ["EE", "Thu"],
    ["E", "Thu"],
    ["e", "4"],
    ["[T]", "T"],
    ["[*]", ""],
    ["YYYY-MM-DD[T]hh:mm:ss[Z]", "2024-03-07T14:05:09Z"],
    ["YYYYMMDDhhmmss", "20240307140509"],
    ["MMMM D, YYYY", "March 7, 2024"],
    ["ii:mm A", "02:05 PM"],
    ["YY/M/D", "24/3/7"],
  ];
  for (const [fmt, want] of expected) assert.equal(format(p, fmt), want, fmt);
});

Deno.test("format: 12-hour clock at midnight and noon, offsets, short years", () => {
  assert.equal(format(parts(2024, 1, 1, 0, 0, 0), "ii:mm a"), "12:00 am");
  assert.equal(format(parts(2024, 1, 1, 12, 30, 0), "i:mm A"), "12:30 PM");
  assert.equal(format(parts(2024, 1, 1, 23, 0, 0), "i A"), "11 PM");
  assert.equal(format({ ...parts(2024, 1, 1), offsetMinutes: 120 }, "ZZ"), "+02:00");
  assert.equal(format({ ...parts(2024, 1, 1), offsetMinutes: -330 }, "ZZ"), "-05:30");
  assert.equal(format(parts(2005, 1, 1), "YY"), "05");
  assert.equal(format(parts(1924, 10, 10), "YYYY-MM-DD"), "1924-10-10");
  assert.equal(format(parts(-5, 1, 1), "YYYY"), null);
});

Deno.test("parse then format round-trips every token", () => {
  const samples = [parts(2024, 3, 7, 14, 5, 9), parts(1999, 12, 31, 0, 0, 0), parts(2001, 1, 1, 12, 59, 59)];
  const formats = [
    "YYYY-MM-DD hh:mm:ss",
    "YY-M-D h:m:s",
    "D MMM YYYY ii:mm:ss A",
    "EEEE, MMMM D, YYYY i:mm:s a",
    "EEE DD.MM.YYYY e hh:mm:ss",
    "E YYYYMMDDhhmmss",
    "YYYY-MM-DD[T]hh:mm:ssZZ",
  ];
  for (const sample of samples) {
    for (const fmt of formats) {
      const text = format(sample, fmt)!;
      const back = parseWithFormat(text, fmt);
      assert.ok(back !== null, `${fmt}: ${text}`);
      assert.deepEqual(
        [back.year, back.month, back.day, back.hour, back.minute, back.second],
        [sample.year, sample.month, sample.day, sample.hour, sample.minute, sample.second],
        `${fmt}: ${text}`,
      );
    }
  }
});

Deno.test("parse: real-world template shapes", () => {
  assert.deepEqual(parseWithFormat("31.12.2024", "DD.MM.YYYY"), parts(2024, 12, 31));
  assert.deepEqual(parseWithFormat("12312024", "MMDDYYYY"), parts(2024, 12, 31));
  assert.deepEqual(
    parseWithFormat("7 Jun 2022, 16:02:36", "D MMM YYYY, hh:mm:ss"),
    parts(2022, 6, 7, 16, 2, 36),
  );
  assert.deepEqual(parseWithFormat("1/12/2024 10:30:00", "M/D/YYYY hh:mm:ss"), parts(2024, 1, 12, 10, 30, 0));
  assert.equal(parseWithFormat("03/15/2024 02:30:00 PM", "MM/DD/YYYY ii:mm:ss A")?.hour, 14);
  assert.equal(parseWithFormat("15 september 2024", "D MMMM YYYY")?.month, 9);
  assert.equal(parseWithFormat("Monday 3 JUNE 2024", "EEEE D MMMM YYYY")?.day, 3);
});

Deno.test("parse: YY pivot, AM/PM, 1-2 digit fields", () => {
  assert.equal(parseWithFormat("69-01-01", "YY-MM-DD")?.year, 2069);
  assert.equal(parseWithFormat("70-01-01", "YY-MM-DD")?.year, 1970);
  assert.equal(parseWithFormat("00-01-01", "YY-MM-DD")?.year, 2000);
  assert.equal(parseWithFormat("99-01-01", "YY-MM-DD")?.year, 1999);
  assert.equal(parseWithFormat("12:00 AM", "ii:mm A")?.hour, 0);
  assert.equal(parseWithFormat("12:00 pm", "ii:mm a")?.hour, 12);
  assert.equal(parseWithFormat("1:00 Pm", "i:mm a")?.hour, 13);
  assert.equal(parseWithFormat("13:00 PM", "hh:mm A"), null); // 25 o'clock
  assert.equal(parseWithFormat("2024-3-5", "YYYY-M-D")?.day, 5);
  assert.equal(parseWithFormat("2024-123", "YYYY-MD")?.month, 12); // M takes at most two digits
  assert.equal(parseWithFormat("2024-x-5", "YYYY-M-D"), null);
});

Deno.test("parse: ZZ reads Z, ±HH:MM and ±HHMM; out-of-range offsets fail", () => {
  assert.equal(parseWithFormat("2024-03-15T14:23:01+02:00", "YYYY-MM-DD[T]hh:mm:ssZZ")?.offsetMinutes, 120);
  assert.equal(parseWithFormat("2024-03-15T14:23:01Z", "YYYY-MM-DD[T]hh:mm:ssZZ")?.offsetMinutes, 0);
  assert.equal(parseWithFormat("2024-03-15 14:23:01-0500", "YYYY-MM-DD hh:mm:ssZZ")?.offsetMinutes, -300);
  assert.equal(parseWithFormat("2024-03-15", "YYYY-MM-DD")?.offsetMinutes, null);
  assert.equal(parseWithFormat("2024-03-15 14:23:01+24:00", "YYYY-MM-DD hh:mm:ssZZ"), null);
  assert.equal(parseWithFormat("2024-03-15 14:23:01+02:60", "YYYY-MM-DD hh:mm:ssZZ"), null);
  assert.equal(parseWithFormat("2024-03-15 14:23:01 02:00", "YYYY-MM-DD hh:mm:ssZZ"), null);
  assert.deepEqual(readOffset("+05:30", 0), [330, 6]);
  assert.deepEqual(readOffset("-0800", 0), [-480, 5]);
  assert.equal(readOffset("+5:30", 0), null);
});

Deno.test("parse: [*] skips to where the next token can start", () => {
  assert.deepEqual(
    parseWithFormat("2024-01-15T10:30:45+02:00", "YYYY-MM-DD[T]hh:mm:ss[*]"),
    parts(2024, 1, 15, 10, 30, 45),
  );
  assert.deepEqual(parseWithFormat("Date: 2024-01-15", "[*]YYYY-MM-DD"), parts(2024, 1, 15));
  assert.equal(parseWithFormat("ref 17 on 2024-01-15", "[*][on ]YYYY-MM-DD")?.day, 15);
  assert.equal(parseWithFormat("xx Mar 2024", "[*]MMM YYYY")?.month, 3);
  assert.equal(parseWithFormat("at 3pm", "[*]ia")?.hour, 15);
  assert.equal(parseWithFormat("no digits", "[*]YYYY"), null);
  // A token with nothing left to read fails, a trailing wildcard included.
  assert.equal(parseWithFormat("2024-01-15", "YYYY-MM-DD[*]"), null);
  assert.deepEqual(parseWithFormat("2024-01-15T00:00:00", "YYYY-MM-DD[*]"), parts(2024, 1, 15));
});

Deno.test("parse: literals must match exactly; trailing input is ignored", () => {
  assert.equal(parseWithFormat("2024/01/15", "YYYY-MM-DD"), null);
  assert.equal(parseWithFormat("2024-01-15X10:00", "YYYY-MM-DD[T]hh:mm"), null);
  assert.deepEqual(parseWithFormat("2024-01-15 trailing", "YYYY-MM-DD"), parts(2024, 1, 15));
  assert.equal(parseWithFormat("2024-01", "YYYY-MM-DD"), null);
  assert.equal(parseWithFormat("", "YYYY-MM-DD"), null);
});

Deno.test("parse: range violations are rejected; missing fields default to 1970-01-01 00:00:00", () => {
  assert.equal(parseWithFormat("2024-13-01", "YYYY-MM-DD"), null);
  assert.equal(parseWithFormat("2024-02-30", "YYYY-MM-DD"), null);
  assert.equal(parseWithFormat("2023-02-29", "YYYY-MM-DD"), null);
  assert.ok(parseWithFormat("2024-02-29", "YYYY-MM-DD"));
  assert.equal(parseWithFormat("2024-01-01 25:00:00", "YYYY-MM-DD hh:mm:ss"), null);
  assert.equal(parseWithFormat("2024-01-01 23:60:00", "YYYY-MM-DD hh:mm:ss"), null);
  assert.equal(parseWithFormat("00", "MM"), null);
  assert.equal(parseWithFormat("+1/05/2024", "MM/DD/YYYY"), null); // digits only, no sign
  assert.deepEqual(parseWithFormat("14:30", "hh:mm"), parts(1970, 1, 1, 14, 30, 0));
  assert.deepEqual(parseWithFormat("2024", "YYYY"), parts(2024, 1, 1));
  assert.equal(parseWithFormat("8", "e"), null);
  assert.equal(parseWithFormat("Funday", "EEEE"), null);
});

Deno.test("parse: pre-1970 dates", () => {
  assert.deepEqual(parseWithFormat("1924-10-10", "YYYY-MM-DD"), parts(1924, 10, 10));
  assert.deepEqual(parseWithFormat("31.12.1969", "DD.MM.YYYY"), parts(1969, 12, 31));
  assert.deepEqual(parseWithFormat("0001-01-01", "YYYY-MM-DD"), parts(1, 1, 1));
});

Deno.test("four-letter month abbreviations are trimmed for MMM only", () => {
  assert.equal(normalizeMonthAbbreviations("3 Sept 2022, 21:27:40"), "3 Sep 2022, 21:27:40");
  assert.equal(normalizeMonthAbbreviations("June July sept"), "Jun Jul sep");
  assert.equal(normalizeMonthAbbreviations("March 2024"), "March 2024"); // five letters: untouched
  assert.equal(normalizeMonthAbbreviations("Mart"), "Mar");
  assert.equal(normalizeMonthAbbreviations("nothing here"), "nothing here");
  assert.equal(parseWithFormat("3 Sept 2022", "D MMM YYYY")?.month, 9);
  assert.equal(parseWithFormat("1 June 2022", "D MMM YYYY")?.month, 6);
  assert.equal(parseWithFormat("1 June 2022", "D MMMM YYYY")?.month, 6);
  assert.equal(parseWithFormat("3 Sept 2022", "D MMMM YYYY"), null);
});

Deno.test("convertDate: pure reshuffle, '' on failure", () => {
  assert.equal(convertDate("31.12.2024", "DD.MM.YYYY", "YYYY-MM-DD"), "2024-12-31");
  assert.equal(convertDate("10/10/1924", "MM/DD/YYYY", "YYYY-MM-DD"), "1924-10-10");
  assert.equal(convertDate("2024-03-15", "YYYY-MM-DD", "EEEE D MMMM YYYY"), "Friday 15 March 2024");
  assert.equal(convertDate("2024-03-15T14:23:01+02:00", "YYYY-MM-DD[T]hh:mm:ssZZ", "ZZ"), "+02:00");
  assert.equal(convertDate("2024-03-15", "YYYY-MM-DD", "[Week day] e"), "Week day 5");
  assert.equal(convertDate("14:30", "hh:mm", "YYYY-MM-DD hh:mm"), "1970-01-01 14:30");
  assert.equal(convertDate("2024-02-30", "YYYY-MM-DD", "DD.MM.YYYY"), "");
  assert.equal(convertDate("", "DD.MM.YYYY", "YYYY-MM-DD"), "");
  assert.equal(convertDate("garbage", "DD.MM.YYYY", "YYYY-MM-DD"), "");
});

Deno.test("formatOffset renders ±HH:MM", () => {
  assert.equal(formatOffset(7200), "+02:00");
  assert.equal(formatOffset(-16200), "-04:30");
  assert.equal(formatOffset(0), "+00:00");
  assert.equal(parseCompiled("x", compileFormat("")) !== null, true);
});
