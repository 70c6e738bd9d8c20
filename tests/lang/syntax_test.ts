import assert from "node:assert/strict";
import { tokenize } from "../../src/lang/lexer.ts";
import { parseExpression } from "../../src/lang/parser.ts";
import { suggestName } from "../../src/lang/mod.ts";

Deno.test("lexer: byte spans, strings without escapes, the ''' token", () => {
  assert.deepEqual(
    tokenize("[Prix €] * 2").map((t) => [t.kind, t.off, t.len]),
    [["field", 0, 10], ["*", 11, 1], ["num", 13, 1], ["eof", 14, 0]],
  );
  assert.deepEqual(tokenize("''''").map((t) => t.kind), ["quote", "str", "eof"]);
  assert.deepEqual(tokenize("''").map((t) => [t.kind, t.text]), [["str", ""], ["eof", ""]]);
  assert.deepEqual(tokenize("'it''s'").map((t) => t.text), ["it", "s", ""]);
  assert.deepEqual(tokenize("$rate <= 1.5").map((t) => t.kind), ["var", "<=", "num", "eof"]);
  assert.throws(() => tokenize("1\t+ 1"), /UnexpectedChar/);
});

Deno.test("parser: chains stay flat, trailing tokens are ignored like bxp", () => {
  const ast = parseExpression("1 + 2 + 3 - 4");
  assert.equal(ast?.kind, "chain");
  if (ast?.kind === "chain") assert.equal(ast.operands.length, 4);
  assert.equal(parseExpression("1 2")?.kind, "number");
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
