/**
 * Findings and `--strict` with the real bxp-cli: what a run did that is legal but suspicious is listed in the
 * summary, in `--findings-file` and in `--debug=json`; under `--strict` each is an error, the outputs concerned
 * are not written and the run exits 1. The block-parallel path finds exactly what the serial one finds.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT, runBxpCli } from "../_support/processes.ts";

const CONFIG = `{
  conversion_templates: {
    t1: {
      data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv", csv_text_quote_out: "none",
      input_schema: {
        $date: "DATE_CONVERT([d], 'DD.MM.YYYY', 'YYYY-MM-DD')",
        $name: "[name]",
        $note: "[note]",
        $ghost: "[Missing]",
        $blank: "''",
      },
      row_rules: [{ when: "1 = 1", rows: [{}] }],
      output_schema: { date: "$date", name: "$name", note: "$note", ghost: "$ghost", blank: "$blank" },
    },
    t2: {
      data_dir: ".", file_pattern_in: ".dat", file_pattern_out: ".out.dat",
      input_schema: { $k: "[k]" },
      row_rules: [{ when: "[k] = 'never'", rows: [{}] }],
      output_schema: { k: "$k" },
    },
  },
}`;

const A_CSV = 'd,name,note\n2024-01-05,"x,y",\n2024-01-06,z,\n';
const B_DAT = "k\n1\n2\n3\n";

type Finding = {
  code: string;
  template: string;
  file?: string;
  column?: string;
  rule?: number;
  record?: number;
  message: string;
};

async function withCase(fn: (dir: string) => Promise<void>, aCsv = A_CSV): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-findings-" });
  try {
    await Deno.writeTextFile(join(dir, "c.json"), CONFIG);
    await Deno.writeTextFile(join(dir, "a.csv"), aCsv);
    await Deno.writeTextFile(join(dir, "b.dat"), B_DAT);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const brief = (fs: Finding[]) => fs.map((f) => `${f.code} ${f.template} ${f.file ?? ""} ${f.column ?? ""}`);

const EXPECTED = [
  "empty_column t1 a.csv date",
  "empty_column t1 a.csv note",
  "empty_column t1 a.csv ghost",
  "unknown_column t1 a.csv Missing",
  "unquoted_delimiter t1 a.csv name",
  "date_format_mismatch t1 a.csv $date",
  "zero_rows t2 b.dat ",
];

Deno.test("without --strict: findings are listed in the summary and the findings file; outputs are written", () =>
  withCase(async (dir) => {
    const res = await runBxpCli(["--config", "c.json", "--findings-file", "f.json"], { cwd: dir });
    // The unquoted comma breaks a.out.csv's rows: a warning (exit 2), never "ok", naming file, record, column
    // and the setting to change. The other findings stay informational.
    assert.equal(res.code, 2, res.stderr);
    assert.equal(
      res.stderr.match(/^warning: .*$/gm)?.join("\n"),
      `warning: './a.csv' record 1: output column 'name' holds the output delimiter ',' or a line break and ` +
        `csv_text_quote_out is "none": the written row gains columns, or its line break is rewritten (CR ` +
        `dropped, LF as \\n); set csv_text_quote_out: "double" (template: t1)`,
    );
    assert.match(res.text, /=== template: t1 ===\n(.*\n)*summary: errors:0 warnings:1 /);
    assert.match(res.text, /=== template: t2 ===\n(.*\n)*summary: errors:0 warnings:0 /);
    assert.match(res.text, /=== overall summary ===\nerrors:0 warnings:1 /);
    const doc = JSON.parse(await Deno.readTextFile(join(dir, "f.json"))) as { findings: Finding[] };
    assert.deepEqual(brief(doc.findings), EXPECTED);
    const byCode = new Map(doc.findings.map((f) => [f.code, f]));
    assert.equal(byCode.get("unquoted_delimiter")!.record, 1);
    assert.match(
      byCode.get("zero_rows")!.message,
      /'b\.dat' has 3 record\(s\) but wrote 0 rows \(3 no_rule_match/,
    );
    assert.match(
      byCode.get("unquoted_delimiter")!.message,
      /record 1 of 'a\.csv' holds the output delimiter ','/,
    );
    assert.match(byCode.get("date_format_mismatch")!.message, /returned "" for all 2 non-empty input\(s\)/);
    assert.match(byCode.get("date_format_mismatch")!.message, /first: '2024-01-05'/);
    assert.match(
      byCode.get("unknown_column")!.message,
      /\[Missing\] in input_schema\.\$ghost matches no column/,
    );
    assert.match(res.text, / {2}finding \(zero_rows\): template 't2': 'b\.dat' has 3 record/);
    assert.match(
      res.text,
      /read 1 file, 3 records in, 0 rows written\n {2}filtered: 3 no_rule_match, 0 rule_skip/,
    );
    // '' by design: the blank column is never a finding.
    assert.ok(!doc.findings.some((f) => f.column === "blank"));
    // Outputs as bxp writes them (the unquoted comma included).
    assert.equal(
      await Deno.readTextFile(join(dir, "a.out.csv")),
      "date,name,note,ghost,blank\n,x,y,,,\n,z,,,\n",
    );
    assert.equal(await Deno.readTextFile(join(dir, "b.out.dat")), "k\n");
  }));

Deno.test("--strict: every finding is an error naming template, file and column; no output of those files", () =>
  withCase(async (dir) => {
    const res = await runBxpCli(["--config", "c.json", "--strict", "--findings-file", "f.json"], {
      cwd: dir,
    });
    assert.equal(res.code, 1);
    for (
      const pattern of [
        /error: --strict: template 't1': output column 'note' \(\$note\) is empty on all 2 row\(s\) written from 'a\.csv'/,
        /error: --strict: template 't1': \[Missing\] in input_schema\.\$ghost matches no column of 'a\.csv'/,
        /error: --strict: template 't2': 'b\.dat' has 3 record\(s\) but wrote 0 rows/,
        /error: --strict: no output written for 'a\.csv' \(template: t1\)/,
      ]
    ) assert.match(res.stderr, pattern);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "a.csv",
      "b.dat",
      "c.json",
      "f.json",
    ]);
    const doc = JSON.parse(await Deno.readTextFile(join(dir, "f.json"))) as { findings: Finding[] };
    assert.deepEqual(brief(doc.findings), EXPECTED);
  }));

Deno.test("--strict on a clean run changes nothing: exit 0 and the demo's golden output", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-strict-clean-" });
  try {
    const demo = fileURLToPath(new URL("samples/demo/", REPO_ROOT));
    await Deno.mkdir(join(dir, "data"));
    await Deno.copyFile(join(demo, "bxp-cli.json"), join(dir, "bxp-cli.json"));
    const name = "statement_2024-01-01_2024-12-31";
    await Deno.copyFile(join(demo, "data", `${name}.csv`), join(dir, "data", `${name}.csv`));
    const res = await runBxpCli(["--strict", "--findings-file", "f.json"], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(
      await Deno.readFile(join(dir, "data", `${name}.tracker.csv`)),
      await Deno.readFile(join(demo, "expected", `${name}.tracker.csv`)),
    );
    assert.equal(await Deno.readTextFile(join(dir, "f.json")), '{\n  "findings": []\n}\n');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--debug=json carries the new counts, outputs and findings beside the existing fields", () =>
  withCase(async (dir) => {
    const res = await runBxpCli(["--config", "c.json", "--debug=json"], { cwd: dir });
    assert.equal(res.code, 2, res.stderr);
    const doc = JSON.parse(res.text);
    assert.deepEqual(Object.keys(doc), ["fatal", "templates", "overall", "messages", "findings"]);
    const [t1, t2] = doc.templates;
    assert.equal(t1.id, "t1");
    assert.equal(t1.rows_in, 2);
    assert.equal(t1.rows_out, 2);
    assert.deepEqual(t1.filtered, { no_rule_match: 0, rule_skip: 0, date_filter: 0 });
    assert.equal(t1.expr_errors, 0);
    assert.equal(t1.warnings, 1, "the unquoted delimiter");
    assert.equal(doc.overall.warnings, 1);
    assert.deepEqual(t1.outputs, ["./a.out.csv"]);
    assert.deepEqual(t2.filtered, { no_rule_match: 3, rule_skip: 0, date_filter: 0 });
    assert.deepEqual(t2.outputs, ["./b.out.dat"]);
    assert.deepEqual(brief(doc.findings), EXPECTED);
    assert.deepEqual(brief(doc.overall.findings), EXPECTED);
  }));

Deno.test("the block-parallel path finds what the serial path finds", () => {
  // Enough rows for several blocks; the comma and the date mismatch sit in a late block.
  const rows = Array.from({ length: 20_000 }, (_, i) => `2024-01-0${1 + (i % 9)},n${i},`);
  rows[15_000] = '2024-01-05,"late,comma",';
  const csv = `d,name,note\n${rows.join("\n")}\n`;
  return withCase(async (dir) => {
    const serial = await runBxpCli(["--config", "c.json", "--findings-file", "s.json"], {
      cwd: dir,
      env: { BXP_WORKERS: "0" },
    });
    const parallel = await runBxpCli(["--config", "c.json", "--findings-file", "p.json", "--debug=json"], {
      cwd: dir,
      env: {
        BXP_WORKERS: "2",
        BXP_PARALLEL_MIN_BYTES: "1",
        BXP_WORKERS_JOIN_MS: "0",
        BXP_BLOCK_BYTES: "16384",
      },
    });
    assert.equal(serial.code, 2, serial.stderr);
    assert.equal(parallel.code, 2, parallel.stderr);
    assert.match(serial.stderr, /^warning: '\.\/a\.csv' record 15001: output column 'name' holds /m);
    // --debug=json carries the messages in the document.
    const messages: string[] = JSON.parse(parallel.text).messages;
    assert.ok(messages.some((m) => m.startsWith("warning: './a.csv' record 15001: output column 'name'")));
    const s = await Deno.readTextFile(join(dir, "s.json"));
    assert.equal(await Deno.readTextFile(join(dir, "p.json")), s);
    assert.match(s, /record 15001 of 'a\.csv'/);
    assert.deepEqual(JSON.parse(parallel.text).templates[0].filtered, {
      no_rule_match: 0,
      rule_skip: 0,
      date_filter: 0,
    });
  }, csv);
});
