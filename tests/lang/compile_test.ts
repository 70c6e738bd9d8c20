import assert from "node:assert/strict";
import {
  compileExpression,
  emptyContext,
  type EvalContext,
  ExprError,
  isTruthy,
} from "../../src/lang/mod.ts";

function row(record: Record<string, string>, extra: Partial<EvalContext> = {}): EvalContext {
  const names = Object.keys(record);
  return {
    ...emptyContext(),
    columns: new Map(names.map((n, i) => [n, i])),
    fields: names.map((n) => record[n]),
    ...extra,
  };
}
const run = (src: string, ctx: EvalContext = emptyContext()) => compileExpression(src).evaluate(ctx);
function errorOf(src: string, ctx: EvalContext = emptyContext()): ExprError {
  try {
    run(src, ctx);
  } catch (e) {
    if (e instanceof ExprError) return e;
    throw e;
  }
  assert.fail(`${src} did not fail`);
}

Deno.test("precedence: unary minus, * /, &, + -, comparisons, NOT, AND, OR", () => {
  assert.equal(run("1 + 2 * 3"), "7");
  assert.equal(run("(1 + 2) * 3"), "9");
  assert.equal(run("1 + 2 & 3"), "24"); // & binds tighter than +
  assert.equal(run("-2 * -3"), "6");
  assert.equal(run("10-3"), "7");
  assert.equal(run("- - 4"), "4");
  assert.equal(run("NOT 1 = 2"), "true");
  assert.equal(run("NOT NOT 1 = 1"), "true");
  assert.equal(run("1 = 1 OR 1 = 2 AND 1 = 2"), "true");
  assert.equal(run("'x' AND NOT 1 = 1"), "false");
  assert.equal(run("1 = 1 = 1"), "true"); // (1 = 1) = 1: true reads as 1
  assert.equal(run("[A] = 1 = 1", row({ A: "1" })), "true");
});

Deno.test("comparisons are numeric when both sides are numbers, else exact text", () => {
  assert.equal(run("'1.0' = '1'"), "true");
  assert.equal(run("'' = 0"), "true");
  assert.equal(run("'abc' = 'ABC'"), "false");
  assert.equal(run("'abc' != 'xyz'"), "true");
  assert.equal(run("[P] > 100", row({ P: "1,234.50" })), "true");
  assert.equal(run("CONTAINS('ab', 'a') = 'true'"), "true");
  const err = errorOf("'a' < 'b'");
  assert.equal(err.error, "StringComparisonUnsupported");
  assert.equal(run("IFERROR('a' < 'b', 'n/a')"), "n/a");
});

Deno.test("coercions: empty and nan/inf are 0, grouping accepted, junk is NotANumber", () => {
  assert.equal(run("[Fee] + 1", row({ Fee: "" })), "1");
  assert.equal(run("100 - [Fee]", row({ Fee: "nan" })), "100");
  assert.equal(run("100 - [Fee]", row({ Fee: "-INF" })), "100");
  assert.equal(run("[Amount] * 2", row({ Amount: "1,234.56" })), "2469.12");
  const err = errorOf("[A] + 'x'", row({ A: "5" }));
  assert.equal(err.error, "NotANumber");
  assert.equal(err.off, 6);
  assert.equal(err.len, 3);
  const field = errorOf("[Qty] * 2", row({ Qty: "abc" }));
  assert.match(field.detail, /\[Qty\]/);
  assert.equal(errorOf("[Big] + 1", row({ Big: "1e30" })).error, "NumberOutOfRange");
});

