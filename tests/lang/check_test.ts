import assert from "node:assert/strict";
import { expressionFacts, staticCheck, staticProblems, validateExpression } from "../../src/lang/mod.ts";

Deno.test("static checks need no row", () => {
  const problem = (src: string) => staticCheck(src)?.error ?? "ok";
  assert.equal(problem("SPLIT_PART('a/b', '/', 0)"), "SplitPartBadIndex");
  assert.equal(problem("FIELDS(-1)"), "SplitPartBadIndex");
  assert.equal(problem("SUBSTR([A], 0, 2)"), "SplitPartBadIndex");
  assert.equal(problem("FIELDS(0.5)"), "SplitPartBadIndex");
  assert.equal(problem("FIELDS(2)"), "ok");
  assert.equal(problem("FIELDS([A])"), "ok");
  assert.equal(problem("DATE_CONVERT([D], 'YYYY-Q-DD', 'YYYY-MM-DD')"), "DateFormatBadToken");
  assert.equal(problem("IS_DATE([D], 'YYYY-MN-DD')"), "DateFormatBadToken");
  assert.equal(problem("TO_UTC([D], 'YYYY-MM-DD[T]hh:mm:ssZZ')"), "ok");
  assert.equal(problem("DATE_CONVERT([D], 'YYYY-MM-DD[Q]', 'YYYY-MM-DD')"), "ok");
  assert.equal(problem("REGEX_MATCH([A], '(')"), "BadRegexPattern");
  assert.equal(problem("LEN(5)"), "StringExpected");
  assert.equal(problem("ISEMPTY(5)"), "ok");
  assert.equal(problem("1 + 1000000000000000000000000000000"), "NumberOutOfRange");
  assert.equal(problem("LOOKUP('x', [K], 'f') + LOOKUPP([K], 'f')"), "UnknownFunction");
  assert.equal(problem("TZ_CONVERT([T], 'UTC')"), "WrongArgCount");
  assert.equal(problem("IF(1, 'a', NOSUCH(1))"), "UnknownFunction"); // even in a branch never taken
});

Deno.test("static details name the problem and the place", () => {
  const split = staticCheck("SPLIT_PART([A], ',', 0)")!;
  assert.equal(split.detail, 'index argument is 1-based; literal 0 always returns ""');
  assert.deepEqual([split.off, split.len], [21, 1]);
  const fmt = staticCheck("DATE_CONVERT([D], 'YYYY-MN-DD', 'YYYY-MM-DD')")!;
  assert.match(fmt.detail, /unrecognized letter 'N' at offset 6/);
  assert.match(fmt.detail, /wrap any literal letters in brackets, e\.g\. '\[T\]'/);
  assert.deepEqual([fmt.off, fmt.len], [18, 12]);
  const unknown = staticCheck("LOOKUPP([K], 'f')")!;
  assert.equal(unknown.suggest, "LOOKUP");
  assert.deepEqual([unknown.off, unknown.len], [0, 7]);
  assert.equal(staticProblems("FIELDS(0) & SPLIT_PART('a', 'b', -2)").length, 2);
  // Past a 64-bit index, as bxp's guard: printed as 0 when the literal does not fit a signed 64-bit integer.
  const huge = validateExpression("SPLIT_PART('a/b', '/', 99999999999999999999)")!;
  assert.deepEqual([huge.error, huge.detail, huge.off, huge.len], [
    "SplitPartBadIndex",
    'index argument is 1-based; literal 0 always returns ""',
    23,
    20,
  ]);
  assert.equal(staticCheck("FIELDS(18446744073709551616)")?.error, "SplitPartBadIndex"); // 2^64
  assert.equal(staticCheck("FIELDS(18446744073709551615)"), null); // 2^64 - 1 still indexes
  assert.equal(staticCheck("SPLIT_PART([A], '/', 9223372036854775807)"), null);
  assert.match(
    staticCheck("FIELDS(-9223372036854775808)")?.detail ?? "",
    /literal -9223372036854775808 always/,
  );
  assert.deepEqual(validateExpression("FIELDS(0)")?.toJSON(), {
    ok: false,
    error: "SplitPartBadIndex",
    detail: 'index argument is 1-based; literal 0 always returns ""',
    off: 7,
    len: 1,
  });
});

Deno.test("expressionFacts lists calls and field refs with byte spans", () => {
  const facts = expressionFacts("LOOKUP('fx', [Měna] & [$suffix], 'rate') * [Qty]");
  assert.equal(facts.error, null);
  assert.deepEqual(facts.calls, [{
    name: "LOOKUP",
    off: 0,
    len: 41,
    args: [
      { off: 7, len: 4, literal: "fx" },
      { off: 13, len: 19 },
      { off: 34, len: 6, literal: "rate" },
    ],
  }]);
  assert.deepEqual(facts.fieldRefs, [
    { name: "Měna", off: 13, len: 7 },
    { name: "$suffix", off: 23, len: 9 },
    { name: "Qty", off: 44, len: 5 },
  ]);
  assert.equal(expressionFacts("[A] & $suffix").error?.error, "UnexpectedChar");
  assert.deepEqual(expressionFacts("FIELDS(-1)").calls[0].args[0], { off: 7, len: 2, number: "-1" });
  assert.equal(expressionFacts("IF([A]").error?.error, "ExpectedComma");
});
