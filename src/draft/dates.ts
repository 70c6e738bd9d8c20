/**
 * Date-format inference for the sniffer: reads a column's values and names the bxp date format (the tokens
 * `DATE_CONVERT` takes) that reads every one of them, or null. Every value counts: one unpadded day picks
 * the one-or-two-digit tokens (`D`, `M`), one field above 12 settles the day/month order, a 12-hour clock
 * gets `i`/`ii` and `A`, a UTC offset is read with `ZZ` (and applied with `TO_UTC`). When nothing in the
 * values settles the order, the caller's file-level hint (delimiter, decimal mark, header language) decides,
 * and the guess says so — never hidden.
 *
 * @example
 * ```ts
 * import { inferDateFormat } from "./dates.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   inferDateFormat(["31.12.2024", "01.02.2025"]),
 *   { format: "DD.MM.YYYY", kind: "date", ambiguous: null, offset: false },
 * );
 * assert.equal(inferDateFormat(["5.4.2012", "15.10.2012"])?.format, "D.M.YYYY");
 * ```
 * @module
 */

import { convertDate } from "../lang/mod.ts";

/** What {@link inferDateFormat} found. */
export interface DateGuess {
  /** bxp date format tokens reading every value. */
  format: string;
  kind: "date" | "datetime";
  /** Why the day/month order is a guess, or null when the values settle it. */
  ambiguous: string | null;
  /** True when the values carry a numeric UTC offset (read with `ZZ`; `TO_UTC` applies it). */
  offset: boolean;
}

/** The day/month order the rest of the file suggests, for values that do not settle it themselves. */
export interface DateOrderHint {
  dayFirst: boolean;
  /** Why, for the draft's comment ("the file's delimiter is ';' and its decimal mark ','"). */
  why: string;
}

/** Hints by date separator ("/", "-", "."). */
export type DateOrderHints = Readonly<Record<string, DateOrderHint>>;

/** A column's dates: one format per shape seen (a column may mix two), and the values none reads. */
export interface ColumnDates {
  /** The formats, most frequent first; each value is read by the first that fits. */
  formats: string[];
  kind: "date" | "datetime";
  ambiguous: string | null;
  offset: boolean;
  /** Non-empty values that are not dates at all (written as they are, with a note). */
  strays: string[];
}

/** The format every value is read through to prove it is a real date. */
const PROBE = "YYYY-MM-DD hh:mm:ss";

const NUMERIC = new RegExp(
  "^(\\d{1,4})([./-])(\\d{1,2})\\2(\\d{1,4})" +
    // time: separator, hours, minutes, seconds, fraction, AM/PM, zone
    "(?:( |T|, )(\\d{1,2}):(\\d{2})(?::(\\d{2}))?([.,]\\d+)?(?:( ?)([AaPp][Mm]))?" +
    "(?:( ?)(Z|UTC|GMT|[+-]\\d{2}:?\\d{2}))?)?$",
);
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
      // Year first: the last field is the day, whatever its width (2012/4/5 and 2012/10/15 are one shape).
      m[1].length === 4 ? "d" : m[4].length === 4 ? "y" : m[4].length === 2 ? "yy" : "?",
      m[5] ?? "",
      m[8] === undefined ? "" : "s",
      m[9] === undefined ? "" : "f",
      m[11] === undefined ? "" : `${m[10]}${m[11] === m[11].toUpperCase() ? "A" : "a"}`,
      m[13] === undefined ? "" : `${m[12]}${/^[+-]/.test(m[13]) ? "o" : m[13]}`,
    ].join("|");
    return { key, parts: m };
  }
  m = MONTH_NAME.exec(v);
  if (m) return { key: ["m", m[2], m[5] ?? "", m[8] === undefined ? "" : "s"].join("|"), parts: m };
  m = COMPACT.exec(v);
  if (m) return { key: "c", parts: m };
  return null;
}

/** The day/month order the values themselves prove, for day-or-month-first shapes. */
export function provenOrder(values: readonly string[]): "day" | "month" | "none" | "neither" {
  let aOver = false;
  let bOver = false;
  for (const v of values) {
    const m = NUMERIC.exec(v);
    if (m === null || m[1].length === 4) continue;
    if (Number(m[1]) > 12) aOver = true;
    if (Number(m[3]) > 12) bOver = true;
  }
  if (aOver && bOver) return "neither";
  return aOver ? "day" : bOver ? "month" : "none";
}

