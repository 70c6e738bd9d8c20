/**
 * The release smoke test (tools/smoke.ts) run for real: against the `deno run` entry points (what `deno task
 * test` can run here, where `deno compile` cannot fetch its runtime), against a folder of programs given with
 * `--bin-dir`, and against a broken folder, where it must fail and name what broke.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CONFORMANCE_DIR, REPO_ROOT } from "../_support/processes.ts";
import { ENTRY_MODULES, type EntryPoint, runArgs } from "../../src/distribution/mod.ts";
import { SMOKE_CASES } from "../../tools/smoke/conformance.ts";

const denoJson = Deno.readTextFileSync(new URL("deno.json", REPO_ROOT));
const conformanceArgs = CONFORMANCE_DIR === null
  ? ["--conformance", join(Deno.cwd(), "no-such-conformance")]
  : ["--conformance", fileURLToPath(CONFORMANCE_DIR)];

async function smoke(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "tools/smoke.ts", ...args],
    cwd: REPO_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** The check lines ("ok   ..." / "FAIL ...") of a smoke run. */
function checkLines(stdout: string): { ok: string[]; failed: string[] } {
  const lines = stdout.split("\n");
  return {
    ok: lines.filter((l) => l.startsWith("ok   ")),
    failed: lines.filter((l) => l.startsWith("FAIL ")),
  };
}

/** The checks every passing run reports, whatever the programs. */
function assertPassed(run: { code: number; stdout: string; stderr: string }) {
  const { ok, failed } = checkLines(run.stdout);
  assert.deepEqual(failed, [], run.stdout + run.stderr);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const expected = [
    /^ok {3}bxp-cli --version exits 0$/,
    /^ok {3}bxp-mcp --version exits 0$/,
    /decoy bxp-cli first on PATH fails loudly/,
    /^ok {3}tools\/list: .*bxp_eval, bxp_simulate, bxp_write_config/,
    /^ok {3}bxp_eval .* = "10"$/,
    /^ok {3}bxp-mcp reported no worker failure, error or warning on stderr$/,
    /^ok {3}bxp_simulate ran the bxp-cli beside bxp-mcp, not the decoy/,
    /^ok {3}bxp_write_config inside the root writes the file verbatim/,
    /^ok {3}bxp_write_config to "\.\.\/outside\.json" \(outside the root\) is refused/,
    /^ok {3}without --allow-write, tools\/list leaves out bxp_write_config$/,
    /^ok {3}without --allow-write, bxp_write_config is refused and writes nothing/,
  ];
  for (const pattern of expected) assert.ok(ok.some((l) => pattern.test(l)), `${pattern}\n${run.stdout}`);
  // Both sessions: an exit of its own, clean stdout, nothing left.
  assert.equal(ok.filter((l) => /exited by itself with status 0 when the client closed/.test(l)).length, 2);
  assert.equal(ok.filter((l) => /no process of the run is left/.test(l)).length, 2);
  if (CONFORMANCE_DIR === null) {
    assert.match(run.stdout, /skip conformance cases: no CASES\.tsv/);
  } else {
    for (const name of SMOKE_CASES) {
      assert.ok(ok.some((l) => l.startsWith(`ok   bxp-cli ${name}: `) && l.includes("identical")), name);
    }
  }
  assert.match(run.stdout, /^ {5}bxp-cli \d+\.\d+\.\d+\n/m);
  assert.match(run.stdout, /^ {5}bxp-mcp \d+\.\d+\.\d+\n/m);
  assert.match(run.stdout, /smoke: all \d+ checks passed\n$/);
}

Deno.test({
  name: "the smoke test passes against the deno run entry points, with the task flags",
  sanitizeResources: false,
  async fn() {
    const run = await smoke("--from-source", ...conformanceArgs);
    assert.match(run.stdout, /^bxp smoke test: deno run entry points of /);
    assertPassed(run);
  },
});

/** A folder of POSIX launchers named like the binaries, each running an entry point from source. */
async function launcherDir(body: Partial<Record<EntryPoint, (run: string) => string>> = {}): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-smoke-bin-" });
  for (const entry of Object.keys(ENTRY_MODULES) as EntryPoint[]) {
    const module = fileURLToPath(new URL(ENTRY_MODULES[entry], REPO_ROOT));
    const run = [Deno.execPath(), ...runArgs(denoJson, entry, module)].map((w) => `'${w}'`).join(" ");
    const script = body[entry]?.(run) ?? `exec ${run} "$@"`;
    await Deno.writeTextFile(join(dir, entry), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  }
  return dir;
}

