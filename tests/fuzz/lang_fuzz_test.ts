/**
 * Fuzzing the expression language: generated expressions (grammar-shaped, from the real function table),
 * mutated corpus lines, deep nesting, long inputs and text that grows. compileExpression, evaluate and
 * validateExpression may only ever throw ExprError, and never take long.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  compileExpression,
  emptyContext,
  type EvalContext,
  ExprError,
  FUNCTIONS,
  validateExpression,
} from "../../src/lang/mod.ts";
import { CONFORMANCE_DIR } from "../_support/processes.ts";
import { fuzzParams, mutated, nastyText, withinTime } from "./_fuzz.ts";

/** bxp's expression corpus when the conformance data is beside the checkout, plus a few of our own. */
const corpus: string[] = [
  "IF([Qty] > 0, ROUND([Price] * [Qty], 2), '')",
  "DATE_CONVERT([Date], 'YYYY-MM-DD', 'DD.MM.YYYY')",
  "SPLIT_PART(UPPER(TRIM([Name])), ' ', 1) & '-' & [$a]",
  "ISEMPTY($date)", // a $variable: UnexpectedChar
  "UPPER([Name]) & 'x", // unterminated
  ...(CONFORMANCE_DIR === null ? [] : Deno.readTextFileSync(
    new URL("scripts/test-06-expr-corpus.txt", CONFORMANCE_DIR),
  ).split("\n")
    .filter((line) => line.startsWith("expr\t"))
    .map((line) => line.split("\t")[2] ?? "")
    .filter((expr) => expr !== "")),
];

const ROW: EvalContext = {
  ...emptyContext(),
  columns: new Map([["Price", 0], ["Qty", 1], ["Date", 2], ["Name", 3], ["$a", 4]]),
  fields: ["1,234.50", "-3", "2024-02-29", "  Ünïcode 😀 ", "7"],
  vars: new Map([["$a", "7"], ["$b", ""]]),
  maps: new Map([["m", new Map([["a", "b"]])]]),
  filename: "input",
  recordNum: 1,
};

/** Run the whole pipeline on `src`; anything thrown but an ExprError fails the property. */
function exercise(src: string): void {
  withinTime(2000, `expression ${JSON.stringify(src.slice(0, 80))}`, () => {
    for (
      const step of [
        () => validateExpression(src),
        () => compileExpression(src).evaluate(ROW),
        () => compileExpression(src).evaluate(emptyContext()),
      ]
    ) {
      try {
        const out = step();
        if (typeof out === "string") assert.equal(typeof out, "string");
      } catch (error) {
        if (!(error instanceof ExprError)) {
          throw new Error(
            `non-ExprError for ${JSON.stringify(src)}: ${error instanceof Error ? error.stack : error}`,
          );
        }
      }
    }
  });
}

const literal = fc.oneof(
  fc.integer({ min: -1e6, max: 1e6 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => String(d)),
  fc.constantFrom("0", "1e400", "-0", "99999999999999999999999999999", "0.000000000001", "1.5", ".5"),
  // Quotes inside are dropped: the language has no escape, and `'a''b'` is two literals (refused).
  fc.string({ maxLength: 8 }).map((s) => `'${s.replaceAll("'", "")}'`),
  fc.constantFrom("TRUE", "FALSE", "''", "'2024-01-31'", "'%Y'", "'YYYY-MM-DD'", "'.*'", "'('"),
);
const reference = fc.oneof(
  fc.constantFrom("[Price]", "[Qty]", "[Date]", "[Name]", "[Missing]", "[$a]", "[$b]", "$zz"),
  fc.string({ maxLength: 5 }).map((s) => `[${s}]`),
);
const names = FUNCTIONS.map((f) => f.name);
const operators = ["+", "-", "*", "/", "%", "=", "<>", "!=", "<", ">", "<=", ">=", "&", "AND", "OR", "^"];

const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    literal,
    reference,
    fc.tuple(fc.constantFrom(...names), fc.array(tie("expr"), { maxLength: 5 }))
      .map(([name, args]) => `${name}(${args.join(", ")})`),
    fc.tuple(tie("expr"), fc.constantFrom(...operators), tie("expr")).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie("expr").map((e) => `(${e})`),
    tie("expr").map((e) => `NOT ${e}`),
    tie("expr").map((e) => `-${e}`),
    fc.tuple(tie("expr"), tie("expr"), tie("expr")).map(([c, a, b]) => `IF(${c}, ${a}, ${b})`),
  ),
})).expr;

