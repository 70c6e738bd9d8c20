/**
 * Reading and writing dates through compiled format strings (the engine of `DATE_CONVERT`,
 * `TO_UTC` and two-argument `IS_DATE`). Parsing walks the input with char codes: no regexes and
 * no `Date` objects, because it runs on every row of large files.
 *
 * @example
 * ```ts
 * import { convertDate, parseWithFormat } from "./format.ts";
 * import assert from "node:assert/strict";
 * assert.equal(convertDate("31.12.2024", "DD.MM.YYYY", "YYYY-MM-DD"), "2024-12-31");
 * assert.equal(parseWithFormat("3 Sept 2022", "D MMM YYYY")?.month, 9);
 * ```
 * @module
 */

import { civilToDays, isoWeekday, isValidDate, pad } from "./calendar.ts";
import { type CompiledFormat, compileFormat, type FormatToken, Tok, usesShortMonthName } from "./tokens.ts";

/** Fields read from a date string. Missing date parts default to 1970-01-01, time to 00:00:00. */
export interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** UTC offset in minutes read by `ZZ`; null when the format has no `ZZ`. */
  offsetMinutes: number | null;
}

const SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const LONG_MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const SHORT_WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const SHORT_MONTHS_LOWER = SHORT_MONTHS.map((name) => name.toLowerCase());
const LONG_MONTHS_LOWER = LONG_MONTHS.map((name) => name.toLowerCase());
const SHORT_WEEKDAYS_LOWER = SHORT_WEEKDAYS.map((name) => name.toLowerCase());
const LONG_WEEKDAYS_LOWER = LONG_WEEKDAYS.map((name) => name.toLowerCase());

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Value of `length` ASCII digits at `pos`, or -1 when any of them is not a digit or missing. */
function digitsAt(s: string, pos: number, length: number): number {
  if (pos + length > s.length) return -1;
  let value = 0;
  for (let i = pos; i < pos + length; i++) {
    const code = s.charCodeAt(i);
    if (!isDigit(code)) return -1;
    value = value * 10 + (code - 0x30);
  }
  return value;
}

/** Number of consecutive digits at `pos`, at most `max`. */
function digitRun(s: string, pos: number, max: number): number {
  let n = 0;
  while (n < max && pos + n < s.length && isDigit(s.charCodeAt(pos + n))) n++;
  return n;
}

/** ASCII case-insensitive comparison of `s` at `pos` with a lower-case `word`. */
function matchesWordAt(s: string, pos: number, word: string): boolean {
  if (pos + word.length > s.length) return false;
  for (let i = 0; i < word.length; i++) {
    let code = s.charCodeAt(pos + i);
    if (code >= 0x41 && code <= 0x5a) code += 0x20;
    if (code !== word.charCodeAt(i)) return false;
  }
  return true;
}

/** Index in `words` of the first one found at `pos`, or -1. */
function wordIndexAt(s: string, pos: number, words: readonly string[]): number {
  for (let i = 0; i < words.length; i++) if (matchesWordAt(s, pos, words[i])) return i;
  return -1;
}

/** Where a `[*]` wildcard stops: the first position from `pos` where `next` could start, or -1. */
function wildcardEnd(s: string, pos: number, next: FormatToken): number {
  switch (next.kind) {
    case Tok.Literal: {
      return s.indexOf(next.text, pos);
    }
    case Tok.Year4:
      for (let i = pos; i + 4 <= s.length; i++) if (digitsAt(s, i, 4) >= 0) return i;
      return -1;
    case Tok.Year2:
    case Tok.Month2:
    case Tok.Day2:
    case Tok.Hour24Two:
    case Tok.Hour12Two:
    case Tok.Minute2:
    case Tok.Second2:
      for (let i = pos; i + 2 <= s.length; i++) if (digitsAt(s, i, 2) >= 0) return i;
      return -1;
    case Tok.Month1:
    case Tok.Day1:
    case Tok.Hour24One:
    case Tok.Hour12One:
    case Tok.Minute1:
    case Tok.Second1:
    case Tok.WeekdayNumber:
      for (let i = pos; i < s.length; i++) if (isDigit(s.charCodeAt(i))) return i;
      return -1;
    case Tok.MonthShortName:
      return scanForWord(s, pos, SHORT_MONTHS_LOWER);
    case Tok.MonthLongName:
      return scanForWord(s, pos, LONG_MONTHS_LOWER);
    case Tok.WeekdayShortName:
      return scanForWord(s, pos, SHORT_WEEKDAYS_LOWER);
    case Tok.WeekdayLongName:
      return scanForWord(s, pos, LONG_WEEKDAYS_LOWER);
    case Tok.AmPmUpper:
    case Tok.AmPmLower:
      return scanForWord(s, pos, ["am", "pm"]);
    case Tok.Offset:
      for (let i = pos; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c === 0x2b || c === 0x2d || c === 0x5a || c === 0x7a) return i;
      }
      return -1;
    case Tok.Wildcard:
      return -1;
  }
}

