/** bxp-cli's terminal checks through the real process: --validate and --eval. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseRow } from "../../../src/cli/commands/eval.ts";
import { locate } from "../../../src/cli/commands/locate.ts";
import { runBxpCli } from "../../_support/processes.ts";

const BAD = `{
  conversion_templates: {
    t: {
      data_dir: "nope",
      file_pattern_in: ".csv",
      file_pattern_out: ".out",
      csv_delimter_in: ";",
      input_schema: {
        $a: "UPPER([A]",
        $b: "SPLIT_PART([B], '/', 0)",
      },
      row_rules: [{ when: "1 = 1", rows: [{}] }],
      output_schema: { a: "$a", b: "$b" },
    },
  },
}
`;

async function withConfig(text: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-check-" });
  try {
    await Deno.writeTextFile(join(dir, "c.json5"), text);
    await Deno.writeTextFile(join(dir, "in.csv"), "A,B\n1,2\n");
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("--validate: file:line:col findings with the line and a caret; exit 1 on errors", async () => {
  await withConfig(BAD, async (dir) => {
    const r = await runBxpCli(["--validate", "--config", "c.json5"], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    const lines = r.text.split("\n");
    const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
    const unknown = at("c.json5:7:7: error: unknown config key 'csv_delimter_in'");
    assert.ok(unknown >= 0, r.text);
    assert.match(lines[unknown], /\[config\.unknown_key\]$/);
    assert.equal(lines[unknown + 1], '      csv_delimter_in: ";",');
    assert.equal(lines[unknown + 2], "      " + "^".repeat("csv_delimter_in".length));
    const split = at("c.json5:10:35: error: ");
    assert.ok(split >= 0, r.text);
    assert.match(lines[split], /\[expr\.SplitPartBadIndex\]$/);
    assert.equal(lines[split + 2], " ".repeat(34) + "^");
    assert.ok(at("c.json5:4:17: error: data_dir does not exist: 'nope' [fs.dir_not_found]") >= 0, r.text);
    assert.ok(lines.some((l) => /^c\.json5:9:\d+: error: .*\[expr\.ExpectedRParen\]$/.test(l)), r.text);
    assert.match(r.text, /^c\.json5: 4 error\(s\), 0 warning\(s\)$/m);
  });
});

Deno.test("--validate: a clean config exits 0; warnings only exit 2; a syntax error points at its place", async () => {
  const good = BAD.replace('"nope"', '"."').replace("csv_delimter_in", "csv_delimiter_in")
    .replace('"UPPER([A]"', '"UPPER([A])"').replace("'/', 0)", "'/', 1)");
  await withConfig(good, async (dir) => {
    const r = await runBxpCli(["--validate", "--config", "c.json5"], { cwd: dir });
    assert.equal(r.code, 0, r.text);
    assert.equal(r.text, "c.json5: ok, no errors or warnings\n");
  });
  // An input variable nothing reads is a warning.
  const unused = good.replace('$b: "SPLIT_PART', '$unused: "[C]",\n        $b: "SPLIT_PART');
  await withConfig(unused, async (dir) => {
    const r = await runBxpCli(["--validate", "--config", "c.json5"], { cwd: dir });
    assert.equal(r.code, 2, r.text);
    assert.match(r.text, /^c\.json5:\d+:\d+: warning: .*\$unused.* \[config\.unused_input_var\]$/m);
  });
  await withConfig("{\n  conversion_templates: {\n    t: { data_dir: . }\n  }\n}\n", async (dir) => {
    const r = await runBxpCli(["--validate", "--config", "c.json5"], { cwd: dir });
    assert.equal(r.code, 1);
    assert.match(
      r.text,
      /^c\.json5:3:\d+: error: .*\[json5\.parse_error\]\n {4}t: \{ data_dir: \. \}\n *\^$/m,
    );
  });
  const missing = await runBxpCli(["--validate", "--config", "/nonexistent/x.json"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: cannot read the config \/nonexistent\/x\.json: no such file$/m);
  // With no config, a library template is checked instead.
  await withConfig("", async (dir) => {
    await Deno.remove(join(dir, "c.json5"));
    const lib = await runBxpCli(["--validate", "--template", "revolutx_to_wealthfolio"], { cwd: dir });
    assert.equal(lib.code, 0, lib.text + lib.stderr);
    assert.equal(lib.text, "library:revolutx_to_wealthfolio: ok, no errors or warnings\n");
  });
});

Deno.test("--eval: a value on stdout; an error with a caret under its span on stderr", async () => {
  const ok = await runBxpCli(["--eval", "[Price] * [Qty]", "--row", "Price=2.5,Qty=4"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.text, "10\n");
  const date = await runBxpCli([
    "--eval=DATE_CONVERT([d], 'DD.MM.YYYY', 'YYYY-MM-DD')",
    "--row=d=31.12.2024",
  ]);
  assert.equal(date.text, "2024-12-31\n");
  const bad = await runBxpCli(["--eval", "UPPER([Name]) & ABS('x')", "--row", "Name=bob"]);
  assert.equal(bad.code, 1);
  assert.equal(bad.text, "");
  assert.match(bad.stderr, /^error: NotANumber: /);
  assert.match(bad.stderr, /\n {2}UPPER\(\[Name\]\) & ABS\('x'\)\n {18}\^{8}\n/);
  const noEq = await runBxpCli(["--eval", "1", "--row", "Price"]);
  assert.equal(noEq.code, 1);
  assert.match(noEq.stderr, /--row entry 'Price' has no '='/);
});

Deno.test("--row parsing: escaped commas and equals signs", () => {
  assert.deepEqual(parseRow("A=1\\,5,B=x\\=y, C = z "), {
    headers: ["A", "B", "C"],
    fields: ["1,5", "x=y", " z "],
  });
  assert.deepEqual(parseRow(""), { headers: [], fields: [] });
});

Deno.test("locate: paths through templates, arrays and expression offsets", () => {
  const text = '{\n  a: { "x.y": [ { w: "[X] +" } ] }\n}';
  assert.deepEqual(
    locate(text, { severity: "error", code: "expr.X", message: "", path: "a.x.y.0.w", off: 4, len: 1 }),
    { line: 2, col: 27, width: 1 },
  );
  assert.deepEqual(
    locate(text, { severity: "error", code: "config.missing_field", message: "", path: "a.zz" }),
    {
      line: 2,
      col: 3,
      width: 1,
    },
  );
});
