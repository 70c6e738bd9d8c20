/**
 * `bxp-cli --init SAMPLE` through the real process: the drafted config validates, and running it (the
 * real bxp-cli again) writes every data row of the sample with exit 0 — on a messy synthetic export and
 * on every CSV input of bxp's conformance cases.
 */

import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sniffCsv } from "../../../src/draft/sniff.ts";
import { draftConfig } from "../../../src/draft/draft.ts";
import { annotateConfig } from "../../../src/inspect/annotate.ts";
import { runBxpCli } from "../../_support/processes.ts";
import { CONFORMANCE_DIR } from "../../_support/conformance.ts";

/** Drafts from `sample` (bytes) in a fresh folder, runs the draft; returns the output text. */
async function initAndRun(
  name: string,
  bytes: Uint8Array,
  viaProcess = true,
  expectedCode = 0,
): Promise<{ config: string; output: string; rows: number }> {
  const work = await Deno.makeTempDir({ prefix: "bxp-init-" });
  try {
    await Deno.writeFile(join(work, name), bytes);
    if (viaProcess) {
      const init = await runBxpCli(["--init", name], { cwd: work });
      assert.equal(init.code, 0, `${name}: ${init.stderr}`);
      assert.match(init.stderr, /^wrote bxp-cli\.json: template '/);
      assert.match(init.stderr, /\nself-check: ok: /);
    } else {
      // The same drafter in process (the --init process itself is covered above): one process per sample.
      await Deno.writeTextFile(join(work, "bxp-cli.json"), draftConfig(bytes, { sampleName: name }).text);
    }
    const config = await Deno.readTextFile(join(work, "bxp-cli.json"));
    const annotated = annotateConfig(config, "bxp-cli.json");
    assert.equal(annotated.exitCode, 0, annotated.json);
    assert.ok(!/"\$(err|warn)_/.test(annotated.json), `${name}: ${annotated.json}`);

    const run = await runBxpCli(["--debug=json"], { cwd: work });
    assert.equal(run.code, expectedCode, `${name}: ${run.stderr}\n${run.text}\n${config}`);
    const doc = JSON.parse(run.text);
    const out = [...Deno.readDirSync(work)].find((e) => e.name.includes(".clean."));
    assert.ok(out, `${name}: an output file`);
    return { config, output: await Deno.readTextFile(join(work, out.name)), rows: doc.templates[0].rows_out };
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

Deno.test("--init: a semicolon export with a preamble, decimal commas, booleans and a totals line", async () => {
  const sample = "Account statement\nClient: 42\n\nDate;Description;Amount;Paid;Ref\n" +
    "31.12.2024;Coffee;1 234,50;yes;0012\n02.01.2025;Tea;-3,20;no;0013\n15.01.2025;Cake;12,00;yes;0014\n" +
    "Total;;1 243,30;;\n";
  const r = await initAndRun("bank_2024.csv", new TextEncoder().encode(sample));
  assert.match(r.config, /csv_delimiter_in: ";"/);
  assert.match(r.config, /csv_decimal_separator_in: ","/);
  assert.match(r.config, /csv_header_line: 3,/);
  // The totals line is recognised by its shape (no date where every data record has one), not its text.
  assert.match(r.config, /\{ when: "NOT IS_DATE\(\[Date\], 'DD\.MM\.YYYY'\)", rows: \[\] \}/);
  assert.equal(r.rows, 3);
  assert.equal(
    r.output,
    "date,description,amount,paid,ref\n2024-12-31,Coffee,1234.5,true,0012\n" +
      "2025-01-02,Tea,-3.2,false,0013\n2025-01-15,Cake,12,true,0014\n",
  );
});

Deno.test("--init: repeated and empty header names are read by position, each column its own", async () => {
  // bxp-cli warns about the repeated header on every run (exit 2); the draft still reads every column.
  const r = await initAndRun("r.csv", new TextEncoder().encode("a,a,A,\n1,2,3,4\n5,6,7,8\n"), true, 2);
  assert.equal(r.output, "a,a_2,a_3,column_4\n1,2,3,4\n5,6,7,8\n");
});

Deno.test("--init: refuses to overwrite a config and names what is missing", async () => {
  const work = await Deno.makeTempDir({ prefix: "bxp-init-" });
  try {
    await Deno.writeTextFile(join(work, "a.csv"), "x,y\n1,2\n");
    await Deno.writeTextFile(join(work, "bxp-cli.json"), "{}");
    const r = await runBxpCli(["--init", "a.csv"], { cwd: work });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bxp-cli\.json exists/);
    assert.equal(await Deno.readTextFile(join(work, "bxp-cli.json")), "{}");
    await Deno.writeTextFile(join(work, "rows.json"), '[{"a": 1}]');
    const json = await runBxpCli(["--init", "rows.json", "--config", "x.json"], { cwd: work });
    assert.equal(json.code, 1);
    assert.match(json.stderr, /rows\.json looks like JSON; --init drafts configs for CSV exports only/);
    const missing = await runBxpCli(["--init", "nope.csv", "--config", "x.json"], { cwd: work });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read sample nope\.csv/);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test({
  name: "--init: every CSV input of bxp's conformance cases drafts a config that writes all its rows",
  ignore: CONFORMANCE_DIR === null,
  async fn() {
    const root = fileURLToPath(CONFORMANCE_DIR!);
    const lines = Deno.readTextFileSync(join(root, "CASES.tsv")).trim().split("\n").slice(1);
    const jobs: (() => Promise<void>)[] = [];
    for (const line of lines) {
      const [dir, , , inputs] = line.split("\t");
      for (const input of inputs.split(";")) {
        if (!input.endsWith(".csv")) continue;
        jobs.push(async () => {
          const bytes = await Deno.readFile(join(root, dir, input));
          const r = await initAndRun(basename(input), bytes, false);
          const expected = sniffCsv(bytes).dataRecords;
          assert.equal(r.rows, expected, `${dir}/${input}: ${r.rows} of ${expected} rows written`);
        });
      }
    }
    const samples = jobs.length;
    // Two at a time (the machine has two cores).
    const workers = Array.from({ length: 2 }, async () => {
      for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) await job();
    });
    await Promise.all(workers);
    assert.ok(samples >= 25, `${samples} samples`);
  },
});
