/**
 * A container in the data folder may come from an attacker: its members and sheets never replace a file this
 * program did not write, never the config, and `--dry-run` leaves the folder byte for byte as it was. Stale
 * temporary files are only removed when they carry this program's proof; look-alike names stay. Every case
 * runs the real bxp-cli on real files.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { zipSync } from "fflate";
import { buildXlsx } from "../_support/xlsx_builder.ts";
import { runBxpCli } from "../_support/processes.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** Name, size, mtime and SHA-256 of every entry of `dir`, sorted: two equal snapshots mean nothing changed. */
async function snapshot(dir: string): Promise<string[]> {
  const rows: string[] = [];
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    const path = join(dir, e.name);
    const info = await Deno.lstat(path);
    const hash = info.isFile
      ? Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(path))))
        .map((b) => b.toString(16).padStart(2, "0")).join("")
      : "-";
    rows.push(`${e.name} ${info.size} ${info.mtime?.getTime()} ${hash}`);
  }
  return rows;
}

/** A config converting every `.csv` of its folder (column `a`) to `.out`, with `zip_input`. */
function zipConfig(extra = ""): string {
  return `{conversion_templates: {t: {data_dir: ".", zip_input: {${extra}}, file_pattern_in: ".csv",
    file_pattern_out: ".out", input_schema: {$a: "[a]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
    output_schema: {a: "$a"}}}}`;
}

/** A private HOME for the child (its temp-proof key lives there, not in the tester's own home). */
async function withDir(prefix: string, fn: (dir: string, env: Record<string, string>) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix });
  const home = await Deno.makeTempDir({ prefix: "bxp-home-" });
  try {
    await fn(dir, { HOME: home, XDG_CONFIG_HOME: join(home, ".config") });
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("zip_input: a member named like a user's file stops the run; the file stays byte-identical", () =>
  withDir("bxp-zipsafe-", async (dir, env) => {
    await Deno.writeTextFile(join(dir, "inner.csv"), "a\nmine\n");
    await Deno.writeTextFile(join(dir, "c.json"), zipConfig());
    // Another size (refused from the archive's directory), and the same size with other bytes (compared).
    for (const attacker of ["a\nattacker\n", "a\nmino\n"]) {
      const members = { "inner.csv": enc(attacker), "b.csv": enc("a\n1\n") };
      await Deno.writeFile(join(dir, "x.zip"), zipSync(members));
      const before = await snapshot(dir);
      const res = await runBxpCli(["--config", "c.json"], { cwd: dir, env });
      assert.equal(res.code, 1, res.stderr);
      assert.match(
        res.stderr,
        /fatal error: zip 'x\.zip': member 'inner\.csv' would replace '\.\/inner\.csv', which holds other content and was not written by this run/,
      );
      assert.doesNotMatch(res.stderr, /\n\s+at /, "no stack trace");
      assert.deepEqual(await snapshot(dir), before, "nothing written, nothing replaced (not even b.csv)");
    }
  }));

Deno.test("zip_input: a member named bxp-cli.json never replaces the config, nor lands beside it", () =>
  withDir("bxp-zipcfg-", async (dir, env) => {
    const evil =
      `{conversion_templates: {t: {data_dir: "/", file_pattern_in: ".csv", file_pattern_out: ".out",
      input_schema: {$a: "[a]"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {a: "$a"}}}}`;
    for (const [member, pattern] of [["cfg/bxp-cli.json", ".json"], ["BXP-CLI.JSON", ".JSON"]]) {
      await Deno.writeFile(join(dir, "x.zip"), zipSync({ [member]: enc(evil), "a.csv": enc("a\n1\n") }));
      // The default config (bxp-cli.json, run without --config) is what the member would replace.
      await Deno.writeTextFile(join(dir, "bxp-cli.json"), zipConfig(`entry_pattern: "${pattern}"`));
      const before = await snapshot(dir);
      const res = await runBxpCli([], { cwd: dir, env });
      assert.equal(res.code, 1, res.stderr);
      assert.match(
        res.stderr,
        new RegExp(
          `fatal error: zip 'x\\.zip': member '${
            member.replace(".", "\\.")
          }' maps to '[^']+', the name of a bxp-cli config`,
        ),
      );
      assert.deepEqual(await snapshot(dir), before, member);
    }
    // With the config elsewhere, a member named bxp-cli.json is not planted in the data folder either.
    await Deno.remove(join(dir, "bxp-cli.json"));
    const elsewhere = await Deno.makeTempDir({ prefix: "bxp-zipcfg-conf-" });
    try {
      await Deno.writeFile(join(dir, "x.zip"), zipSync({ "bxp-cli.json": enc(evil) }));
      await Deno.writeTextFile(
        join(elsewhere, "c.json"),
        zipConfig(`entry_pattern: ".json"`).replace(`data_dir: "."`, `data_dir: ${JSON.stringify(dir)}`),
      );
      const before = await snapshot(dir);
      const res = await runBxpCli(["--config", join(elsewhere, "c.json")], { cwd: elsewhere, env });
      assert.equal(res.code, 1, res.stderr);
      assert.match(
        res.stderr,
        /member 'bxp-cli\.json' maps to 'bxp-cli\.json', the name of a bxp-cli config/,
      );
      assert.deepEqual(await snapshot(dir), before);
    } finally {
      await Deno.remove(elsewhere, { recursive: true });
    }
  }));

Deno.test("zip_input: a re-run over the same archive keeps working; identical members are left as they are", () =>
  withDir("bxp-ziprerun-", async (dir, env) => {
    await Deno.writeFile(join(dir, "x.zip"), zipSync({ "CSV/a.csv": enc("a\n1\n") }));
    await Deno.writeTextFile(join(dir, "c.json"), zipConfig());
    const first = await runBxpCli(["--config", "c.json"], { cwd: dir, env });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(
      await Deno.readTextFile(join(dir, "a.csv")),
      "a\n1\n",
      "the member stays beside the zip (bxp)",
    );
    const memberInfo = await Deno.stat(join(dir, "a.csv"));
    const second = await runBxpCli(["--config", "c.json"], { cwd: dir, env });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.text, /unpacked 'x\.zip' \(1 members\)/);
    assert.equal(
      (await Deno.stat(join(dir, "a.csv"))).mtime?.getTime(),
      memberInfo.mtime?.getTime(),
      "not rewritten",
    );
    assert.equal(await Deno.readTextFile(join(dir, "a.out")), "a\n1\n");
  }));

