/**
 * Date-format inference for the sniffer: reads a column's values and names the bxp date format (the tokens
 * `DATE_CONVERT` takes) that reads every one of them, or null. Ambiguity (day and month both <= 12) is
 * reported, never hidden.
 *
 * @example
 * ```ts
 * import { inferDateFormat } from "./dates.ts";
 * inferDateFormat(["31.12.2024", "01.02.2025"]); // { format: "DD.MM.YYYY", kind: "date", ambiguous: null }
 * ```
 * @module
 */

import { convertDate } from "../lang/datetime/format.ts";

/** What {@link inferDateFormat} found. */
export interface DateGuess {
  /** bxp date format tokens reading every value. */
  format: string;
  kind: "date" | "datetime";
  /** Why the day/month order is a guess, or null when the values settle it. */
  ambiguous: string | null;
}

/** The format every value is read through to prove it is a real date. */
const PROBE = "YYYY-MM-DD hh:mm:ss";

const NUMERIC =
  /^(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?:( |T|, )(\d{1,2}):(\d{2})(?::(\d{2}))?([.,]\d+)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const MONTH_NAME = /^(\d{1,2})([ -])([A-Za-z]{3,9})\.?\2(\d{4})(?:(, | )(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const COMPACT = /^(\d{4})(\d{2})(\d{2})$/;

interface Shape {
  key: string;
  parts: RegExpExecArray;
}

function shapeOf(v: string): Shape | null {
  let m = NUMERIC.exec(v);
  if (m) {
    const key = [
      "n",
      m[1].length === 4 ? "y" : "d",
      m[2],
      m[4].length === 4 ? "y" : m[4].length === 2 ? "yy" : "?",
      m[5] ?? "",
      m[8] === undefined ? "" : "s",
      m[9] === undefined && m[10] === undefined ? "" : "*",
    ].join("|");
    return { key, parts: m };
  }
  m = MONTH_NAME.exec(v);
  if (m) return { key: ["m", m[2], m[5] ?? "", m[8] === undefined ? "" : "s"].join("|"), parts: m };
  m = COMPACT.exec(v);
  if (m) return { key: "c", parts: m };
  return null;
}

/** "DD" when every value has two digits, else "D" (and likewise for the other one/two-digit tokens). */
function width(values: readonly string[], two: string, one: string): string {
  return values.every((v) => v.length === 2) ? two : one;
}

function timeTokens(shapes: readonly Shape[], hour: number, seconds: number, sep: string): string {
  const first = shapes[0].parts;
  if (first[hour] === undefined) return "";
  const lit = sep === "T" ? "[T]" : sep;
  const h = width(shapes.map((s) => s.parts[hour]), "hh", "h");
  return `${lit}${h}:mm${first[seconds] === undefined ? "" : ":ss"}`;
}

/**
 * The bxp date format reading every non-empty value in `values`, or null when they are not all dates of
 * one shape. Fractions of a second and zone suffixes are skipped with `[*]` (the offset is not applied).
 */
export function inferDateFormat(values: readonly string[]): DateGuess | null {
  const present = values.filter((v) => v !== "");
  if (present.length === 0) return null;
  const shapes: Shape[] = [];
  for (const v of present) {
    const s = shapeOf(v);
    if (s === null || (shapes.length > 0 && s.key !== shapes[0].key)) return null;
    shapes.push(s);
  }
  const first = shapes[0].parts;
  let format: string;
  let ambiguous: string | null = null;
  let hasTime = false;
  if (shapes[0].key === "c") {
    format = "YYYYMMDD";
    const years = shapes.map((s) => Number(s.parts[1]));
    if (years.some((y) => y < 1900 || y > 2100)) return null;
  } else if (shapes[0].key.startsWith("m|")) {
    const sep = first[2];
    const month = shapes.every((s) => s.parts[3].length <= 4) ? "MMM" : "MMMM";
    const time = timeTokens(shapes, 6, 8, first[5] ?? "");
    hasTime = time !== "";
    format = `${width(shapes.map((s) => s.parts[1]), "DD", "D")}${sep}${month}${sep}YYYY${time}`;
  } else {
    const sep = first[2];
    const a = shapes.map((s) => s.parts[1]);
    const b = shapes.map((s) => s.parts[3]);
    const c = shapes.map((s) => s.parts[4]);
    const time = timeTokens(shapes, 6, 8, first[5] ?? "");
    const tail = first[9] !== undefined || first[10] !== undefined ? "[*]" : "";
    hasTime = time !== "";
    if (first[1].length === 4) {
      format = `YYYY${sep}${width(b, "MM", "M")}${sep}${width(c, "DD", "D")}`;
    } else {
      const year = c[0].length === 4 ? "YYYY" : "YY";
      const aOver = a.some((x) => Number(x) > 12);
      const bOver = b.some((x) => Number(x) > 12);
      if (aOver && bOver) return null;
      let dayFirst: boolean;
      if (aOver) dayFirst = true;
      else if (bOver) dayFirst = false;
      else {
        // Dotted dates are day-first across Europe; slashes and dashes are a real coin toss.
        dayFirst = sep !== "/";
        ambiguous = `no day above 12 in the sample: read as ${
          dayFirst ? "day-first" : "month-first"
        } (check against a known date)`;
      }
      const day = width(dayFirst ? a : b, "DD", "D");
      const mon = width(dayFirst ? b : a, "MM", "M");
      format = dayFirst ? `${day}${sep}${mon}${sep}${year}` : `${mon}${sep}${day}${sep}${year}`;
    }
    format += time + tail;
  }
  for (const v of present) if (convertDate(v, format, PROBE) === "") return null;
  return { format, kind: hasTime ? "datetime" : "date", ambiguous };
}
