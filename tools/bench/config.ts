/**
 * The bxp-cli config that goes with a benchmark workload: bxp's bench template with its three expressions
 * (a date parse, a numeric branch, a string concatenation), one pass-through variable per column, a row rule
 * that lets every row through, and an output of the three computed values followed by every column.
 *
 * The config is built in memory; the bench writes `benchConfigText` next to its input.
 *
 * @example
 * ```ts
 * import { benchConfig, benchOutputColumns } from "./config.ts";
 * import assert from "node:assert/strict";
 * const config = benchConfig(["id", "name"], "3expr");
 * const t = (config.conversion_templates as Record<string, Record<string, unknown>>).bench;
 * assert.equal(t.file_pattern_in, ".in.csv");
 * assert.equal((t.input_schema as Record<string, string>).$col_name, "[name]"); // one pass-through per column
 * assert.deepEqual(Object.keys(t.output_schema as object), ["date_iso", "category", "full_label", "id", "name"]);
 * assert.deepEqual(benchOutputColumns(["id", "name"], "passthrough"), ["id", "name"]);
 * ```
 * @module
 */

/**
 * Which config: the three expressions plus pass-through, pass-through only (isolates expression cost), the
 * three expressions with the numeric one reading a text column, so it fails on every row (the error path of
 * messy data: each row's error is counted and its cell written empty), or the three expressions plus
 * pass-through written as JSON (`file_type_out: "json"`, bxp's array of objects).
 */
export type BenchMode = "3expr" | "passthrough" | "errors" | "json";

/** Every mode, each with its config file beside the input. */
export const BENCH_MODES: readonly BenchMode[] = ["3expr", "passthrough", "errors", "json"];

/** The template id in every bench config. */
export const BENCH_TEMPLATE = "bench";

/** Input files the template picks up, and the suffix of what it writes. */
export const INPUT_SUFFIX = ".in.csv";
/** The suffix bxp-cli gives the output of an input file. */
export const OUTPUT_SUFFIX = ".out.csv";

/** The output suffix of a mode: {@link OUTPUT_SUFFIX}, `.out.json` for the JSON output. */
export function outputSuffix(mode: BenchMode): string {
  return mode === "json" ? ".out.json" : OUTPUT_SUFFIX;
}

/** The three computed variables and their expressions, in output order. */
export const COMPUTED_EXPRESSIONS: ReadonlyArray<readonly [name: string, expr: string]> = [
  ["date_iso", "DATE_CONVERT([date], 'DD.MM.YYYY', 'YYYY-MM-DD')"],
  ["category", "IF([amount] > 100, 'high', 'low')"],
  ["full_label", "[id] & '-' & [name] & '-' & [date]"],
];

/** The `errors` mode's numeric expression: `name` holds text (`name17`), so every row fails NotANumber. */
export const FAILING_EXPRESSION: readonly [name: string, expr: string] = [
  "category",
  "IF([name] * 2 > 100, 'high', 'low')",
];

/** The computed variables of a mode, in output order. */
export function computedExpressions(mode: BenchMode): ReadonlyArray<readonly [name: string, expr: string]> {
  if (mode === "passthrough") return [];
  if (mode === "3expr" || mode === "json") return COMPUTED_EXPRESSIONS;
  return COMPUTED_EXPRESSIONS.map((e) => e[0] === FAILING_EXPRESSION[0] ? FAILING_EXPRESSION : e);
}

/** The output header a bench run writes, for comparing peers against it. */
export function benchOutputColumns(columns: readonly string[], mode: BenchMode): string[] {
  return [...computedExpressions(mode).map(([name]) => name), ...columns];
}

/** The config as a plain object (data_dir "." is the config file's own folder). */
export function benchConfig(columns: readonly string[], mode: BenchMode): Record<string, unknown> {
  const inputSchema: Record<string, string> = {};
  const outputSchema: Record<string, string> = {};
  for (const [name, expr] of computedExpressions(mode)) {
    inputSchema[`$${name}`] = expr;
    outputSchema[name] = `$${name}`;
  }
  // output_schema may only name variables, so each column travels through its own `$col_X`.
  for (const column of columns) {
    inputSchema[`$col_${column}`] = `[${column}]`;
    outputSchema[column] = `$col_${column}`;
  }
  return {
    conversion_templates: {
      [BENCH_TEMPLATE]: {
        data_dir: ".",
        file_pattern_in: INPUT_SUFFIX,
        file_pattern_out: outputSuffix(mode),
        ...(mode === "json" ? { file_type_out: "json" } : {}),
        input_schema: inputSchema,
        row_rules: [{ when: "1 = 1", rows: [{}] }],
        output_schema: outputSchema,
      },
    },
  };
}

/** The config as JSON text, ready to write next to the input. */
export function benchConfigText(columns: readonly string[], mode: BenchMode): string {
  return JSON.stringify(benchConfig(columns, mode), null, 2) + "\n";
}
