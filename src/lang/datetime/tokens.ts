/**
 * The date format token vocabulary shared by `DATE_CONVERT`'s input and output formats, the
 * format-string tokenizer (with a compile cache) and the static "bad letter" check.
 *
 * @example
 * ```ts
 * import { checkDateFormat, compileFormat } from "./tokens.ts";
 * import assert from "node:assert/strict";
 * assert.equal(compileFormat("DD.MM.YYYY").tokens.length, 5);
 * assert.deepEqual(checkDateFormat("YYYY-MN-DD"), { letter: "N", offset: 6 });
 * ```
 * @module
 */

/** What one format token reads or writes. */
export enum Tok {
  Year4,
  Year2,
  Month2,
  Month1,
  MonthShortName,
  MonthLongName,
  Day2,
  Day1,
  WeekdayLongName,
  WeekdayShortName,
  WeekdayNumber,
  Hour24Two,
  Hour24One,
  Hour12Two,
  Hour12One,
  Minute2,
  Minute1,
  Second2,
  Second1,
  AmPmUpper,
  AmPmLower,
  Offset,
  Wildcard,
  Literal,
}

/** One compiled token; `text` is set for literals only. */
export interface FormatToken {
  readonly kind: Tok;
  readonly text: string;
}

/** A tokenized format string. `tooManyTokens` mirrors bxp's fixed token budget (64). */
export interface CompiledFormat {
  readonly source: string;
  readonly tokens: readonly FormatToken[];
  readonly tooManyTokens: boolean;
}

/** bxp keeps at most this many tokens per format; longer formats fail to parse or format. */
const MAX_TOKENS = 64;

// Longest spelling first, so `YYYY` wins over `YY` and `MMMM` over `MMM`.
const TOKEN_SPELLINGS: readonly [string, Tok][] = [
  ["YYYY", Tok.Year4],
  ["MMMM", Tok.MonthLongName],
  ["EEEE", Tok.WeekdayLongName],
  ["MMM", Tok.MonthShortName],
  ["EEE", Tok.WeekdayShortName],
  ["MM", Tok.Month2],
  ["DD", Tok.Day2],
  ["ii", Tok.Hour12Two],
  ["hh", Tok.Hour24Two],
  ["mm", Tok.Minute2],
  ["ss", Tok.Second2],
  ["ZZ", Tok.Offset],
  ["YY", Tok.Year2],
  ["EE", Tok.WeekdayShortName],
  ["M", Tok.Month1],
  ["D", Tok.Day1],
  ["i", Tok.Hour12One],
  ["h", Tok.Hour24One],
  ["m", Tok.Minute1],
  ["s", Tok.Second1],
  ["E", Tok.WeekdayShortName],
  ["e", Tok.WeekdayNumber],
  ["A", Tok.AmPmUpper],
  ["a", Tok.AmPmLower],
];

/** Spelling matched at `pos`, or undefined. */
function tokenAt(fmt: string, pos: number): [string, Tok] | undefined {
  for (const entry of TOKEN_SPELLINGS) {
    if (fmt.startsWith(entry[0], pos)) return entry;
  }
  return undefined;
}

function isTokenStart(fmt: string, pos: number): boolean {
  return fmt.charCodeAt(pos) === 0x5b /* [ */ || tokenAt(fmt, pos) !== undefined;
}

function tokenize(fmt: string): CompiledFormat {
  const tokens: FormatToken[] = [];
  let pos = 0;
  while (pos < fmt.length) {
    if (tokens.length >= MAX_TOKENS) return { source: fmt, tokens, tooManyTokens: true };
    if (fmt.charCodeAt(pos) === 0x5b) {
      // An unclosed `[` takes the rest of the format as its content; `[]` is plain text.
      const close = fmt.indexOf("]", pos + 1);
      const end = close < 0 ? fmt.length : close;
      if (end > pos + 1) {
        const content = fmt.slice(pos + 1, end);
        tokens.push(
          content === "*" ? { kind: Tok.Wildcard, text: "" } : { kind: Tok.Literal, text: content },
        );
        pos = end + 1;
        continue;
      }
    }
    const spelled = tokenAt(fmt, pos);
    if (spelled !== undefined) {
      tokens.push({ kind: spelled[1], text: "" });
      pos += spelled[0].length;
      continue;
    }
    // Any other run of characters up to the next token start is literal text.
    const start = pos;
    pos++;
    while (pos < fmt.length && !isTokenStart(fmt, pos)) pos++;
    tokens.push({ kind: Tok.Literal, text: fmt.slice(start, pos) });
  }
  return { source: fmt, tokens, tooManyTokens: false };
}