function scanForWord(s: string, pos: number, words: readonly string[]): number {
  for (let i = pos; i < s.length; i++) if (wordIndexAt(s, i, words) >= 0) return i;
  return -1;
}

/**
 * Read a `ZZ` offset at `pos`: `Z`/`z`, or a sign, two hour digits, an optional colon and two
 * minute digits (hours 0-23, minutes 0-59). Returns [minutes, next position] or null.
 */
export function readOffset(s: string, pos: number): [number, number] | null {
  const first = s.charCodeAt(pos);
  if (first === 0x5a || first === 0x7a) return [0, pos + 1];
  if (first !== 0x2b && first !== 0x2d) return null;
  let p = pos + 1;
  const hours = digitsAt(s, p, 2);
  if (hours < 0) return null;
  p += 2;
  if (s.charCodeAt(p) === 0x3a) p++;
  const minutes = digitsAt(s, p, 2);
  if (minutes < 0) return null;
  p += 2;
  if (hours > 23 || minutes > 59) return null;
  const magnitude = hours * 60 + minutes;
  return [first === 0x2d ? -magnitude : magnitude, p];
}

/**
 * Parse `input` under a compiled format. Null when the input does not fit, a field is out of range
 * (month 13, Feb 30, hour 25, …) or the format is over the token budget. Text after the last token
 * is ignored, as in bxp; a token with no input left to read fails, a trailing `[*]` included.
 */
export function parseCompiled(input: string, format: CompiledFormat): DateParts | null {
  if (format.tooManyTokens) return null;
  const tokens = format.tokens;
  let year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0;
  let pm: boolean | null = null;
  let offsetMinutes: number | null = null;
  let p = 0;
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t];
    if (p >= input.length) return null;
    let value: number;
    switch (token.kind) {
      case Tok.Year4:
        if ((value = digitsAt(input, p, 4)) < 0) return null;
        year = value;
        p += 4;
        break;
      case Tok.Year2:
        if ((value = digitsAt(input, p, 2)) < 0) return null;
        year = value < 70 ? 2000 + value : 1900 + value;
        p += 2;
        break;
      case Tok.Month2:
      case Tok.Day2:
      case Tok.Hour24Two:
      case Tok.Hour12Two:
      case Tok.Minute2:
      case Tok.Second2:
        if ((value = digitsAt(input, p, 2)) < 0) return null;
        p += 2;
        if (token.kind === Tok.Month2) month = value;
        else if (token.kind === Tok.Day2) day = value;
        else if (token.kind === Tok.Minute2) minute = value;
        else if (token.kind === Tok.Second2) second = value;
        else hour = value;
        break;
      case Tok.Month1:
      case Tok.Day1:
      case Tok.Hour24One:
      case Tok.Hour12One:
      case Tok.Minute1:
      case Tok.Second1: {
        const run = digitRun(input, p, 2);
        if (run === 0) return null;
        value = digitsAt(input, p, run);
        p += run;
        if (token.kind === Tok.Month1) month = value;
        else if (token.kind === Tok.Day1) day = value;
        else if (token.kind === Tok.Minute1) minute = value;
        else if (token.kind === Tok.Second1) second = value;
        else hour = value;
        break;
      }
      case Tok.MonthShortName: {
        const index = wordIndexAt(input, p, SHORT_MONTHS_LOWER);
        if (index < 0) return null;
        month = index + 1;
        p += 3;
        break;
      }
      case Tok.MonthLongName: {
        const index = wordIndexAt(input, p, LONG_MONTHS_LOWER);
        if (index < 0) return null;
        month = index + 1;
        p += LONG_MONTHS[index].length;
        break;
      }
      case Tok.WeekdayLongName:
      case Tok.WeekdayShortName: {
        // Read for shape only: the date fields decide the day. The full name is tried first.
        let index = wordIndexAt(input, p, LONG_WEEKDAYS_LOWER);
        if (index >= 0) p += LONG_WEEKDAYS[index].length;
        else if ((index = wordIndexAt(input, p, SHORT_WEEKDAYS_LOWER)) >= 0) p += 3;
        else return null;
        break;
      }
      case Tok.WeekdayNumber: {
        const weekday = digitsAt(input, p, 1);
        if (weekday < 1 || weekday > 7) return null;
        p += 1;
        break;
      }
      case Tok.AmPmUpper:
      case Tok.AmPmLower:
        if (matchesWordAt(input, p, "am")) pm = false;
        else if (matchesWordAt(input, p, "pm")) pm = true;
        else return null;
        p += 2;
        break;
      case Tok.Offset: {
        const read = readOffset(input, p);
        if (read === null) return null;
        offsetMinutes = read[0];
        p = read[1];
        break;
      }
      case Tok.Wildcard:
        if (t + 1 < tokens.length) {
          const stop = wildcardEnd(input, p, tokens[t + 1]);
          if (stop < 0) return null;
          p = stop;
        } else {
          p = input.length;
        }
        break;
      case Tok.Literal:
        if (!input.startsWith(token.text, p)) return null;
        p += token.text.length;
        break;
    }
  }
  if (pm !== null) {
    if (hour === 12) {
      if (!pm) hour = 0;
    } else if (pm) {
      hour += 12;
    }
  }
  if (!isValidDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
  return { year, month, day, hour, minute, second, offsetMinutes };
}