Deno.test("truthiness is typed: '0' text is true, computed 0 is false", () => {
  assert.equal(run("IF('0', 'yes', 'no')"), "yes");
  assert.equal(run("IF(0, 'yes', 'no')"), "no");
  assert.equal(run("IF('', 'yes', 'no')"), "no");
  assert.equal(run("IF('false', 'yes', 'no')"), "yes"); // text, not a boolean
  assert.equal(run("IF(1 = 2, 'yes', 'no')"), "no");
  assert.equal(compileExpression("[Q]").evaluateBool(row({ Q: "0" })), true);
  assert.equal(compileExpression("[Q] * 1").evaluateBool(row({ Q: "0" })), false);
  assert.equal(isTruthy("false"), false);
  assert.equal(isTruthy(""), false);
  assert.equal(isTruthy("0.00"), false);
  assert.equal(isTruthy("x"), true);
  assert.equal(isTruthy(0n), false);
});

Deno.test("output text is tidied without rounding", () => {
  const ctx = row({
    Zip: "07666",
    Id: "123456789012345678901",
    Sci: "1.23E+15",
    Amount: "1000.00",
    Lat: "40.7940823884086",
  });
  assert.equal(run("[Zip]", ctx), "07666");
  assert.equal(run("[Id]", ctx), "123456789012345678901");
  assert.equal(run("[Sci]", ctx), "1230000000000000");
  assert.equal(run("[Amount]", ctx), "1000");
  assert.equal(run("[Lat]", ctx), "40.7940823884086");
  assert.equal(run("'007'"), "007");
  assert.equal(run("'1,234.50'"), "1,234.50");
  assert.equal(compileExpression("[Amount]").evaluateValue(ctx), "1000.00");
});

Deno.test("decimal separator ',' rewrites numeric [Column] values only", () => {
  const eu = (v: string) => row({ V: v }, { decimalSeparator: "," });
  assert.equal(run("[V]", eu("1,5")), "1.5");
  assert.equal(run("[V]", eu("-1.234.567,89")), "-1234567.89");
  assert.equal(run("[V]", eu("1.234")), "1234");
  assert.equal(run("[V]", eu("1.5")), "1.5");
  assert.equal(run("[V]", eu("hello,world")), "hello,world");
  assert.equal(run("[V]", eu("40,718807220458984")), "40.718807220458984");
  assert.equal(run("[V] * 2", eu("1.234,50")), "2469");
  // FIELDS(n) reads the raw value, like bxp.
  assert.equal(run("FIELDS(1)", eu("1,5")), "1,5");
});

Deno.test("columns, missing names and the output quote; $variables are not expressions", () => {
  const ctx = row({ "Currency (Total)": "EUR", "No. of shares": "3", "$rate": "2" }, {
    vars: new Map([["$rate", "5"]]),
    quoteOut: '"',
  });
  assert.equal(run("'$CASH-' & [Currency (Total)]", ctx), "$CASH-EUR");
  // [$rate] is a column named "$rate", never the variable.
  assert.equal(run("[No. of shares] * [$rate]", ctx), "6");
  const bare = errorOf("[No. of shares] * $rate");
  assert.deepEqual([bare.error, bare.off, bare.len], ["UnexpectedChar", 18, 1]);
  assert.match(bare.detail, /^unexpected character '\$' at pos 19 — expressions see columns, not variables/);
  assert.match(bare.detail, /repeat the expression that computes \$rate, or use the column/);
  assert.equal(errorOf("ISEMPTY($date)").error, "UnexpectedChar");
  assert.equal(errorOf("[A] & $").error, "UnexpectedChar");
  assert.equal(run("[Nope]", ctx), "");
  assert.equal(run("''' & [Currency (Total)] & '''", ctx), '"EUR"');
  assert.equal(run("'''"), "");
  assert.equal(run("[123]", row({ "123": "x" })), "x");
  assert.equal(run(""), "");
});

Deno.test("one compiled expression serves files with different headers", () => {
  const e = compileExpression("[B]");
  assert.equal(e.evaluate(row({ A: "1", B: "2" })), "2");
  assert.equal(e.evaluate(row({ B: "3", A: "4" })), "3");
  assert.equal(e.evaluate(row({ A: "5" })), "");
});