// Formats come from templates, so a handful of distinct strings serve millions of rows.
const compiledCache = new Map<string, CompiledFormat>();
const COMPILED_CACHE_LIMIT = 512;

/** Tokenize `fmt` once and reuse the result on every later call with the same string. */
export function compileFormat(fmt: string): CompiledFormat {
  let compiled = compiledCache.get(fmt);
  if (compiled === undefined) {
    compiled = tokenize(fmt);
    if (compiledCache.size >= COMPILED_CACHE_LIMIT) compiledCache.clear();
    compiledCache.set(fmt, compiled);
  }
  return compiled;
}

/** True when `fmt` uses the 3-letter month token `MMM` (a run of exactly three `M`s, not `MMMM`). */
export function usesShortMonthName(fmt: string): boolean {
  let i = 0;
  while (i + 3 <= fmt.length) {
    if (fmt.startsWith("MMM", i)) {
      if (fmt.charCodeAt(i + 3) === 0x4d /* M */) {
        i += 4;
        continue;
      }
      return true;
    }
    i++;
  }
  return false;
}

/**
 * First ASCII letter of `fmt` that is neither part of a token nor inside `[...]`, with its UTF-8
 * byte offset; null when every letter belongs to the vocabulary. An unclosed `[` ends the scan.
 *
 * @example
 * ```ts
 * import { checkDateFormat } from "./tokens.ts";
 * import assert from "node:assert/strict";
 * assert.equal(checkDateFormat("YYYY-MM-DD[T]hh:mm:ss[*]"), null);
 * assert.deepEqual(checkDateFormat("YYYY-Q-DD"), { letter: "Q", offset: 5 });
 * ```
 */
export function checkDateFormat(fmt: string): { letter: string; offset: number } | null {
  let pos = 0;
  while (pos < fmt.length) {
    if (fmt.charCodeAt(pos) === 0x5b) {
      const close = fmt.indexOf("]", pos + 1);
      if (close < 0) return null;
      pos = close + 1;
      continue;
    }
    const spelled = tokenAt(fmt, pos);
    if (spelled !== undefined) {
      pos += spelled[0].length;
      continue;
    }
    const code = fmt.charCodeAt(pos);
    if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) {
      return { letter: fmt[pos], offset: new TextEncoder().encode(fmt.slice(0, pos)).length };
    }
    pos++;
  }
  return null;
}

/** The date-token catalog for the language docs (`date_tokens`), in bxp's order. */
export const DATE_TOKENS: readonly { token: string; meaning: string; example: string }[] = [
  { token: "YYYY", meaning: "Year, four digits", example: "2026" },
  { token: "YY", meaning: "Year, two digits (00-69 read as 20xx, 70-99 as 19xx)", example: "26" },
  { token: "MM", meaning: "Month number, two digits (01-12)", example: "03" },
  { token: "M", meaning: "Month number, one or two digits", example: "3" },
  { token: "MMMM", meaning: "Month name in full", example: "March" },
  { token: "MMM", meaning: "Month name, first three letters", example: "Mar" },
  { token: "DD", meaning: "Day of the month, two digits (01-31)", example: "07" },
  { token: "D", meaning: "Day of the month, one or two digits", example: "7" },
  { token: "hh", meaning: "Hour on the 24-hour clock, two digits (00-23)", example: "14" },
  { token: "h", meaning: "Hour on the 24-hour clock, one or two digits", example: "14" },
  {
    token: "ii",
    meaning: "Hour on the 12-hour clock, two digits (01-12); pair it with A or a",
    example: "02",
  },
  { token: "i", meaning: "Hour on the 12-hour clock, one or two digits", example: "2" },
  { token: "mm", meaning: "Minute, two digits (lower-case: MM is the month)", example: "05" },
  { token: "m", meaning: "Minute, one or two digits", example: "5" },
  { token: "ss", meaning: "Second, two digits", example: "09" },
  { token: "s", meaning: "Second, one or two digits", example: "9" },
  { token: "A", meaning: "AM or PM marker, upper case", example: "PM" },
  { token: "a", meaning: "am or pm marker, lower case", example: "pm" },
  {
    token: "ZZ",
    meaning: "UTC offset as ±HH:MM; when reading, a bare Z counts as +00:00",
    example: "+02:00",
  },
  { token: "EEEE", meaning: "Weekday name in full", example: "Monday" },
  { token: "EEE/EE/E", meaning: "Weekday name, first three letters", example: "Mon" },
  { token: "e", meaning: "Weekday number, Monday = 1 to Sunday = 7", example: "1" },
  { token: "[text]", meaning: "Literal text, matched or written as is", example: "[T] → T" },
  {
    token: "[*]",
    meaning: "Wildcard: when reading, skip ahead to where the next token can start",
    example: "skips a Z or zone suffix",
  },
];
