import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../_support/processes.ts";

const repo = fileURLToPath(REPO_ROOT);

/** Runs the A/B tool through its task, `deno task bench:ab`. */
async function blockAb(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "bench:ab", ...args],
    cwd: repo,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("bench:ab: one checkout against itself writes the same bytes and times both sides", async () => {
  const r = await blockAb(["--old", repo, "--rows", "3000", "--rounds", "2"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\d+ blocks of g1-r3000-c16-w20-s42 \(3expr\), 2 rounds, same output bytes$/m);
  assert.match(r.stdout, /^old .*: \d+\.\d\d ms\/MB$/m);
  assert.match(r.stdout, /^new\/old: median \d+\.\d{3}, rounds \d+\.\d{3} \d+\.\d{3}$/m);
  const quoted = await blockAb([
    "--old",
    repo,
    "--rows",
    "3000",
    "--rounds",
    "1",
    "--quoted",
    "--mode",
    "json",
  ]);
  assert.equal(quoted.code, 0, quoted.stderr);
  assert.match(
    quoted.stdout,
    /^\d+ blocks of g1-r3000-c16-w20-s42-q \(json\), 1 rounds, same output bytes$/m,
  );
});

Deno.test("bench:ab: without --old, or with a mode it does not know, it prints its usage", async () => {
  for (const args of [[], ["--old", repo, "--mode", "nope"], ["--old", repo, "--rounds", "0"]]) {
    const r = await blockAb(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, /^usage: deno task bench:ab --old <checkout>/);
  }
});
