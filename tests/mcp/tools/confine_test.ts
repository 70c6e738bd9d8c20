/**
 * Configs that would take over the user's next run: bxp_write_config refuses a config whose data_dir or
 * file names lead outside the project root, bxp_validate warns about one read from under the root, and
 * the library tools answer the template bxp-cli --template would run (a user template shadowing a
 * built-in), all through the real bxp-mcp and bxp-cli processes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { resultText, ServerProcess, type Wire } from "../_support/server_process.ts";
import { entryArgs } from "../../_support/processes.ts";

async function call(server: ServerProcess, id: string, name: string, args: unknown): Promise<Wire> {
  await server.call(id, name, args);
  return (await server.response(id)).result;
}

function config(dataDir: string, extra = "", id = "mine"): string {
  return `{ conversion_templates: { ${JSON.stringify(id)}: { data_dir: ${JSON.stringify(dataDir)}, ` +
    `file_pattern_in: ".csv", file_pattern_out: ".out.csv", ${extra} input_schema: { $a: "[A]" }, ` +
    `row_rules: [{ when: "1 = 1", rows: [{}] }], output_schema: { a: "$a" } } } }`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("bxp_write_config refuses a config leading outside the root; bxp_validate warns with the key path", async () => {
  const root = await Deno.makeTempDir({ prefix: "bxp-confine-" });
  await Deno.mkdir(join(root, "sub"));
  const server = await ServerProcess.start(["--root", root, "--allow-write"]);
  try {
    const refused: [string, string, string][] = [
      ["bxp-cli.json", config("/etc"), "data_dir"],
      ["bxp-cli.json", config("~/inbox"), "data_dir"],
      ["bxp-cli.json", config("../outside"), "data_dir"],
      ["sub/bxp-cli.json", config("../../outside"), "data_dir"],
      ["bxp-cli.json", config("data\\..\\..\\x"), "data_dir"],
      ["bxp-cli.json", config("C:/Users"), "data_dir"],
      ["bxp-cli.json", config(".").replace('".out.csv"', '"/../../x.csv"'), "file_pattern_out"],
      [
        "bxp-cli.json",
        config(".", 'xlsx_sheet: { name: "S", header_row: 1, output_suffix: "/../../y" },'),
        "xlsx_sheet.output_suffix",
      ],
    ];
    let n = 0;
    for (const [path, text, key] of refused) {
      const answer = await call(server, `w${n++}`, "bxp_write_config", { path, config: text });
      const body = JSON.parse(resultText({ result: answer }));
      assert.equal(answer.isError, true, JSON.stringify(body));
      assert.equal(body.refused, "outside-root", JSON.stringify(body));
      assert.match(body.error, new RegExp(`template 'mine'`), body.error);
      assert.ok(body.error.includes(`conversion_templates.mine.${key}`), body.error);
      assert.equal(await exists(join(root, path)), false, `${path} was written for ${key}`);
    }
    // Inside the root, relative to the file's own folder: written.
    const ok = await call(server, "ok1", "bxp_write_config", {
      path: "sub/a.json5",
      config: config("../data"),
    });
    assert.equal(ok.isError, false, resultText({ result: ok }));
    const ok2 = await call(server, "ok2", "bxp_write_config", { path: "b.json5", config: config("data/in") });
    assert.equal(ok2.isError, false, resultText({ result: ok2 }));

    // A config file already in the root (written by anyone) is flagged by bxp_validate, with its key path.
    await Deno.writeTextFile(join(root, "sub", "evil.json5"), config("../../.."));
    const v = await call(server, "v", "bxp_validate", { path: "sub/evil.json5" });
    const verdict = v.structuredContent;
    assert.equal(verdict.ok, true, "a warning, not an error");
    const found = verdict.findings.filter((f: Wire) => f.code === "config.path_outside_root");
    assert.equal(found.length, 1, JSON.stringify(verdict.findings));
    assert.equal(found[0].severity, "warning");
    assert.equal(found[0].path, "conversion_templates.mine.data_dir");
    assert.match(resultText({ result: v }), /path_outside_root/);
    // The same text inline is not a file under the root: no such finding.
    const inline = await call(server, "vi", "bxp_validate", { config: config("../../..") });
    assert.equal(
      inline.structuredContent.findings.some((f: Wire) => f.code === "config.path_outside_root"),
      false,
    );
    const clean = await call(server, "vc", "bxp_validate", { path: "sub/a.json5" });
    assert.equal(
      clean.structuredContent.findings.some((f: Wire) => f.code === "config.path_outside_root"),
      false,
    );
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the library tools answer the user's template that shadows a built-in, as bxp-cli runs it", async () => {
  const home = await Deno.makeTempDir({ prefix: "bxp-confine-home-" });
  const dir = join(home, "bxp", "templates");
  await Deno.mkdir(dir, { recursive: true });
  const mine = config(".", 'description: "my own Anycoin",', "anycoin_to_wealthfolio");
  await Deno.writeTextFile(join(dir, "anycoin_to_wealthfolio.json5"), mine);
  const server = await ServerProcess.start([], { XDG_CONFIG_HOME: home });
  try {
    const listed = JSON.parse(resultText({ result: await call(server, "l", "bxp_list_templates", {}) }));
    const entry = listed.templates.find((t: Wire) => t.id === "anycoin_to_wealthfolio");
    assert.equal(entry.description, "my own Anycoin");
    assert.equal(entry.source, "user");
    assert.equal(entry.file, "anycoin_to_wealthfolio.json5");
    assert.equal(listed.templates.length, 12);
    const fetched = await call(server, "f", "bxp_fetch_template", { template: "anycoin_to_wealthfolio" });
    assert.equal(resultText({ result: fetched }), mine);

    // bxp-cli (same environment) lists the very same template.
    const out = await new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-cli", ["--list-templates"]),
      env: { XDG_CONFIG_HOME: home },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.match(new TextDecoder().decode(out.stdout), /^anycoin_to_wealthfolio +my own Anycoin/m);
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
});
