/**
 * When a bare `$v: [Column]` value can be copied from the input text to the output unchanged. The general
 * path reads the trimmed field, normalises the decimal separator (`csv_decimal_separator_in`), tidies
 * numeric-looking text (`884.10` -> `884.1`, see `canonicalNumericString`), then the CSV writer rewrites the
 * decimal separator (`csv_decimal_separator_out`), quotes, escapes line breaks and guards formulas. This check
 * says, from the characters alone, that none of those steps changes the value and that its bytes are its
 * characters (ASCII). When unsure it says no, and the caller takes the general path: it is exact, never
 * clever.
 *
 * @example
 * ```ts
 * import { verbatimRules, verbatimSafe } from "./verbatim.ts";
 * import assert from "node:assert/strict";
 * const rules = verbatimRules({ delimiterOut: ",", quoteOut: "", decimalIn: ".", decimalOut: "." });
 * assert.equal(verbatimSafe("abc,884.10", 0, 3, rules), true);
 * assert.equal(verbatimSafe("abc,884.10", 4, 10, rules), false); // printed as 884.1
 * ```
 * @module
 */

/** The settings the check depends on, as character codes (-1 where a step cannot apply). */
export interface VerbatimRules {
  /** The output delimiter's code. */
  readonly delimiter: number;
  /** The output quote character's code, -1 without quoting. */
  readonly quote: number;
  /** True when a `.` may be rewritten (a decimal separator other than `.` on either side). */
  readonly dotRewritten: boolean;
  /** The input decimal separator's code when it is not `.`, else -1. */
  readonly decimalIn: number;
  /** True when every control character (below U+0020) is rewritten (JSON escapes them all). */
  readonly controls: boolean;
}

/** The rules for a template's dialects (`quoteOut` is the quote character, "" for none). */
export function verbatimRules(d: {
  delimiterOut: string;
  quoteOut: string;
  decimalIn: string;
  decimalOut: string;
}): VerbatimRules {
  const decimalIn = d.decimalIn === "" ? "." : d.decimalIn;
  const decimalOut = d.decimalOut === "" ? "." : d.decimalOut;
  return {
    delimiter: d.delimiterOut.charCodeAt(0),
    quote: d.quoteOut === "" ? -1 : d.quoteOut.charCodeAt(0),
    dotRewritten: decimalIn !== "." || decimalOut !== ".",
    decimalIn: decimalInCode(decimalIn),
    controls: false,
  };
}

/** `csv_decimal_separator_in` as a code: -1 for `.`; -2 (matches nothing) for a multi-character one. */
function decimalInCode(decimalIn: string): number {
  return decimalIn === "." ? -1 : decimalIn.length === 1 ? decimalIn.charCodeAt(0) : -2;
}

/**
 * The rules for JSON output (`file_type_out: "json"`): the writer escapes `"`, `\` and every control
 * character and rewrites nothing else (no decimal separator, no formula guard), so only the input's decimal
 * separator and numeric tidying can still change a value. The formula check of {@link verbatimSafe} stays:
 * it only sends such values down the general path, which is exact.
 *
 * @example
 * ```ts
 * import { jsonVerbatimRules, verbatimSafe } from "./verbatim.ts";
 * import assert from "node:assert/strict";
 * const rules = jsonVerbatimRules(".");
 * assert.equal(verbatimSafe("ab,c\td", 0, 2, rules), true);
 * assert.equal(verbatimSafe("ab,c\td", 3, 6, rules), false); // the tab is written as \t
 * ```
 */
export function jsonVerbatimRules(decimalIn: string): VerbatimRules {
  const d = decimalIn === "" ? "." : decimalIn;
  return {
    delimiter: 0x22,
    quote: 0x5c,
    dotRewritten: d !== ".",
    decimalIn: decimalInCode(d),
    controls: true,
  };
}

/** Longer fields take the general path (reads from 1 KiB on are charged to the evaluation budget). */
const MAX_VERBATIM = 1024;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A first character the formula guard may act on (=, TAB, CR, +, -, @): the general path decides. */
function mayBeFormula(c0: number): boolean {
  return c0 === 61 || c0 === 9 || c0 === 13 || c0 === 43 || c0 === 45 || c0 === 64;
}

/**
 * True when canonicalNumericString certainly returns `text[a, b)` unchanged; `n = b - a > 0`. It only
 * rewrites text that starts like a number ("0" + digit excepted) and holds a '.' or an exponent.
 */
function canonicalKeeps(text: string, a: number, b: number): boolean {
  const n = b - a;
  const c0 = text.charCodeAt(a);
  if (!(isDigit(c0) || c0 === 46)) return true;
  if (c0 === 48 && n >= 2 && isDigit(text.charCodeAt(a + 1))) return true;
  let dot = -1;
  for (let j = a; j < b; j++) {
    const c = text.charCodeAt(j);
    if (isDigit(c)) continue;
    // Mirrors canonicalNumericString's scan: a first '.', an exponent (may change), or other text (kept).
    if (c === 46 && dot < 0) dot = j - a;
    else if (c === 101 || c === 69) return false;
    else return true;
  }
  if (dot < 0) return true;
  // digits '.' digits with a short integer part and no trailing zero to trim: unchanged.
  return dot > 0 && dot <= 16 && dot < n - 1 && text.charCodeAt(b - 1) !== 48;
}

/**
 * True when the trimmed field `text[a, b)` is written exactly as its characters: ASCII, no character the
 * writer treats specially, no formula-like start, and numeric tidying certainly leaves it alone.
 */
export function verbatimSafe(text: string, a: number, b: number, rules: VerbatimRules): boolean {
  const n = b - a;
  if (n === 0) return true;
  if (n >= MAX_VERBATIM || mayBeFormula(text.charCodeAt(a))) return false;
  for (let j = a; j < b; j++) {
    const c = text.charCodeAt(j);
    if (c >= 0x80 || c === rules.delimiter || c === rules.quote || c === 13 || c === 10) return false;
    if (c < 0x20 && rules.controls) return false;
    if (c === 46 && rules.dotRewritten) return false;
    if (c === rules.decimalIn) return false;
  }
  return canonicalKeeps(text, a, b);
}

/**
 * {@link verbatimSafe} for a field of a line already known to be ASCII and free of the output delimiter,
 * the output quote, CR and LF (with JSON's rules: `"`, `\\`, TAB and CR): only the first character,
 * numeric-looking text and, for JSON, the rarer control characters need a look.
 */
export function verbatimSafeInCleanLine(
  text: string,
  a: number,
  b: number,
  rules: VerbatimRules,
): boolean {
  const n = b - a;
  if (n === 0) return true;
  if (n >= MAX_VERBATIM || mayBeFormula(text.charCodeAt(a))) return false;
  if (rules.dotRewritten || rules.decimalIn !== -1) return verbatimSafe(text, a, b, rules);
  // JSON escapes every control character: the line check looks for TAB and CR only, the rarer ones here.
  if (rules.controls) {
    for (let j = a; j < b; j++) if (text.charCodeAt(j) < 0x20) return false;
  }
  return canonicalKeeps(text, a, b);
}
