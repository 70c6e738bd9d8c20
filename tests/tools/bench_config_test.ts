import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/model.ts";
import {
  BENCH_MODES,
  BENCH_TEMPLATE,
  benchConfig,
  benchConfigText,
  type BenchMode,
  benchOutputColumns,
  COMPUTED_EXPRESSIONS,
  FAILING_EXPRESSION,
  outputSuffix,
} from "../../tools/bench/config.ts";
import { workloadChunks, workloadColumns } from "../../tools/bench/workload.ts";
import { runBxpCli } from "../_support/processes.ts";

interface BenchTemplate {
  data_dir: string;
  file_pattern_in: string;
  file_pattern_out: string;
  input_schema: Record<string, string>;
  row_rules: unknown[];
  output_schema: Record<string, string>;
}

function template(columns: string[], mode: BenchMode): BenchTemplate {
  const config = benchConfig(columns, mode) as { conversion_templates: Record<string, BenchTemplate> };
  assert.deepEqual(Object.keys(config.conversion_templates), [BENCH_TEMPLATE]);
  return config.conversion_templates[BENCH_TEMPLATE];
}

/**
 * A real bxp-cli run of `mode`'s bench config over a generated workload of `rows` rows (7 columns), in a
 * folder of its own: the input's text, what the run wrote to `output` (a file name) and the run.
 */
async function benchRun(mode: BenchMode, rows: number, output: string, args: string[] = []) {
  const dir = await Deno.makeTempDir({ prefix: `bxp-bench-${mode}-` });
  try {
    const columns = workloadColumns(7);
    const decoder = new TextDecoder();
    let input = "";
    for (const chunk of workloadChunks({ rows, cols: 7 })) input += decoder.decode(chunk);
    await Deno.writeTextFile(`${dir}/input.in.csv`, input);
    await Deno.writeTextFile(`${dir}/bxp-cli.json`, benchConfigText(columns, mode));
    const run = await runBxpCli(["--config", `${dir}/bxp-cli.json`, ...args]);
    const written = await Deno.readTextFile(`${dir}/${output}`).catch(() => "");
    return { columns, input, written, run };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("bench config: bxp's three expressions, one $col_X per column, pass-through rule", () => {
  const columns = workloadColumns(6);
  const t = template(columns, "3expr");
  assert.deepEqual(t.input_schema, {
    $date_iso: "DATE_CONVERT([date], 'DD.MM.YYYY', 'YYYY-MM-DD')",
    $category: "IF([amount] > 100, 'high', 'low')",
    $full_label: "[id] & '-' & [name] & '-' & [date]",
    $col_id: "[id]",
    $col_name: "[name]",
    $col_date: "[date]",
    $col_amount: "[amount]",
    $col_col4: "[col4]",
    $col_col5: "[col5]",
  });
  assert.deepEqual(Object.keys(t.output_schema), ["date_iso", "category", "full_label", ...columns]);
  assert.equal(t.output_schema.full_label, "$full_label");
  assert.equal(t.output_schema.col5, "$col_col5");
  assert.deepEqual(t.row_rules, [{ when: "1 = 1", rows: [{}] }]);
  assert.equal(t.data_dir, ".");
  assert.deepEqual(benchOutputColumns(columns, "3expr"), Object.keys(t.output_schema));
});

Deno.test("bench config: pass-through variant has no computed values", () => {
  const columns = workloadColumns(5);
  const t = template(columns, "passthrough");
  assert.deepEqual(Object.keys(t.input_schema), columns.map((c) => `$col_${c}`));
  assert.deepEqual(Object.keys(t.output_schema), columns);
  assert.deepEqual(benchOutputColumns(columns, "passthrough"), columns);
  assert.equal(COMPUTED_EXPRESSIONS.length, 3);
});

Deno.test("bench config: validates with loadConfig for narrow and very wide workloads", () => {
  for (const cols of [4, 16, 1024]) {
    for (const mode of BENCH_MODES) {
      const { config, diagnostics } = loadConfig(benchConfigText(workloadColumns(cols), mode), "bench.json");
      assert.deepEqual(diagnostics.filter((d) => d.severity === "error"), [], `${cols} columns, ${mode}`);
      assert.ok(config !== null, `${cols} columns, ${mode} loads`);
      assert.equal(config.templates.length, 1);
    }
  }
});

Deno.test("bench config: the errors mode fails on every row in the numeric expression only", async () => {
  const columns = workloadColumns(7);
  const t = template(columns, "errors");
  const plain = template(columns, "3expr");
  assert.equal(t.input_schema.$category, FAILING_EXPRESSION[1]);
  assert.deepEqual({ ...t.input_schema, $category: "" }, { ...plain.input_schema, $category: "" });
  assert.deepEqual(t.output_schema, plain.output_schema);
  assert.deepEqual(benchOutputColumns(columns, "errors"), benchOutputColumns(columns, "3expr"));
  const { input, written, run } = await benchRun("errors", 50, "input.out.csv");
  // Finished with warnings (exit 2): each row's error is counted, and its cell left empty.
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr + run.stdout, /50 input_schema expression error\(s\)/);
  const rows = input.trim().split("\n").slice(1).map((l) => l.split(","));
  const expected = [
    benchOutputColumns(columns, "errors").join(","),
    ...rows.map((r) => expectedRow(r).replace(/,(high|low),/, ",,")),
  ].join("\n") + "\n";
  assert.equal(written, expected);
});

/** What the bench template must produce for one input row, computed here independently of bxp. */
function expectedRow(fields: string[]): string {
  const [id, name, date, amount] = fields;
  const [dd, mm, yyyy] = date.split(".");
  // bxp prints numeric-looking results in canonical form: trailing fractional zeros and a bare dot go.
  const canonicalAmount = amount.replace(/0+$/, "").replace(/\.$/, "");
  return [
    `${yyyy}-${mm}-${dd}`,
    Number(amount) > 100 ? "high" : "low",
    `${id}-${name}-${date}`,
    id,
    name,
    date,
    canonicalAmount,
    ...fields.slice(4),
  ].join(",");
}

Deno.test("bench config: bxp-cli turns a generated workload into the expected output", async () => {
  const { columns, input, written, run } = await benchRun("3expr", 120, "input.out.csv", ["--quiet"]);
  assert.equal(run.code, 0, run.stderr);
  const rows = input.trim().split("\n").slice(1).map((l) => l.split(","));
  const expected = [benchOutputColumns(columns, "3expr").join(","), ...rows.map(expectedRow)].join("\n") +
    "\n";
  assert.equal(written, expected);
});

Deno.test("bench config: the json mode writes the same rows as bxp's JSON array of objects", async () => {
  assert.equal(template(workloadColumns(7), "json").file_pattern_out, outputSuffix("json"));
  const { columns, input, written, run } = await benchRun("json", 40, "input.out.json", ["--quiet"]);
  assert.equal(run.code, 0, run.stderr);
  const headers = benchOutputColumns(columns, "json");
  const rows = input.trim().split("\n").slice(1).map((l) => expectedRow(l.split(",")).split(","));
  // Every value is a string; keys in output_schema order (bxp's layout, see formats/json_output.ts).
  const objects = rows.map((r) => JSON.stringify(Object.fromEntries(headers.map((h, i) => [h, r[i]]))));
  assert.equal(written, `[\n${objects.join(",\n")}\n]\n`);
});