Deno.test("fuzz lang: generated expressions only ever raise ExprError", () => {
  fc.assert(fc.property(expression, (src) => exercise(src)), fuzzParams(3000));
});

Deno.test("fuzz lang: mutated corpus expressions only ever raise ExprError", () => {
  if (CONFORMANCE_DIR !== null) assert.ok(corpus.length > 50, "the corpus was read");
  fc.assert(fc.property(mutated(corpus), (src) => exercise(src)), fuzzParams(4000));
});

Deno.test("fuzz lang: random text only ever raises ExprError", () => {
  fc.assert(fc.property(nastyText, (src) => exercise(src)), fuzzParams(3000));
});

Deno.test("lang caps: deep nesting and long inputs end in a clear ExprError, not a stack overflow", () => {
  const depths = [100, 300, 1000, 10_000, 100_000];
  const shapes = [
    (n: number) => "(".repeat(n) + "1" + ")".repeat(n),
    (n: number) => "ABS(".repeat(n) + "1" + ")".repeat(n),
    (n: number) => "-".repeat(n) + "1",
    (n: number) => "NOT ".repeat(n) + "TRUE",
    (n: number) => Array(n).fill("1").join(" + "),
    (n: number) => "IF(TRUE, ".repeat(n) + "1" + ", 0)".repeat(n),
    (n: number) => "CONCAT(" + Array(n).fill("'x'").join(",") + ")",
    (n: number) => "(".repeat(n),
  ];
  for (const shape of shapes) {
    for (const depth of depths) {
      const src = shape(depth);
      exercise(src);
      if (new TextEncoder().encode(src).length > 100_000) {
        const error = validateExpression(src);
        assert.ok(error instanceof ExprError, `over-long input is refused: ${src.slice(0, 30)}`);
        assert.match(error.message + error.detail, /longer than 100000 bytes/);
      }
    }
  }
  const deep = validateExpression("(".repeat(300) + "1" + ")".repeat(300));
  assert.ok(deep instanceof ExprError);
  assert.match(`${deep.message} ${deep.detail}`, /nested too deeply \(more than 256 levels\)/);
  assert.equal(validateExpression("(".repeat(200) + "1" + ")".repeat(200)), null, "256 levels are fine");
});

/** Expressions whose text grows: nested REPLACE that multiplies, padding, concatenation of copies. */
const growing: fc.Arbitrary<string> = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("[Name]", "'a'", "LPAD('', 65535, 'a')", "RPAD([Name], 40000, 'ab')"),
    tie("expr").map((e) => `REPLACE(${e}, 'a', 'aaaaaaaaaa')`),
    tie("expr").map((e) => `UPPER(${e})`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `${a} & ${b}`),
    tie("expr").map((e) => `LEN(${e})`),
  ),
})).expr;

Deno.test("fuzz lang: growing text ends in a value or a budget error, never an out-of-memory", () => {
  fc.assert(
    fc.property(growing, (src) => {
      try {
        const out = compileExpression(src).evaluate(ROW);
        assert.ok(out.length <= 32 * 1024 * 1024);
      } catch (error) {
        if (!(error instanceof ExprError)) throw error;
        // Budgets, or a template mistake the generator makes (UPPER of LEN's number: StringExpected).
        assert.ok(
          ["ResultTooLarge", "WorkLimitExceeded", "ExpressionTooDeep", "StringExpected"].includes(
            error.error,
          ),
          `${error.error}: ${src.slice(0, 120)}`,
        );
      }
    }),
    fuzzParams(60),
  );
});
