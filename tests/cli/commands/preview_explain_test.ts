/** bxp-cli --preview and --explain through the real process, on a config file and on a library template. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { alignedTable, withoutFlag } from "../../../src/cli/commands/preview.ts";
import { runBxpCli } from "../../_support/processes.ts";
import { CONFORMANCE_DIR } from "../../_support/conformance.ts";

const CONFIG = `{
  conversion_templates: {
    trades: {
      data_dir: "in",
      file_pattern_in: ".csv",
      file_pattern_out: ".out.csv",
      input_schema: { $sym: "[Symbol]", $qty: "[Qty] * 1", $px: "[Price]" },
      row_rules: [
        { when: "[Side] = 'B'", rows: [{ $side: "'BUY'" }] },
        { when: "[Side] = 'X'", rows: [] },
        { when: "[Side] = 'S'", rows: [{ $side: "'SELL'" }, { $side: "'FEE'", $qty: "1" }] },
      ],
      output_schema: { symbol: "$sym", side: "$side", qty: "$qty", price: "$px" },
    },
  },
}`;

const INPUT = "Symbol,Side,Qty,Price\nAAPL,B,10,150.5\nMSFT,X,1,1\nGOOG,S,2,2800\nTSLA,B,abc,1\n";

async function project(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-preview-" });
  try {
    await Deno.mkdir(join(dir, "in"));
    await Deno.writeTextFile(join(dir, "in", "day.csv"), INPUT);
    await Deno.writeTextFile(join(dir, "bxp-cli.json"), CONFIG);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("--preview N: the first N output rows as an aligned table, and nothing written", async () => {
  await project(async (dir) => {
    const r = await runBxpCli(["--preview", "3"], { cwd: dir });
    assert.equal(r.code, 2, r.stderr); // TSLA's quantity is an expression error: a warning, as in a run
    assert.equal(
      r.text,
      "== day.out.csv (4 row(s), first 3)\n" +
        "symbol  side  qty  price\n" +
        "AAPL    BUY   10   150.5\n" +
        "GOOG    SELL  2    2800\n" +
        "GOOG    FEE   1    2800\n",
    );
    assert.deepEqual([...Deno.readDirSync(join(dir, "in"))].map((e) => e.name), ["day.csv"]);
    const bad = await runBxpCli(["--preview", "0"], { cwd: dir });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--preview needs a row count/);
  });
});

Deno.test("--explain N: rules with their values, the winner, variables and the output rows or drop reason", async () => {
  await project(async (dir) => {
    const r = await runBxpCli(["--explain", "3"], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const text = r.text;
    assert.match(text, /^== template trades, day\.csv, record 3$/m);
    assert.match(text, /^ {4}\[Symbol\] = "GOOG"$/m);
    assert.match(text, /^ {4}#0 when \[Side\] = 'B' {2}=> {2}false$/m);
    assert.match(text, /^ {4}#2 when \[Side\] = 'S' {2}=> {2}true {2}<- first match, wins$/m);
    assert.match(text, /^ {4}\$qty = "2" {4}<- \[Qty\] \* 1$/m);
    assert.match(text, /^ {4}row 1: \$qty = "1" {4}<- 1$/m);
    assert.match(text, /^ {4}row 1 \(written\): symbol="GOOG", side="FEE", qty="1", price="2800"$/m);
    assert.match(text, /^ {2}outcome: written — /m);

    const skipped = await runBxpCli(["--explain", "2", "--template", "trades"], { cwd: dir });
    assert.match(skipped.text, /^ {4}#1 when \[Side\] = 'X' {2}=> {2}true {2}<- first match, wins$/m);
    assert.match(skipped.text, /^ {4}#2 when .* {2}\(not reached\)$/m);
    assert.match(skipped.text, /^ {2}outcome: rule_skip — /m);

    const error = await runBxpCli(["--explain", "4"], { cwd: dir });
    assert.match(error.text, /^ {4}\$qty = error NotANumber: /m);

    const beyond = await runBxpCli(["--explain", "9"], { cwd: dir });
    assert.equal(beyond.code, 1);
    assert.match(beyond.text, /day\.csv: has fewer than 9 data record\(s\)/);
  });
});

Deno.test({
  name: "--preview and --explain work on a library template when there is no config",
  ignore: CONFORMANCE_DIR === null,
  async fn() {
    const source = fileURLToPath(new URL("datasets/xtb2_closed_to_wealthfolio/", CONFORMANCE_DIR!));
    const dir = await Deno.makeTempDir({ prefix: "bxp-preview-" });
    try {
      const name = "sample_2025-12-01_2025-12-31_closed.csv";
      await Deno.copyFile(join(source, name), join(dir, name));
      const p = await runBxpCli(["--preview", "5", "--template", "xtb2_closed_to_wealthfolio"], { cwd: dir });
      assert.equal(p.code, 0, p.stderr);
      assert.match(p.text, /^== sample_2025-12-01_2025-12-31_closed\.csvx \(1 row\(s\)\)\ndate {17}symbol/);
      assert.match(p.text, /2025-12-30 14:31:45 {2}PFE {5}1 {9}SELL/);
      const e = await runBxpCli(["--explain", "2", "--template", "xtb2_closed_to_wealthfolio"], { cwd: dir });
      assert.match(e.text, /#1 when \[Instrument\] = 'Profit\/loss' {2}=> {2}true {2}<- first match, wins/);
      assert.deepEqual([...Deno.readDirSync(dir)].map((x) => x.name), [name]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("preview helpers: flag removal and column alignment", () => {
  assert.deepEqual(withoutFlag(["--preview", "3", "--data=x", "--preview=4"], "--preview"), ["--data=x"]);
  assert.equal(alignedTable([["a", "bb"], ["ccc", "d"]]), "a    bb\nccc  d");
});
