/**
 * Every fast path of `compileExpression` against the general path (`compileExpressionGeneral`): same
 * output text, same error (name, detail, byte span), same trace records, over many generated rows.
 */
import assert from "node:assert/strict";
import { compileExpression, compileExpressionGeneral } from "../../src/lang/compile.ts";
import { type CallTrace, emptyContext, type EvalContext } from "../../src/lang/context.ts";
import { ExprError } from "../../src/lang/errors.ts";
import { numericText, Rng } from "./_generators.ts";

const COLUMNS = ["a", "b", "c", "d", "s"];

interface Outcome {
  result?: string;
  error?: string;
  trace: CallTrace[];
}

function outcome(expr: { evaluate(ctx: EvalContext): string }, ctx: EvalContext, traced: boolean): Outcome {
  const trace: CallTrace[] = [];
  const run = { ...ctx, trace: traced ? (rec: CallTrace) => trace.push(rec) : null };
  try {
    return { result: expr.evaluate(run), trace };
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    return { error: `${e.error}|${e.detail}|${e.off}|${e.len}`, trace };
  }
}

function truthOf(expr: { evaluateBool(ctx: EvalContext): boolean }, ctx: EvalContext): boolean | string {
  try {
    return expr.evaluateBool(ctx);
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    return e.error;
  }
}

function rowContext(fields: string[], decimalSeparator = "."): EvalContext {
  return {
    ...emptyContext(),
    columns: new Map(COLUMNS.map((name, i) => [name, i])),
    fields,
    vars: new Map([["$v", fields[0]]]),
    decimalSeparator,
  };
}

/** Compile both ways and compare on `rows` generated rows (every 8th traced). */
function agree(
  src: string,
  rows: number,
  makeRow: (rng: Rng) => string[],
  seed = 1,
  decimalSeparator = ".",
): void {
  const fast = compileExpression(src);
  const general = compileExpressionGeneral(src);
  const rng = new Rng(seed);
  for (let i = 0; i < rows; i++) {
    const ctx = rowContext(makeRow(rng), decimalSeparator);
    const traced = i % 8 === 0;
    const want = outcome(general, ctx, traced);
    const got = outcome(fast, ctx, traced);
    assert.deepEqual(got, want, `${src} on ${JSON.stringify(ctx.fields)}`);
    assert.deepEqual(truthOf(fast, ctx), truthOf(general, ctx), `${src} (as a condition)`);
  }
}

const numericRow = (rng: Rng): string[] => [numericText(rng), numericText(rng), numericText(rng), "2", "x"];

Deno.test("comparisons: field vs field, vs constants, folded constants, chains", () => {
  const rightSides = [
    "[b]",
    "100",
    "-2.5",
    "0",
    "'7.25'",
    "''",
    "'abc'",
    "(50 + 50)",
    "-(3)",
    "ABS(-3)",
    "'1e3'", // a bare 1e3 is the literal 1 followed by the leftover 'e3': refused
  ];
  for (const op of ["=", "!=", "<", ">", "<=", ">="]) {
    for (const right of rightSides) agree(`[a] ${op} ${right}`, 3000, numericRow);
    agree(`100 ${op} [a]`, 3000, numericRow);
    agree(`'12.5' ${op} [b]`, 2000, numericRow);
    agree(`[a] * 2 ${op} [b]`, 2000, numericRow);
    agree(`[a] ${op} [b] ${op} [c]`, 2000, numericRow);
    agree(`[$v] ${op} 10`, 1000, numericRow); // a column named "$v" (absent): ""
    agree(`[a] ${op} 170141183460469231731687303`, 1000, numericRow);
    agree(`[a] ${op} 99999999999999999999`, 1000, numericRow);
    agree(`IF([a] ${op} 100, 'high', 'low')`, 2000, numericRow);
  }
});

Deno.test("comparisons read grouped and comma-decimal fields like the general path", () => {
  const commaRow = (rng: Rng): string[] => {
    const t = numericText(rng);
    return [rng.next() < 0.5 ? t.replace(".", ",") : t, "1.234,5", "", "2", "x"];
  };
  for (const op of ["=", "<", ">="]) {
    agree(`[a] ${op} 1234.5`, 2000, commaRow, 5, ",");
    agree(`[a] ${op} [b]`, 2000, commaRow, 6, ",");
  }
});

