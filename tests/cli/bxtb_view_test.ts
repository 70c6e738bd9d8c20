/** The human trace view: a real bxp-cli trace printed frame by frame and summarised. */

import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runBxpCli } from "../_support/processes.ts";

async function view(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const res = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      fileURLToPath(new URL("src/cli/bxtb_view.ts", REPO_ROOT)),
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: res.code, out: d.decode(res.stdout), err: d.decode(res.stderr) };
}

Deno.test("bxtb-view prints every frame of a run and a per-file summary", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-view-" });
  try {
    await Deno.writeTextFile(join(dir, "a.csv"), "K,V\nx,1\ny,2\nz,3\n");
    await Deno.writeTextFile(
      join(dir, "c.json"),
      `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
        input_schema: {$v: "[V] * 1"}, row_rules: [{when: "[K] = 'y'", rows: []}, {when: "1 = 1", rows: [{$action: "'KEEP'"}]}],
        output_schema: {v: "$v"}}}}`,
    );
    const run = await runBxpCli(["--config", "c.json", "--trace-file", "t.bxtb", "--quiet"], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    const full = await view([join(dir, "t.bxtb")]);
    assert.equal(full.code, 0, full.err);
    const lines = full.out.split("\n");
    assert.match(lines[0], /^file_start\s+t \S*a\.csv \(csv, 2 headers: K, V\)$/);
    assert.match(lines[1], /^output_row\s+@4\s+#0 rule=1 KEEP$/);
    assert.match(lines[2], /^filtered_row\s+@8\s+rule_skip$/);
    assert.match(
      full.out,
      /written=2 filtered=1 \(rule_skip=1\) errors=0 \[source=3 warnings=0\]\nexit=0\n$/,
    );
    const summary = await view([join(dir, "t.bxtb"), "--summary"]);
    assert.doesNotMatch(summary.out, /output_row/);
    assert.match(summary.out, /written=2/);
    await Deno.writeTextFile(join(dir, "bad.bxtb"), "not a trace");
    const bad = await view([join(dir, "bad.bxtb")]);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /not a valid BXTB trace/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bxtb-view exits quietly when its reader closes the pipe early (`| head`)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-view-pipe-" });
  try {
    const rows = Array.from({ length: 50_000 }, (_, i) => `k${i},${i}`).join("\n");
    await Deno.writeTextFile(join(dir, "a.csv"), `K,V\n${rows}\n`);
    await Deno.writeTextFile(
      join(dir, "c.json"),
      `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
        input_schema: {$v: "[V]"}, output_schema: {v: "$v"}}}}`,
    );
    const run = await runBxpCli(["--config", "c.json", "--trace-file", "t.bxtb", "--quiet"], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-read",
        fileURLToPath(new URL("src/cli/bxtb_view.ts", REPO_ROOT)),
        join(dir, "t.bxtb"),
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // Read one chunk, then close our end, as `head` does.
    const reader = child.stdout.getReader();
    const first = await reader.read();
    assert.ok(!first.done && first.value.length > 0);
    await reader.cancel();
    const status = await child.status;
    const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
    assert.equal(stderr, "", "no stack trace, no message");
    assert.equal(status.code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