function formatOf(
  shapes: readonly Shape[],
  hints: DateOrderHints | null | undefined,
): { format: string; hasTime: boolean; ambiguous: string | null; offset: boolean } | null {
  const first = shapes[0].parts;
  if (shapes[0].key === "c") {
    const years = shapes.map((s) => Number(s.parts[1]));
    if (years.some((y) => y < 1900 || y > 2100)) return null;
    return { format: "YYYYMMDD", hasTime: false, ambiguous: null, offset: false };
  }
  const oneDigit = (index: number) => shapes.some((s) => s.parts[index]?.length === 1);
  if (shapes[0].key.startsWith("m|")) {
    const sep = first[2];
    const month = shapes.every((s) => s.parts[3].length <= 4) ? "MMM" : "MMMM";
    let time = "";
    if (first[6] !== undefined) {
      time = `${first[5]}${oneDigit(6) ? "h" : "hh"}:mm${first[8] === undefined ? "" : ":ss"}`;
    }
    return {
      format: `${oneDigit(1) ? "D" : "DD"}${sep}${month}${sep}YYYY${time}`,
      hasTime: time !== "",
      ambiguous: null,
      offset: false,
    };
  }
  const sep = first[2];
  // One unpadded day or month anywhere means the export does not pad: `D`/`M` read 1 or 2 digits, so
  // both take the short tokens (a padded '2012/4/15' beside '2012/4/5' must not get 'DD').
  const unpadded = first[1].length === 4 ? oneDigit(3) || oneDigit(4) : oneDigit(1) || oneDigit(3);
  const day = unpadded ? "D" : "DD";
  const mon = unpadded ? "M" : "MM";
  let format: string;
  let ambiguous: string | null = null;
  if (first[1].length === 4) format = `YYYY${sep}${mon}${sep}${day}`;
  else {
    const year = first[4].length === 4 ? "YYYY" : "YY";
    const order = provenOrder(shapes.map((s) => s.parts[0]));
    if (order === "neither") return null;
    let dayFirst: boolean;
    const hint = hints?.[sep];
    if (order !== "none") dayFirst = order === "day";
    else if (hint) {
      dayFirst = hint.dayFirst;
      ambiguous = `no day above 12 in the sample: read as ${dayFirst ? "day-first" : "month-first"} ` +
        `because ${hint.why} (check against a known date)`;
    } else {
      // Dotted dates are day-first across Europe; slashes and dashes are a real coin toss.
      dayFirst = sep !== "/";
      ambiguous = `no day above 12 in the sample: read as ${dayFirst ? "day-first" : "month-first"}` +
        " (check against a known date)";
    }
    format = dayFirst ? `${day}${sep}${mon}${sep}${year}` : `${mon}${sep}${day}${sep}${year}`;
  }
  let hasTime = false;
  let offset = false;
  if (first[6] !== undefined) {
    hasTime = true;
    const twelve = first[11] !== undefined;
    const h = oneDigit(6) ? (twelve ? "i" : "h") : (twelve ? "ii" : "hh");
    format += `${first[5] === "T" ? "[T]" : first[5]}${h}:mm${first[8] === undefined ? "" : ":ss"}`;
    // A fraction of a second is skipped (bxp keeps whole seconds).
    if (first[9] !== undefined) format += "[*]";
    if (twelve) format += `${first[10]}${first[11] === first[11].toUpperCase() ? "A" : "a"}`;
    if (first[13] !== undefined) {
      if (/^[+-]/.test(first[13])) {
        offset = true;
        format += `${first[12]}ZZ`;
      } else if (first[9] === undefined || twelve) format += `[${first[12]}${first[13]}]`;
      // After a fraction, the wildcard already skips a Z or UTC suffix.
    }
  }
  return { format, hasTime, ambiguous, offset };
}

/**
 * The bxp date format reading every non-empty value in `values`, or null when they are not all dates of
 * one shape. `hints` (by separator) settle the day/month order when the values do not.
 */
export function inferDateFormat(values: readonly string[], hints?: DateOrderHints | null): DateGuess | null {
  const present = values.filter((v) => v !== "");
  if (present.length === 0) return null;
  const shapes: Shape[] = [];
  for (const v of present) {
    const s = shapeOf(v);
    if (s === null || (shapes.length > 0 && s.key !== shapes[0].key)) return null;
    shapes.push(s);
  }
  const f = formatOf(shapes, hints);
  if (f === null) return null;
  for (const v of present) if (convertDate(v, f.format, PROBE) === "") return null;
  return {
    format: f.format,
    kind: f.hasTime ? "datetime" : "date",
    ambiguous: f.ambiguous,
    offset: f.offset,
  };
}

/** Most formats one column is drafted with. */
const MAX_FORMATS = 3;

/**
 * A column's dates when it mixes shapes (`2024-01-15` beside `01/16/2024`) or holds a stray non-date
 * (`not-a-date`): one format per shape, and the strays. Null unless nearly every value is a date (at most
 * two strays, and never more than a tenth of the values).
 */
export function inferColumnDates(
  values: readonly string[],
  hints?: DateOrderHints | null,
): ColumnDates | null {
  const present = values.filter((v) => v !== "");
  if (present.length === 0) return null;
  const single = inferDateFormat(present, hints);
  if (single !== null) return { formats: [single.format], ...single, strays: [] };
  const groups = new Map<string, string[]>();
  const strays: string[] = [];
  for (const v of present) {
    const s = shapeOf(v);
    if (s === null) strays.push(v);
    else groups.set(s.key, [...(groups.get(s.key) ?? []), v]);
  }
  const ordered = [...groups.values()].sort((a, b) => b.length - a.length);
  const formats: string[] = [];
  let kind: "date" | "datetime" = "date";
  let ambiguous: string | null = null;
  let offset = false;
  for (const g of ordered) {
    const guess = formats.length < MAX_FORMATS ? inferDateFormat(g, hints) : null;
    if (guess === null) {
      strays.push(...g);
      continue;
    }
    formats.push(guess.format);
    if (guess.kind === "datetime") kind = "datetime";
    ambiguous ??= guess.ambiguous;
    offset ||= guess.offset;
  }
  const dated = present.length - strays.length;
  if (formats.length === 0 || dated < 2 || strays.length > 2 || strays.length * 10 > present.length) {
    return null;
  }
  // Mixed kinds would write dates and date-times in one column: the day-only shapes read as midnight.
  return { formats, kind, ambiguous, offset, strays };
}
