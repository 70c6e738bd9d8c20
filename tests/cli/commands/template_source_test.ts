/**
 * `bxp-cli --template ID` with a `./bxp-cli.json` present runs the config's template of that id; when the
 * library also holds ID, stderr says which source ran (the real bxp-cli process).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runBxpCli } from "../../_support/processes.ts";

const CONFIG = `{ conversion_templates: { anycoin_to_wealthfolio: { data_dir: ".", file_pattern_in: ".csv",
  file_pattern_out: ".o.csv", input_schema: { $a: "[A]" }, row_rules: [{ when: "1 = 1", rows: [{}] }],
  output_schema: { a: "$a" } } } }`;

Deno.test("--template ID beside ./bxp-cli.json names the config file as the source, not the library", async () => {
  const work = await Deno.makeTempDir({ prefix: "bxp-src-" });
  try {
    await Deno.writeTextFile(join(work, "bxp-cli.json"), CONFIG);
    await Deno.writeTextFile(join(work, "in.csv"), "A\n1\n");
    const r = await runBxpCli(["--template", "anycoin_to_wealthfolio"], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /--template 'anycoin_to_wealthfolio' is taken from \.\/bxp-cli\.json \(config file\), not from the library template of that id \(builtin:anycoin_to_wealthfolio\)/,
    );
    assert.equal(await Deno.readTextFile(join(work, "in.o.csv")), "a\n1\n");
    // --quiet keeps it quiet; the authoring modes say it too.
    const quiet = await runBxpCli(["--template", "anycoin_to_wealthfolio", "--quiet", "--dry-run"], {
      cwd: work,
    });
    assert.doesNotMatch(quiet.stderr, /is taken from/);
    const validated = await runBxpCli(["--validate", "--template", "anycoin_to_wealthfolio"], { cwd: work });
    assert.match(
      validated.stderr,
      /--template 'anycoin_to_wealthfolio' is taken from \.\/bxp-cli\.json \(config file\)/,
    );
    // An id the library does not hold is no ambiguity: nothing extra is said.
    const own = CONFIG.replace("anycoin_to_wealthfolio", "mine");
    await Deno.writeTextFile(join(work, "bxp-cli.json"), own);
    const plain = await runBxpCli(["--template", "mine", "--dry-run"], { cwd: work });
    assert.equal(plain.code, 0, plain.stderr);
    assert.doesNotMatch(plain.stderr, /is taken from/);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