/** Render `parts` under a compiled format; null for a negative year or an over-budget format. */
export function formatCompiled(parts: DateParts, format: CompiledFormat): string | null {
  if (format.tooManyTokens || parts.year < 0) return null;
  const tokens = format.tokens;
  let weekday = 0;
  let out = "";
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t];
    switch (token.kind) {
      case Tok.Year4:
        out += pad(parts.year, 4);
        break;
      case Tok.Year2:
        out += pad(parts.year % 100, 2);
        break;
      case Tok.Month2:
        out += pad(parts.month, 2);
        break;
      case Tok.Month1:
        out += parts.month;
        break;
      case Tok.MonthShortName:
        out += SHORT_MONTHS[parts.month - 1];
        break;
      case Tok.MonthLongName:
        out += LONG_MONTHS[parts.month - 1];
        break;
      case Tok.Day2:
        out += pad(parts.day, 2);
        break;
      case Tok.Day1:
        out += parts.day;
        break;
      case Tok.WeekdayLongName:
      case Tok.WeekdayShortName:
      case Tok.WeekdayNumber:
        if (weekday === 0) weekday = isoWeekday(civilToDays(parts.year, parts.month, parts.day));
        out += token.kind === Tok.WeekdayNumber
          ? weekday
          : (token.kind === Tok.WeekdayLongName ? LONG_WEEKDAYS : SHORT_WEEKDAYS)[weekday - 1];
        break;
      case Tok.Hour24Two:
        out += pad(parts.hour, 2);
        break;
      case Tok.Hour24One:
        out += parts.hour;
        break;
      case Tok.Hour12Two:
        out += pad(twelveHour(parts.hour), 2);
        break;
      case Tok.Hour12One:
        out += twelveHour(parts.hour);
        break;
      case Tok.Minute2:
        out += pad(parts.minute, 2);
        break;
      case Tok.Minute1:
        out += parts.minute;
        break;
      case Tok.Second2:
        out += pad(parts.second, 2);
        break;
      case Tok.Second1:
        out += parts.second;
        break;
      case Tok.AmPmUpper:
        out += parts.hour < 12 ? "AM" : "PM";
        break;
      case Tok.AmPmLower:
        out += parts.hour < 12 ? "am" : "pm";
        break;
      case Tok.Offset:
        out += formatOffset((parts.offsetMinutes ?? 0) * 60);
        break;
      case Tok.Wildcard:
        break;
      case Tok.Literal:
        out += token.text;
        break;
    }
  }
  return out;
}

function twelveHour(hour: number): number {
  if (hour === 0) return 12;
  return hour <= 12 ? hour : hour - 12;
}

