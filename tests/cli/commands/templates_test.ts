/** bxp-cli's library modes through the real process: --list-templates, --fetch-template, --template with no config. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtinLibrary, findTemplate } from "../../../src/templates/mod.ts";
import { entryArgs, runBxpCli } from "../../_support/processes.ts";
import { CONFORMANCE_DIR } from "../../_support/conformance.ts";

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "bxp-cmd-" });
}

Deno.test("--list-templates: one line per library template, id first", async () => {
  const r = await runBxpCli(["--list-templates"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.text.trimEnd().split("\n");
  assert.equal(lines.length, 12);
  assert.match(lines[0], /^anycoin_to_wealthfolio +Anycoin \(crypto\) -> Wealthfolio$/);
  assert.match(
    lines[11],
    /^xtb2_closed_to_brychtapp +XTB closed positions, new export -> brycht\.app tracker$/,
  );
});

Deno.test("--fetch-template: the library's JSON5 text; unknown ids get a suggestion and exit 1", async () => {
  const r = await runBxpCli(["--fetch-template", "trading212_to_wealthfolio"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.text, findTemplate(builtinLibrary(), "trading212_to_wealthfolio")!.text);
  const bad = await runBxpCli(["--fetch-template=trading212_to_wealthfolo"]);
  assert.equal(bad.code, 1);
  assert.match(
    bad.stderr,
    /no library template 'trading212_to_wealthfolo' \(did you mean 'trading212_to_wealthfolio'\?\)/,
  );
  const none = await runBxpCli(["--fetch-template"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /needs a template id/);
});

Deno.test({
  name: "--template ID with no config runs the library template over --data and matches bxp's golden",
  ignore: CONFORMANCE_DIR === null,
  async fn() {
    const source = fileURLToPath(new URL("datasets/revolutx_to_wealthfolio/", CONFORMANCE_DIR!));
    const work = await tempDir();
    const data = join(work, "inbox");
    try {
      await Deno.mkdir(data);
      const input = "sample_2022-02-09_2026-12-31";
      await Deno.copyFile(join(source, `${input}.csv`), join(data, `${input}.csv`));
      const r = await runBxpCli(["--template", "revolutx_to_wealthfolio", "--data", "inbox"], { cwd: work });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /using library template 'revolutx_to_wealthfolio'/);
      assert.deepEqual(
        await Deno.readFile(join(data, `${input}.csvx`)),
        await Deno.readFile(join(source, `${input}.expected`)),
      );

      // The run's other flags apply: a trace file, and --fresh leaving the existing output alone.
      const traced = await runBxpCli(
        ["--template", "revolutx_to_wealthfolio", "--data", "inbox", "--fresh", "--trace-file", "run.bxtb"],
        { cwd: work },
      );
      assert.equal(traced.code, 0, traced.stderr);
      assert.equal(
        new TextDecoder().decode((await Deno.readFile(join(work, "run.bxtb"))).subarray(0, 4)),
        "BXTB",
      );

      // It is the same run as with a config file: --findings-file and --debug=json's document work too.
      const found = await runBxpCli(
        [
          "--template",
          "revolutx_to_wealthfolio",
          "--data",
          "inbox",
          "--dry-run",
          "--debug=json",
          "--findings-file",
          "findings.json",
        ],
        { cwd: work },
      );
      assert.equal(found.code, 0, found.stderr);
      assert.ok(Array.isArray(JSON.parse(await Deno.readTextFile(join(work, "findings.json"))).findings));
      const summary = JSON.parse(found.text);
      assert.equal(summary.fatal, false);
      assert.ok(
        summary.overall.records_in > 0 || summary.overall.records > 0 || "overall" in summary,
        found.text,
      );

      // With a ./bxp-cli.json the flag means what it always meant: a template of that config.
      await Deno.writeTextFile(
        join(work, "bxp-cli.json"),
        `{ conversion_templates: { other: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
           input_schema: { $a: "[A]" }, output_schema: { a: "$a" } } } }`,
      );
      const own = await runBxpCli(["--template", "revolutx_to_wealthfolio"], { cwd: work });
      assert.equal(own.code, 1);
      assert.doesNotMatch(own.stderr, /using library template/);
      // ... and stderr says so, since the library holds a template of that id too.
      assert.match(
        own.stderr,
        /--template 'revolutx_to_wealthfolio' is taken from \.\/bxp-cli\.json \(config file\)/,
      );
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});

Deno.test("user templates folder ($XDG_CONFIG_HOME/bxp/templates) adds and overrides templates", async () => {
  const home = await tempDir();
  try {
    const dir = join(home, "bxp", "templates");
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      join(dir, "anycoin_to_wealthfolio.json5"),
      `{ conversion_templates: { anycoin_to_wealthfolio: { description: "my own Anycoin", data_dir: ".",
         file_pattern_in: ".csv", file_pattern_out: ".o.csv", input_schema: { $a: "[A]" },
         row_rules: [{ when: "1 = 1", rows: [{}] }], output_schema: { a: "$a" } } } }`,
    );
    await Deno.writeTextFile(join(dir, "broken.json5"), "{ nope");
    // The task's flags plus the environment names the user folder is found by.
    const args = entryArgs("bxp-cli", ["--list-templates"]).map((a) =>
      a.startsWith("--allow-env=") ? `${a},XDG_CONFIG_HOME,HOME,APPDATA` : a
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      env: { XDG_CONFIG_HOME: home },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.match(
      text,
      /^anycoin_to_wealthfolio +my own Anycoin {2}\[user: .*anycoin_to_wealthfolio\.json5\]$/m,
    );
    assert.match(stderr, /skipped .*broken\.json5:1:\d+:/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