Deno.test("constant folding keeps values, errors and trace records", () => {
  const exprs = [
    "(1 + 2 * 3) & 'x'",
    "1 / 3 * 3",
    "-(-(5))",
    "NOT NOT 0",
    "'a' & 1.50 & true",
    "1 / 0",
    "IFERROR(1 / 0 * 'x', 'fallback')",
    "99999999999999999999999999999999999999999 + 1",
    "IFERROR(99999999999999999999999999999999999999999, 'big')",
    "170141183460469231731687303 * 10",
    "'abc' < 1",
    "ROUND(2.5, 0) & '|' & ROUND(-2.5, 0)",
    "UPPER('abc') & LOWER([s])",
    "DATE_CONVERT('31.12.2024', 'DD.MM.YYYY', 'YYYY-MM-DD')",
    "IF(1 > 2, [a], 'no') & [s]",
    "CASE(2, 1, 'one', 2, 'two', 'other')",
    "LEN(YEAR('2024-01-02'))",
    "NOW() > ''",
    "POWER(2, 10) + [d]",
  ];
  for (const src of exprs) agree(src, 50, numericRow);
});

Deno.test("DATE_CONVERT with literal formats: memo and precompiled formats match the general path", () => {
  const days = ["01", "1", "28", "29", "30", "31", "00", "32", "7"];
  const months = ["01", "02", "12", "13", "1", "Jan", "Sept"];
  const dateRow = (rng: Rng): string[] => {
    const year = rng.pick(["2024", "2023", "1900", "2000", "0001", "24", "99999"]);
    const text = rng.next() < 0.9
      ? `${rng.pick(days)}${rng.pick([".", "/", " "])}${rng.pick(months)}${rng.pick([".", "/", " "])}${year}`
      : rng.pick(["", " ", "x", "2024-01-31", "31.12.2024 extra", "3 Sept 2022", "a".repeat(80)]);
    return [text, "", "", "2", "x"];
  };
  const formats: Array<[string, string]> = [
    ["DD.MM.YYYY", "YYYY-MM-DD"],
    ["D.M.YYYY", "DD/MM/YY"],
    ["D MMM YYYY", "YYYY-MM-DD EEEE"],
    ["DD/MM/YYYY", "MMMM D, YYYY"],
    ["[*]YYYY", "YYYY"],
  ];
  for (const [from, to] of formats) agree(`DATE_CONVERT([a], '${from}', '${to}')`, 6000, dateRow, 9);
  // A format that is not literal, and arguments of the wrong kind, keep the general behaviour.
  agree("DATE_CONVERT([a], [s] & 'D.MM.YYYY', 'YYYY-MM-DD')", 500, dateRow, 9);
  agree("DATE_CONVERT([d] * 1, 'D.MM.YYYY', 'YYYY-MM-DD')", 50, dateRow, 9);
  agree("DATE_CONVERT([a], 5, 'YYYY-MM-DD')", 50, dateRow, 9);
});

Deno.test("the DATE_CONVERT memo answers repeated and evicted inputs like a fresh conversion", () => {
  const fast = compileExpression("DATE_CONVERT([a], 'D.M.YYYY', 'YYYY-MM-DD')");
  const general = compileExpressionGeneral("DATE_CONVERT([a], 'D.M.YYYY', 'YYYY-MM-DD')");
  const rng = new Rng(21);
  for (let i = 0; i < 20_000; i++) {
    const text = `${1 + rng.below(31)}.${1 + rng.below(13)}.${1990 + rng.below(80)}`;
    const ctx = rowContext([text, "", "", "", ""]);
    assert.equal(fast.evaluate(ctx), general.evaluate(ctx), text);
  }
});

Deno.test("calls with planned argument checks raise the same errors in the same order", () => {
  const textRow = (rng: Rng): string[] => [
    numericText(rng),
    rng.pick(["a.b.c", "", "..", "x", "1.2.3"]),
    rng.pick(["1", "2", "0", "-1", "1e20", "2.9", "abc", ""]),
    rng.pick(["2", "-40", "40", "x", "", "99999999999999999999"]),
    rng.pick(["name123", "  pad  ", "", "ab-ab-ab"]),
  ];
  const exprs = [
    "SPLIT_PART([b], '.', [c])",
    "SPLIT_PART([b], '.', 99999999999999999999)",
    "SPLIT_PART([a] * 1, '.', 1)",
    "ROUND([a], [d])",
    "ROUND([a], 2)",
    "TRUNC([a], [d])",
    "LEFT([s], [c])",
    "LPAD([s], [c], '*')",
    "SUBSTR([s], [c], [d])",
    "REPLACE([s], 'ab', 'X')",
    "REPLACE([s], 'ab', '$&')",
    "REPLACE([s], '', 'X')",
    "REPLACE([s], 'a', 'b', 'b', 'c')",
    "REPLACE([a] + 0, '1', 'x')",
    "TRIM([s])",
    "IN([a], 100, '100', [b], 'x', 0)",
    "IN([s], 'name123', 1)",
    "CASE([a], 100, 'hundred', '', 'blank', 0, 'zero', 'other')",
    "CASE([s], 'name123', 1)",
    "NULLIF([a], 0)",
    "ABS([a])",
    "GREATEST([a], [c], 3)",
    "CONTAINS([a] + 1, 'x')",
  ];
  for (const src of exprs) agree(src, 2000, textRow, 13);
});