/** `±HH:MM` for an offset in seconds (seconds past the minute are dropped). */
export function formatOffset(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? "-" : "+";
  const minutes = Math.trunc(Math.abs(offsetSeconds) / 60);
  return `${sign}${pad(Math.trunc(minutes / 60), 2)}:${pad(minutes % 60, 2)}`;
}

/**
 * Trim four-letter month abbreviations (`Sept`, `June`, `July`) to the three letters `MMM` reads.
 * Only whole alphabetic words of exactly four letters whose first three spell a month change.
 */
export function normalizeMonthAbbreviations(s: string): string {
  let out = "";
  let copiedUpTo = 0;
  let i = 0;
  while (i < s.length) {
    if (!isAsciiLetter(s.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < s.length && isAsciiLetter(s.charCodeAt(i))) i++;
    if (i - start === 4 && wordIndexAt(s, start, SHORT_MONTHS_LOWER) >= 0) {
      out += s.slice(copiedUpTo, start + 3);
      copiedUpTo = i;
    }
  }
  return copiedUpTo === 0 ? s : out + s.slice(copiedUpTo);
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/**
 * Parse `input` under the format string `fmt`, with bxp's `MMM` pre-pass for four-letter month
 * abbreviations. Null when it does not fit.
 */
export function parseWithFormat(input: string, fmt: string): DateParts | null {
  const source = usesShortMonthName(fmt) ? normalizeMonthAbbreviations(input) : input;
  return parseCompiled(source, compileFormat(fmt));
}

/** `DATE_CONVERT`: parse under `fromFmt`, render under `toFmt`; "" when the input does not fit. */
export function convertDate(value: string, fromFmt: string, toFmt: string): string {
  const parts = parseWithFormat(value, fromFmt);
  if (parts === null) return "";
  return formatCompiled(parts, compileFormat(toFmt)) ?? "";
}

/**
 * Inputs longer than this are converted but not remembered. V8 copies substrings shorter than 13
 * characters, so a remembered key never pins a large decoded chunk it was sliced from; dates without
 * a time fit, and values with a time are mostly unique anyway.
 */
const MEMO_MAX_INPUT = 12;
/** Slots of the per-converter memo (a power of two): bounded memory, no clearing needed. */
const MEMO_SLOTS = 4096;
/** Calls of one converter before it starts remembering results. */
const MEMO_AFTER_CALLS = 64;

/**
 * `convertDate` with both formats fixed, for one call site: the formats are compiled once, and results
 * are remembered per input text, because real date columns repeat the same few thousand values.
 *
 * The memo is direct-mapped on a hash of the characters and compared with `===`: unlike a `Map` key
 * lookup this leaves the input string as it is (a `Map` lookup can turn it into an indirection that
 * slows every later use of the same field, e.g. in a concatenation).
 *
 * @example
 * ```ts
 * import { dateConverter } from "./format.ts";
 * import assert from "node:assert/strict";
 * const toIso = dateConverter("DD.MM.YYYY", "YYYY-MM-DD");
 * // the same as convertDate("31.12.2024", "DD.MM.YYYY", "YYYY-MM-DD")
 * assert.equal(toIso("31.12.2024"), "2024-12-31");
 * ```
 */
export function dateConverter(fromFmt: string, toFmt: string): (value: string) => string {
  const from = compileFormat(fromFmt);
  const to = compileFormat(toFmt);
  const monthPrepass = usesShortMonthName(fromFmt);
  const convert = (value: string): string => {
    const parts = parseCompiled(monthPrepass ? normalizeMonthAbbreviations(value) : value, from);
    return parts === null ? "" : formatCompiled(parts, to) ?? "";
  };
  // The memo pays off only over many rows: one-shot evaluations (validation, bxp_eval) never allocate it.
  let keys: Array<string | undefined> | null = null;
  let results: string[] = [];
  let uncached = 0;
  return (value) => {
    const n = value.length;
    if (n > MEMO_MAX_INPUT) return convert(value);
    if (keys === null) {
      if (++uncached <= MEMO_AFTER_CALLS) return convert(value);
      keys = new Array(MEMO_SLOTS).fill(undefined);
      results = new Array(MEMO_SLOTS).fill("");
    }
    let h = n;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x9e3779b1);
    const slot = (h ^ (h >>> 15)) & (MEMO_SLOTS - 1);
    if (keys[slot] === value) return results[slot];
    const out = convert(value);
    keys[slot] = value;
    results[slot] = out;
    return out;
  };
}