Deno.test({
  name: "the smoke test runs the programs of a --bin-dir folder",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  async fn() {
    const dir = await launcherDir();
    try {
      const run = await smoke("--bin-dir", dir, ...conformanceArgs);
      assert.ok(run.stdout.startsWith(`bxp smoke test: binaries in ${dir} `), run.stdout);
      assertPassed(run);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "the smoke test fails, naming it, when bxp-cli converts nothing and bxp-mcp leaves a process behind or reports a failed worker",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  async fn() {
    const dir = await launcherDir({
      // --version still works; conversions write nothing and succeed.
      "bxp-cli": (run) => `if [ "$1" = --version ]; then exec ${run} "$@"; fi\nexit 0`,
      // A helper that outlives the server, with the server's arguments (so its --root) in its command line;
      // in the --allow-write session it also keeps the server's stdout open. It gives up after 5 minutes
      // should anything fail to kill it.
      "bxp-mcp": (run) =>
        [
          `leftover='i=0; while [ $i -lt 300 ]; do sleep 1; i=$((i+1)); done'`,
          `case "$*" in`,
          `  --version*) ;;`,
          `  *--allow-write*) sh -c "$leftover" leftover "$@" </dev/null 2>/dev/null & ;;`,
          `  *) sh -c "$leftover" leftover "$@" </dev/null >/dev/null 2>&1 & ;;`,
          `esac`,
          // What the evaluation pool says when its worker module is missing (as in a binary built without it).
          `case "$*" in --version*) ;; *) echo 'bxp-mcp: cannot start an evaluation worker: Module not found' >&2 ;; esac`,
          `exec ${run} "$@"`,
        ].join("\n"),
    });
    let run: Awaited<ReturnType<typeof smoke>> | null = null;
    try {
      run = await smoke("--bin-dir", dir, ...conformanceArgs);
      const { failed } = checkLines(run.stdout);
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.stdout, /smoke: \d+ check\(s\) failed\n$/);
      const left = failed.filter((l) => /^FAIL processes left behind: \d+ sh -c i=0; while/.test(l));
      assert.equal(left.length, 2, `one per session:\n${run.stdout}`);
      assert.ok(
        failed.some((l) => /^FAIL bxp-mcp's stdout\/stderr stayed open after it exited/.test(l)),
        run.stdout,
      );
      assert.equal(failed.filter((l) => /stayed open/.test(l)).length, 1, "only the session holding stdout");
      const workerLines = failed.filter((l) =>
        /^FAIL bxp-mcp reported on stderr: .*cannot start an evaluation worker/.test(l)
      );
      assert.equal(workerLines.length, 2, run.stdout);
      if (CONFORMANCE_DIR !== null) {
        for (const name of SMOKE_CASES) {
          assert.ok(
            failed.some((l) => l.startsWith(`FAIL bxp-cli ${name}: expected one output named`)),
            name,
          );
        }
      }
    } finally {
      for (const m of (run?.stdout ?? "").matchAll(/(?:processes left behind: |; )(\d+) sh -c i=0/g)) {
        try {
          Deno.kill(Number(m[1]), "SIGKILL");
        } catch { /* gone */ }
      }
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("the smoke test refuses bad usage with exit 2 and explains itself with --help", async () => {
  const neither = await smoke();
  assert.equal(neither.code, 2);
  assert.match(
    neither.stderr,
    /^smoke: give exactly one of --bin-dir DIR and --from-source \(see --help\)\n$/,
  );
  const both = await smoke("--from-source", "--bin-dir", "x");
  assert.equal(both.code, 2);
  const missing = await smoke("--bin-dir", "no-such-dir");
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^smoke: no bxp-cli(\.exe)? in .*no-such-dir \(see --help\)\n$/);
  const unknown = await smoke("--frobnicate");
  assert.equal(unknown.code, 2);
  assert.ok(!unknown.stderr.includes("    at "), "no stack trace");
  const help = await smoke("--help");
  assert.equal(help.code, 0);
  for (const word of ["--bin-dir", "--from-source", "--conformance", "decoy", "--allow-write"]) {
    assert.ok(help.stdout.includes(word), word);
  }
});
