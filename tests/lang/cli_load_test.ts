/**
 * Expression mistakes stop the real bxp-cli at load time, as bxp does: a `$variable` inside an
 * expression (which used to read as "" and, in a `when` or ISEMPTY, silently drop or keep every row) and
 * a truncated expression. Exit 1, the template and key named, no output written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runBxpCli } from "../_support/processes.ts";

async function runConfig(config: string): Promise<{ code: number; stderr: string; files: string[] }> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-lang-load-" });
  try {
    await Deno.writeTextFile(join(dir, "bxp-cli.json"), config);
    await Deno.writeTextFile(join(dir, "in.csv"), "Date,Amount\n2024-01-01,5\n,7\n");
    const r = await runBxpCli(["--config", join(dir, "bxp-cli.json")], { cwd: dir });
    const files: string[] = [];
    for await (const e of Deno.readDir(dir)) files.push(e.name);
    return { code: r.code, stderr: r.stderr, files: files.sort() };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const template = (inputSchema: string, extra = "") =>
  `{
  conversion_templates: {
    dates: {
      data_dir: ".",
      file_pattern_in: ".csv",
      file_pattern_out: ".out.csv",
      input_schema: { ${inputSchema} },
      ${extra}
      output_schema: { date: "$date", keep: "$keep" },
    },
  },
}`;

Deno.test("bxp-cli: a $variable inside an expression is UnexpectedChar at load, exit 1", async () => {
  const r = await runConfig(template(`$date: "[Date]", $keep: "IF(ISEMPTY($date), 'no', 'yes')"`));
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /conversion_templates\.dates\.input_schema\.\$keep/);
  assert.match(r.stderr, /unexpected character '\$' at pos 12 — expressions see columns, not variables/);
  assert.deepEqual(r.files, ["bxp-cli.json", "in.csv"]);

  const when = await runConfig(
    template(`$date: "[Date]", $keep: "'x'"`, `row_rules: [{ when: "$date != ''", rows: [{}] }],`),
  );
  assert.equal(when.code, 1, when.stderr);
  assert.match(when.stderr, /conversion_templates\.dates\.row_rules\.0\.when/);
  assert.deepEqual(when.files, ["bxp-cli.json", "in.csv"]);
});

Deno.test("bxp-cli: a truncated expression stops the load, exit 1; [$x] is a column reference and runs", async () => {
  const cut = await runConfig(template(`$date: "[Date]", $keep: "UPPER([Amount]"`));
  assert.equal(cut.code, 1, cut.stderr);
  assert.match(cut.stderr, /input_schema\.\$keep/);
  assert.match(cut.stderr, /expected '\)' to close 'UPPER\('/);

  const column = await runConfig(template(`$date: "[Date]", $keep: "[$date] & 'k'"`));
  // It loads and runs; the column is absent from the input, which bxp-cli warns about (exit 2).
  assert.equal(column.code, 2, column.stderr);
  assert.match(column.stderr, /unknown field '\$date'/);
  assert.deepEqual(column.files, ["bxp-cli.json", "in.csv", "in.out.csv"]);
});