Deno.test("IF, CASE, IFERROR evaluate lazily; AND/OR evaluate both sides", () => {
  assert.equal(run("IF(1 = 1, 'ok', YEAR('bad'))"), "ok");
  assert.equal(run("CASE('a', 'a', 'ok', 'b', YEAR('bad'), 'def')"), "ok");
  assert.equal(run("CASE('x', 'a', 'A')"), "");
  assert.equal(run("CASE(1, '1.0', 'one', 'other')"), "one");
  assert.equal(run("IFERROR([n] * 2, '0')", row({ n: "abc" })), "0");
  assert.equal(run("IFERROR(1 + 2, '0')"), "3");
  assert.equal(errorOf("IFERROR(LEN(5), 'x')").error, "StringExpected"); // a template mistake stays loud
  assert.equal(errorOf("1 = 2 AND YEAR('bad') = 1").error, "InvalidDate");
  assert.equal(run("COALESCE('', '  ', 0, 'x')"), "0");
});

Deno.test("functions: text, lookup, regex, row context", () => {
  const maps = new Map([["syms", new Map([["VOW.DE", "VOW.DE.XETRA"]])], [
    "num",
    new Map([[" ", ""], [",", "."]]),
  ]]);
  const lookups = new Map([["orders", new Map([["T1", new Map([["price", "12.5"]])]])]]);
  const ctx: EvalContext = {
    ...emptyContext(),
    maps,
    lookups,
    filename: "XTB_1_2024",
    recordNum: 7,
    fields: ["a", "b"],
  };
  assert.equal(run("REMAP('VOW.DE', 'syms')", ctx), "VOW.DE.XETRA");
  assert.equal(run("REMAP('AAPL', 'nope')", ctx), "AAPL");
  assert.equal(run("REPLACE('1 234,56', 'num')", ctx), "1234.56");
  assert.equal(run("REPLACE('aXb', 'a', 'b', 'b', '2')"), "bX2");
  assert.equal(run("LOOKUP('orders', 'T1', 'price')", ctx), "12.5");
  assert.equal(run("LOOKUP('T1', 'price')", ctx), "12.5");
  assert.equal(run("LOOKUP('orders', 'T2', 'price')", ctx), "");
  assert.equal(run("SPLIT_PART(FILENAME(), '_', 3) & '/' & RECORD_NUM() & FIELDS(2)", ctx), "2024/7b");
  assert.equal(run("SPLIT_PART('a,b', ',', 'inf')"), "");
  assert.equal(run("SPLIT_PART('a::b::c', '::', 2)"), "b");
  assert.equal(run("LEFT('café', 4)"), "caf\uFFFD"); // byte-based: the cut falls inside é
  assert.equal(run("LEN('café') & POSITION('é', 'café')"), "54");
  assert.equal(run("SUBSTR('hello', 2, 3) & RIGHT('hello', -1)"), "ell");
  assert.equal(run("LPAD('1', 5, 'ab') & '|' & RPAD('42', 0, '0')"), "abab1|");
  assert.equal(run("PROPER('mary-jane ABC123def')"), "Mary-Jane Abc123Def");
  assert.equal(run("UNACCENT('Crème brûlée straße')"), "Creme brulee strasse");
  assert.equal(run("REGEX_EXTRACT('Akcie ČEZ a.s.', '[A-ZÁ-Ž]{2,}')"), "ČEZ");
  assert.equal(run("REGEX_MATCH('é', '\\w')"), "false"); // \w is ASCII-only
  assert.equal(run("PRICE_VALUE('  $99.50  ') & PRICE_CURRENCY('¥500')"), "99.50JPY");
  assert.equal(run("GREATEST([Fee], 5) & LEAST('', 5)", row({ Fee: "" })), "50");
  assert.equal(run("RAND(0)").length, 1);
  assert.equal(run("RAND(100)").length, 65);
  assert.equal(run("ROUND(3.14, 'nan') & ROUND(1, 1000000000)"), "31");
  assert.equal(run("IS_NUMERIC('') & IS_NUMERIC(1 + 1) & IS_NUMERIC(ISEMPTY('x'))"), "falsetruefalse");
});

