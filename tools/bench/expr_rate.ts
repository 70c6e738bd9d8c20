/**
 * Expressions evaluated per second inside one process (issue 2's figure): the bench template's whole
 * input_schema (three computed expressions plus one pass-through per column), compiled once and evaluated
 * over generated rows, and each computed expression on its own. No process start, no I/O: the language only.
 * @module
 */

import { compileExpression, emptyContext, type EvalContext } from "../../src/lang/mod.ts";
import { BENCH_TEMPLATE, benchConfig } from "./config.ts";
import { workloadChunks, workloadColumns } from "./workload.ts";

/** One measured rate. */
export interface ExprRate {
  /** What was evaluated. */
  label: string;
  evaluations: number;
  ms: number;
  perSecond: number;
}

/** The rows of a small generated workload, as field arrays (the generator never quotes, so a split is exact). */
export function generatedRows(rows: number, cols: number): string[][] {
  const decoder = new TextDecoder();
  let text = "";
  for (const chunk of workloadChunks({ rows, cols })) text += decoder.decode(chunk);
  return text.split("\n").slice(1, rows + 1).map((line) => line.split(","));
}

function timeEvaluations(
  label: string,
  exprs: ReadonlyArray<{ evaluate(ctx: EvalContext): string }>,
  rows: readonly string[][],
  ctx: EvalContext,
  minMs: number,
): ExprRate {
  let sink = 0; // consumed below so the evaluations cannot be optimised away
  const pass = () => {
    for (const row of rows) {
      ctx.fields = row;
      for (const e of exprs) sink += e.evaluate(ctx).length;
    }
  };
  pass(); // warm-up: lets the JIT settle before the clock starts
  let passes = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    pass();
    passes++;
    elapsed = performance.now() - started;
  } while (elapsed < minMs);
  if (sink < 0) throw new Error("unreachable");
  const evaluations = passes * rows.length * exprs.length;
  return { label, evaluations, ms: elapsed, perSecond: evaluations / (elapsed / 1000) };
}

/** Measures the whole input_schema and each computed expression, each for at least `minMs`. */
export function measureExpressionRates(opts: { rows: number; cols: number; minMs: number }): ExprRate[] {
  const columns = workloadColumns(opts.cols);
  const rows = generatedRows(opts.rows, opts.cols);
  const template = (benchConfig(columns, "3expr").conversion_templates as Record<string, unknown>)[
    BENCH_TEMPLATE
  ] as { input_schema: Record<string, string> };
  const schema = Object.entries(template.input_schema).map(([name, src]) => ({
    name,
    expr: compileExpression(src),
  }));
  const ctx: EvalContext = {
    ...emptyContext(),
    columns: new Map(columns.map((name, i) => [name, i])),
    filename: "input",
    recordNum: 1,
  };
  const rates = [
    timeEvaluations(
      `whole input_schema (${schema.length} expressions, ${opts.cols} columns)`,
      schema.map((s) => s.expr),
      rows,
      ctx,
      opts.minMs,
    ),
  ];
  for (const s of schema.filter((s) => !s.name.startsWith("$col_"))) {
    rates.push(timeEvaluations(`${s.name}: ${s.expr.source}`, [s.expr], rows, ctx, opts.minMs));
  }
  return rates;
}
