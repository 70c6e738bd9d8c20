import assert from "node:assert/strict";
import { tokenize } from "../../src/lang/lexer.ts";
import { parseExpression } from "../../src/lang/parser.ts";
import { ExprError, suggestName } from "../../src/lang/mod.ts";

Deno.test("lexer: byte spans, strings without escapes, the ''' token", () => {
  assert.deepEqual(
    tokenize("[Prix €] * 2").map((t) => [t.kind, t.off, t.len]),
    [["field", 0, 10], ["*", 11, 1], ["num", 13, 1], ["eof", 14, 0]],
  );
  assert.deepEqual(tokenize("''''").map((t) => t.kind), ["quote", "str", "eof"]);
  assert.deepEqual(tokenize("''").map((t) => [t.kind, t.text]), [["str", ""], ["eof", ""]]);
  assert.deepEqual(tokenize("'it''s'").map((t) => t.text), ["it", "s", ""]);
  assert.throws(() => tokenize("1\t+ 1"), /UnexpectedChar/);
});

Deno.test("lexer: byte spans count a lone surrogate as the 3 bytes of U+FFFD, a pair as 4", () => {
  // Offsets are UTF-8 bytes of the source as TextEncoder writes it: a client's encoder gives the same.
  const bytes = (text: string) => new TextEncoder().encode(text).length;
  for (const inner of ["\ud800", "\udc00", "\udc00\ud800", "a\ud83d\ude00b", "\ud800\ud83d\ude00"]) {
    const src = `'${inner}' & [${inner}] & 1`;
    const spans = tokenize(src).map((t) => [t.kind, t.off, t.len]);
    const str = 2 + bytes(inner);
    assert.deepEqual(spans, [
      ["str", 0, str],
      ["&", str + 1, 1],
      ["field", str + 3, str],
      ["&", 2 * str + 4, 1],
      ["num", 2 * str + 6, 1],
      ["eof", bytes(src), 0],
    ], JSON.stringify(inner));
  }
  // An unexpected character's span: a lone surrogate is one replacement character.
  assert.deepEqual(failure(() => tokenize("'\ud83d\ude00' \udc00")).slice(0, 3), ["UnexpectedChar", 7, 3]);
  assert.deepEqual(failure(() => tokenize("1 \ud83d\ude00")).slice(0, 3), ["UnexpectedChar", 2, 4]);
});

Deno.test("parser: chains stay flat", () => {
  const ast = parseExpression("1 + 2 + 3 - 4");
  assert.equal(ast?.kind, "chain");
  if (ast?.kind === "chain") assert.equal(ast.operands.length, 4);
  assert.equal(parseExpression("  "), null);
  const call = parseExpression("abs(-1)");
  assert.equal(call?.kind === "call" && call.upper, "ABS");
  assert.equal(call?.kind === "call" && call.args[0].kind, "number");
});

Deno.test("suggestName: Levenshtein distance up to 2, case-insensitive", () => {
  assert.equal(suggestName("ABZ", ["ABS", "ROUND"]), "ABS");
  assert.equal(suggestName("lookupp", ["LOOKUP", "LEFT"]), "LOOKUP");
  assert.equal(suggestName("XYZXYZ", ["ABS"]), null);
  assert.equal(suggestName("file_patter_in", ["file_pattern_in", "data_dir"]), "file_pattern_in");
});

/** The ExprError `fn` throws, as [name, off, len, detail]. */
function failure(fn: () => unknown): [string, number, number, string] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ExprError) return [e.error, e.off, e.len, e.detail];
    throw e;
  }
  throw new Error("no error");
}

Deno.test("lexer: $name is bxp's UnexpectedChar at the '$', with a hint", () => {
  const [name, off, len, detail] = failure(() => tokenize("IF([A] = '', $rate, 1)"));
  assert.deepEqual([name, off, len], ["UnexpectedChar", 13, 1]);
  assert.equal(
    detail,
    "unexpected character '$' at pos 14 — expressions see columns, not variables: '$rate' cannot be read here; " +
      "repeat the expression that computes $rate, or use the column it comes from (e.g. [Column])",
  );
  // bxp's wording for any other stray character: 1-based byte position.
  assert.deepEqual(failure(() => tokenize("'é' # 1")), [
    "UnexpectedChar",
    5,
    1,
    "unexpected character '#' at pos 6",
  ]);
  assert.deepEqual(
    tokenize("[$rate] <= 1.5").map((t) => [t.kind, t.text]),
    [["field", "$rate"], ["<=", "<="], ["num", "1.5"], ["eof", ""]],
  );
});

Deno.test("lexer: unterminated strings and column references are refused; a lone closing quote is empty", () => {
  assert.deepEqual(failure(() => tokenize("UPPER([P]) & 'x")).slice(0, 3), ["UnterminatedString", 13, 2]);
  assert.deepEqual(failure(() => tokenize("'abc")).slice(0, 3), ["UnterminatedString", 0, 4]);
  assert.deepEqual(failure(() => tokenize("[A] & [B")).slice(0, 3), ["UnterminatedFieldRef", 6, 2]);
  assert.deepEqual(failure(() => tokenize("[Měna")).slice(0, 3), ["UnterminatedFieldRef", 0, 6]);
  const q = "'''";
  assert.deepEqual(
    tokenize(`${q} & [X] & ${q}'`).map((t) => t.kind),
    ["quote", "&", "field", "&", "quote", "str", "eof"],
  );
  assert.deepEqual(
    tokenize("[A] & '").map((t) => [t.kind, t.text]),
    [["field", "A"], ["&", "&"], ["str", ""], ["eof", ""]],
  );
});

Deno.test("parser: truncations and leftovers are refused, bxp's own structural errors kept", () => {
  // bxp ignores what follows a complete expression; a leftover is a typo or a missing operator.
  assert.deepEqual(failure(() => parseExpression("1 2")).slice(0, 3), ["UnexpectedToken", 2, 1]);
  assert.deepEqual(failure(() => parseExpression("ABS(1))")).slice(0, 3), ["UnexpectedToken", 6, 1]);
  assert.deepEqual(failure(() => parseExpression("[A] [B]")).slice(0, 3), ["UnexpectedToken", 4, 3]);
  // A call or group the source ends inside: ExpectedRParen on the call's name and '('.
  const [name, off, len, detail] = failure(() => parseExpression("UPPER([P]"));
  assert.deepEqual([name, off, len], ["ExpectedRParen", 0, 6]);
  assert.match(detail, /expected '\)' to close 'UPPER\(' opened at pos 6/);
  assert.deepEqual(failure(() => parseExpression("'a' & LEFT([P], 2")).slice(0, 3), ["ExpectedRParen", 6, 5]);
  assert.deepEqual(failure(() => parseExpression("NOW(")).slice(0, 3), ["ExpectedRParen", 0, 4]);
  assert.deepEqual(failure(() => parseExpression("(1 + 2")).slice(0, 3), ["ExpectedRParen", 0, 1]);
  assert.equal(failure(() => parseExpression("IF([A]"))[0], "ExpectedComma");
  assert.equal(failure(() => parseExpression("IF([A], 1, 2"))[0], "ExpectedRParen");
  assert.equal(failure(() => parseExpression("1 +"))[0], "UnexpectedToken");
});