Deno.test("a pathological regex returns at once (linear-time engine)", () => {
  const start = performance.now();
  const ctx: EvalContext = { ...emptyContext(), fields: ["a".repeat(20000) + "!"] };
  assert.equal(run("REGEX_MATCH(FIELDS(1), '(a+)+$')", ctx), "false");
  assert.ok(performance.now() - start < 2000);
});

Deno.test("argument domains: NotANumber before StringExpected, index below 1 gives ''", () => {
  assert.equal(errorOf("ABS('foo')").error, "NotANumber");
  assert.equal(errorOf("LEFT('hello', 'x')").error, "NotANumber");
  assert.equal(errorOf("LEFT(5, 'x')").error, "NotANumber");
  assert.equal(errorOf("LEFT(5, 1)").error, "StringExpected");
  assert.equal(run("SPLIT_PART(5, ',', 0)"), "");
  assert.equal(run("FIELDS([A])", row({ A: "-3" })), "");
  assert.equal(errorOf("FIELDS('abc')").error, "NotANumber");
  const e = errorOf("TRIM('a') & LEN(5)");
  assert.equal(e.error, "StringExpected");
  assert.deepEqual([e.off, e.len], [12, 6]);
  // An argument check's error carries the span of the call that made it, however deep.
  const inner = errorOf("ROUND(ABS([A]), 2)", row({ A: "x" }));
  assert.deepEqual([inner.error, inner.off, inner.len], ["NotANumber", 6, 8]);
  const outer = errorOf("'a' & ROUND([A], 2)", row({ A: "x" }));
  assert.deepEqual([outer.error, outer.off, outer.len], ["NotANumber", 6, 13]);
});

Deno.test("syntax errors carry bxp's names and byte spans", () => {
  const cases: [string, string][] = [
    ["IF([A])", "ExpectedComma"],
    ["IF([A]", "ExpectedComma"],
    ["IF(1, 2, 3, 4)", "ExpectedRParen"],
    ["CASE('x', 'y')", "WrongArgCount"],
    ["(1 + 2", "ExpectedRParen"],
    ["1 +", "UnexpectedToken"],
    ["ABS", "ExpectedLParen"],
    ["AND", "UnexpectedKeyword"],
    ["1 # 2", "UnexpectedChar"],
    ["1.2.3", "MalformedNumber"],
    ["ABZ(1)", "UnknownFunction"],
    ["ABS(1, 2)", "WrongArgCount"],
    ["REPLACE([A], 'a', 'b', 'c')", "WrongArgCount"],
  ];
  for (const [src, name] of cases) {
    assert.throws(
      () => compileExpression(src),
      (e: unknown) => e instanceof ExprError && e.error === name,
      src,
    );
  }
  try {
    compileExpression("[Prix €] + ABZ(1)");
  } catch (e) {
    assert.ok(e instanceof ExprError);
    assert.equal(e.suggest, "ABS");
    assert.equal(e.off, 13); // "[Prix €] + " is 13 UTF-8 bytes (€ takes 3)
    assert.equal(e.len, 3);
  }
});

Deno.test("nesting and length are capped with clean errors", () => {
  const deep = "(".repeat(300) + "1" + ")".repeat(300);
  assert.throws(
    () => compileExpression(deep),
    (e: unknown) => e instanceof ExprError && e.error === "ExpressionTooDeep",
  );
  assert.equal(run("(".repeat(100) + "1" + ")".repeat(100)), "1");
  const long = Array.from({ length: 20000 }, () => "1").join("+");
  assert.equal(run(long), "20000"); // flat chains do not recurse
  assert.throws(
    () => compileExpression("'" + "x".repeat(200_000) + "'"),
    (e: unknown) => e instanceof ExprError && e.error === "ExpressionTooLong",
  );
});
