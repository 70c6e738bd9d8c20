import assert from "node:assert/strict";
import {
  checkDateFormat,
  compileFormat,
  DATE_TOKENS,
  Tok,
  usesShortMonthName,
} from "../../../src/lang/datetime/tokens.ts";

function kinds(fmt: string): Tok[] {
  return compileFormat(fmt).tokens.map((t) => t.kind);
}

Deno.test("tokenizer: longest spelling wins, mm is minute and MM month", () => {
  assert.deepEqual(kinds("YYYYMMDD"), [Tok.Year4, Tok.Month2, Tok.Day2]);
  assert.deepEqual(kinds("MMMM MMM"), [Tok.MonthLongName, Tok.Literal, Tok.MonthShortName]);
  assert.deepEqual(kinds("hh:mm:ss"), [Tok.Hour24Two, Tok.Literal, Tok.Minute2, Tok.Literal, Tok.Second2]);
  assert.deepEqual(kinds("EEEE EEE EE E e"), [
    Tok.WeekdayLongName,
    Tok.Literal,
    Tok.WeekdayShortName,
    Tok.Literal,
    Tok.WeekdayShortName,
    Tok.Literal,
    Tok.WeekdayShortName,
    Tok.Literal,
    Tok.WeekdayNumber,
  ]);
  assert.deepEqual(kinds("ii A"), [Tok.Hour12Two, Tok.Literal, Tok.AmPmUpper]);
  assert.deepEqual(kinds("ssZZ"), [Tok.Second2, Tok.Offset]);
});

Deno.test("tokenizer: brackets make literals and the wildcard", () => {
  const compiled = compileFormat("YYYY-MM-DD[T]hh:mm:ss[*]");
  const literalTexts = compiled.tokens.filter((t) => t.kind === Tok.Literal).map((t) => t.text);
  assert.deepEqual(literalTexts, ["-", "-", "T", ":", ":"]);
  assert.equal(compiled.tokens.at(-1)?.kind, Tok.Wildcard);
  // An unclosed bracket takes the rest as literal text.
  assert.deepEqual(compileFormat("YYYY[at").tokens.map((t) => t.text), ["", "at"]);
});

Deno.test("compileFormat caches by format string and caps the token count", () => {
  assert.equal(compileFormat("DD.MM.YYYY"), compileFormat("DD.MM.YYYY"));
  assert.equal(compileFormat("D".repeat(64)).tooManyTokens, false);
  assert.equal(compileFormat("D-".repeat(40)).tooManyTokens, true);
});

Deno.test("usesShortMonthName: exactly MMM, not MMMM", () => {
  assert.equal(usesShortMonthName("D MMM YYYY"), true);
  assert.equal(usesShortMonthName("D MMMM YYYY"), false);
  assert.equal(usesShortMonthName("MM/DD"), false);
  assert.equal(usesShortMonthName("MMMM MMM"), true);
});

Deno.test("checkDateFormat: first unrecognised letter outside brackets, with its byte offset", () => {
  assert.deepEqual(checkDateFormat("YYYY-MN-DD"), { letter: "N", offset: 6 });
  assert.deepEqual(checkDateFormat("YYYY-Q-DD"), { letter: "Q", offset: 5 });
  assert.deepEqual(checkDateFormat("YYYY-MM-Z"), { letter: "Z", offset: 8 });
  assert.deepEqual(checkDateFormat("YYYY-MM-DDThh"), { letter: "T", offset: 10 });
  assert.deepEqual(checkDateFormat("é YYYY x"), { letter: "x", offset: 8 });
  assert.equal(checkDateFormat("YYYY-MM-DD[T]hh:mm:ss[*]"), null);
  assert.equal(checkDateFormat("YYYY-MM-DD[Q]"), null);
  assert.equal(checkDateFormat("YYYY-MM-DD[T]hh:mm:ssZZ"), null);
  assert.equal(checkDateFormat("D MMM YYYY, ii:mm A"), null);
  assert.equal(checkDateFormat("DD.MM.YYYY [unclosed"), null);
  assert.equal(checkDateFormat(""), null);
});

Deno.test("DATE_TOKENS lists every token once, in catalog order", () => {
  const tokens = DATE_TOKENS.map((t) => t.token);
  assert.deepEqual(tokens, [
    "YYYY",
    "YY",
    "MM",
    "M",
    "MMMM",
    "MMM",
    "DD",
    "D",
    "hh",
    "h",
    "ii",
    "i",
    "mm",
    "m",
    "ss",
    "s",
    "A",
    "a",
    "ZZ",
    "EEEE",
    "EEE/EE/E",
    "e",
    "[text]",
    "[*]",
  ]);
  for (const entry of DATE_TOKENS) {
    assert.ok(entry.meaning.length > 0 && entry.example.length > 0, entry.token);
  }
});
