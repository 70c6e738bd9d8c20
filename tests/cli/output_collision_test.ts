/**
 * Outputs that would collide are refused before anything is written, with the real bxp-cli: an input whose
 * output takes the combined output's name, two templates of one run writing the same file of a shared data
 * folder, and the partition plan the Ray job starts from. Chains (one template reading another's outputs)
 * still run.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { entryArgs, runBxpCli } from "../_support/processes.ts";

const PASS = {
  input_schema: { $v: "[v]" },
  row_rules: [{ when: "1 = 1", rows: [{}] }],
  output_schema: { v: "$v" },
};

function template(extra: Record<string, unknown>): Record<string, unknown> {
  return { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv", ...PASS, ...extra };
}

async function withDir(files: Record<string, string>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-collide-" });
  try {
    for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const listing = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

Deno.test("an input whose output takes the combined output's name: exit 1 naming both, nothing written", async () => {
  const config = JSON.stringify({ conversion_templates: { t: template({ combined_output: true }) } });
  await withDir({ "c.json": config, "a.csv": "v\n1\n", "1-t-combined.csv": "v\n2\n" }, async (dir) => {
    for (const extra of [[], ["--dry-run"]]) {
      const res = await runBxpCli(["--config", "c.json", ...extra], { cwd: dir });
      assert.equal(res.code, 1, res.stderr);
      assert.match(
        res.stderr,
        /^error: template 't': input '1-t-combined\.csv' would write '1-t-combined\.out\.csv', the combined output's name: .*nothing was written$/m,
      );
      assert.doesNotMatch(res.stderr, /at .*\.ts:\d+/, "no stack trace");
      assert.deepEqual(listing(dir), ["1-t-combined.csv", "a.csv", "c.json"]);
    }
    // Renamed, the same files convert: each keeps its own output beside the combined one.
    await Deno.rename(join(dir, "1-t-combined.csv"), join(dir, "b.csv"));
    const ok = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(await Deno.readTextFile(join(dir, "1-t-combined.out.csv")), "v\n1\n2\n");
  });
});

Deno.test("two templates writing the same file of one data folder: exit 1 naming both, nothing written", async () => {
  const config = JSON.stringify({
    conversion_templates: { first: template({}), second: template({ output_schema: { w: "$v" } }) },
  });
  await withDir({ "c.json": config, "a.csv": "v\n1\n" }, async (dir) => {
    const res = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(res.code, 1, res.stderr);
    assert.match(
      res.stderr,
      /^error: templates 'first' \(the output of 'a\.csv'\) and 'second' \(the output of 'a\.csv'\) would both write '\.\/a\.out\.csv'.*nothing was written$/m,
    );
    assert.deepEqual(listing(dir), ["a.csv", "c.json"], "not even the first template's output");
    // One template alone is fine.
    const alone = await runBxpCli(["--config", "c.json", "--template", "second"], { cwd: dir });
    assert.equal(alone.code, 0, alone.stderr);
    assert.equal(await Deno.readTextFile(join(dir, "a.out.csv")), "w\n1\n");
  });
});

Deno.test("a chain (the second template reads the first's outputs) and its re-run are no collision", async () => {
  const config = JSON.stringify({
    conversion_templates: {
      clean: template({ file_pattern_out: ".clean.csv", combined_output: true }),
      final: template({ file_pattern_in: ".clean.csv", file_pattern_out: ".final.csv" }),
    },
  });
  await withDir({ "c.json": config, "a.csv": "v\n1\n" }, async (dir) => {
    for (let run = 0; run < 2; run++) {
      const res = await runBxpCli(["--config", "c.json"], { cwd: dir });
      assert.equal(res.code, 0, res.stderr);
    }
    assert.equal(await Deno.readTextFile(join(dir, "a.final.csv")), "v\n1\n");
  });
});

Deno.test("the partition plan (the Ray job's first step) refuses the colliding input with exit 1", async () => {
  const config = JSON.stringify({ conversion_templates: { t: template({ combined_output: true }) } });
  await withDir({ "c.json": config }, async (dir) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-cli", ["--partition-plan", "--config", "c.json", "--template", "t"]),
      cwd: dir,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify({ names: ["a.csv", "1-t-combined.csv"] })));
    await writer.close();
    const out = await child.output();
    assert.equal(out.code, 1);
    assert.equal(out.stdout.length, 0, "no plan");
    assert.match(
      new TextDecoder().decode(out.stderr),
      /^error: template 't': input '1-t-combined\.csv' would write '1-t-combined\.out\.csv', the combined output's name/,
    );
  });
});
