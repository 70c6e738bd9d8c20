/**
 * The `YYYY-MM-DD_YYYY-MM-DD` range that `date_filter_from_filename` reads from an input file's stem.
 *
 * @example
 * ```ts
 * import { extractDateRange } from "./date_range.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   extractDateRange("statement_2024-01-01_2024-12-31"),
 *   { kind: "valid", min: "2024-01-01", max: "2024-12-31" },
 * );
 * ```
 * @module
 */

/** What a file stem says about its date range. */
export type DateRange =
  | { kind: "none" }
  | { kind: "invalid" }
  | { kind: "valid"; min: string; max: string };

const RANGE_LENGTH = 21; // "YYYY-MM-DD_YYYY-MM-DD"

function isDigitAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** True when `s` (10 chars from `at`) has the `DDDD-DD-DD` shape. */
function hasDateShape(s: string, at: number): boolean {
  for (let i = 0; i < 10; i++) {
    if (i === 4 || i === 7) {
      if (s[at + i] !== "-") return false;
    } else if (!isDigitAt(s, at + i)) {
      return false;
    }
  }
  return true;
}

/** Shape plus plausible components: month 01-12, day 01-31 (month lengths are not checked, as in bxp). */
function isPlausibleDate(s: string, at: number): boolean {
  if (!hasDateShape(s, at)) return false;
  const month = Number(s.slice(at + 5, at + 7));
  const day = Number(s.slice(at + 8, at + 10));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/**
 * Finds the first `YYYY-MM-DD_YYYY-MM-DD` in `stem`. A range-shaped substring with impossible components or
 * `min > max` is `invalid` (the caller warns and filters nothing) rather than silently matching no row.
 */
export function extractDateRange(stem: string): DateRange {
  for (let i = 0; i + RANGE_LENGTH <= stem.length; i++) {
    if (stem[i + 10] !== "_") continue;
    if (isPlausibleDate(stem, i) && isPlausibleDate(stem, i + 11)) {
      const min = stem.slice(i, i + 10);
      const max = stem.slice(i + 11, i + 21);
      return min > max ? { kind: "invalid" } : { kind: "valid", min, max };
    }
    if (hasDateShape(stem, i) && hasDateShape(stem, i + 11)) return { kind: "invalid" };
  }
  return { kind: "none" };
}

/**
 * True when `date` falls outside `[min, max]` by a lexical compare of its first 10 characters.
 * Call {@link requireComparableDate} first: a `$date` shorter than 10 characters cannot be placed and is
 * reported here as inside the range.
 */
export function outsideRange(date: string, min: string, max: string): boolean {
  if (date.length < 10) return false;
  const day = date.length === 10 ? date : date.slice(0, 10);
  return (min !== "" && day < min) || (max !== "" && day > max);
}

/**
 * A live filename date filter met a `$date` it cannot compare (shorter than `YYYY-MM-DD`). bxp stops the run:
 * letting such rows through would make a filter the user asked for silently do nothing.
 */
export class UncomparableDateError extends Error {
  constructor(template: string, file: string, recordNum: number, date: string, min: string, max: string) {
    super(
      `template '${template}': '${file}' record ${recordNum}: date_filter_from_filename is on, but $date is ` +
        `'${date}' — too short to compare against the filename's range ${min}..${max}, so this row can be ` +
        `neither kept nor filtered out. Check the $date expression: a [Column] the file does not have ` +
        `evaluates to empty`,
    );
    this.name = "UncomparableDateError";
  }
}

/**
 * Throws {@link UncomparableDateError} when a range is in force (`min` or `max` set) and `date` is too short
 * to compare. Without a range (no `YYYY-MM-DD_YYYY-MM-DD` in the file name) every `$date` is acceptable.
 *
 * @example
 * ```ts
 * import { requireComparableDate } from "./date_range.ts";
 * import assert from "node:assert/strict";
 * assert.doesNotThrow(() => requireComparableDate("", "", "", { template: "t", file: "f", recordNum: 1 })); // no range
 * ```
 */
export function requireComparableDate(
  date: string,
  min: string,
  max: string,
  where: { template: string; file: string; recordNum: number },
): void {
  if ((min === "" && max === "") || date.length >= 10) return;
  throw new UncomparableDateError(where.template, where.file, where.recordNum, date, min, max);
}