Deno.test("zip_input: two archives of one folder mapping to the same member name stop the run", () =>
  withDir("bxp-zipdup-", async (dir, env) => {
    await Deno.writeFile(join(dir, "1.zip"), zipSync({ "a.csv": enc("a\n1\n") }));
    await Deno.writeFile(join(dir, "2.zip"), zipSync({ "a.csv": enc("a\n2\n") }));
    await Deno.writeTextFile(join(dir, "c.json"), zipConfig());
    const before = await snapshot(dir);
    const res = await runBxpCli(["--config", "c.json"], { cwd: dir, env });
    assert.equal(res.code, 1, res.stderr);
    assert.match(
      res.stderr,
      /fatal error: zip '2\.zip': member 'a\.csv' maps to 'a\.csv', which '1\.zip' unpacks too/,
    );
    assert.deepEqual((await snapshot(dir)).filter((r) => !r.startsWith("a.csv ")), before);
  }));

Deno.test("--dry-run with zip_input and xlsx_sheet writes and deletes nothing in the data folder", () =>
  withDir("bxp-zipdry-", async (dir, env) => {
    await Deno.writeFile(join(dir, "x.zip"), zipSync({ "CSV/a.csv": enc("a\n1\n2\n") }));
    await Deno.writeFile(
      join(dir, "b.xlsx"),
      buildXlsx([{ name: "S", rows: new Map([[1, ["a"]], [2, ["3"]]]) }]),
    );
    await Deno.writeTextFile(join(dir, ".notes.txt.99999.12345.bxp-tmp"), "my notes");
    await Deno.writeTextFile(
      join(dir, "c.json"),
      `{conversion_templates: {
        t: {data_dir: ".", zip_input: {}, file_pattern_in: ".csv", file_pattern_out: ".out",
          input_schema: {$a: "[a]"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {a: "$a"}},
        s: {data_dir: ".", xlsx_sheet: {name: "S", header_row: 1, output_suffix: "_s.sheet"},
          file_pattern_in: ".sheet", file_pattern_out: ".sout",
          input_schema: {$a: "[a]"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {a: "$a"}}}}`,
    );
    const before = await snapshot(dir);
    const res = await runBxpCli(["--config", "c.json", "--dry-run", "--debug=json"], { cwd: dir, env });
    assert.equal(res.code, 0, res.stderr);
    // The member and the sheet were converted from the scratch folder.
    const summary = JSON.parse(res.text);
    assert.deepEqual(summary.templates.map((t: { rows_in: number }) => t.rows_in), [2, 1]);
    assert.deepEqual(await snapshot(dir), before);
  }));

Deno.test("a look-alike temp name survives a run and a dry-run", () =>
  withDir("bxp-lookalike-", async (dir, env) => {
    const lookalike = ".notes.txt.99999.12345.bxp-tmp";
    await Deno.writeTextFile(join(dir, lookalike), "my notes");
    await Deno.writeTextFile(join(dir, "a.csv"), "a\n1\n");
    await Deno.writeTextFile(
      join(dir, "c.json"),
      `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
        input_schema: {$a: "[a]"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {a: "$a"}}}}`,
    );
    for (const args of [["--dry-run"], []]) {
      const res = await runBxpCli(["--config", "c.json", ...args], { cwd: dir, env });
      assert.equal(res.code, 0, res.stderr);
      assert.doesNotMatch(res.stderr, /removed/);
      assert.equal(await Deno.readTextFile(join(dir, lookalike)), "my notes", args.join(" "));
    }
  }));
