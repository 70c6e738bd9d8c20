/**
 * `deno task compile` cannot run here (no denort), so its command lines are checked instead: `--dry-run`
 * prints, for all six targets, one `deno compile` per program with exactly the flags of its deno.json task
 * (what the tests run with), never prompting, embedding the worker modules, into dist/<target>/.
 */
import assert from "node:assert/strict";
import {
  COMPILE_TARGETS,
  compileArgs,
  ENTRY_INCLUDES,
  ENTRY_MODULES,
  entryPointFlags,
} from "../../src/distribution/entry_points.ts";
import { REPO_ROOT } from "../_support/processes.ts";

const denoJson = Deno.readTextFileSync(new URL("deno.json", REPO_ROOT));

Deno.test("compile --dry-run prints both programs for the six targets with the task flags", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      "tools/compile.ts",
      "--dry-run",
    ],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  assert.equal(lines.length, 12);
  assert.equal(COMPILE_TARGETS.length, 6);
  for (const target of COMPILE_TARGETS) {
    for (const entry of ["bxp-cli", "bxp-mcp"] as const) {
      const expected = `deno ${compileArgs(denoJson, entry, target).join(" ")}`;
      assert.ok(lines.includes(expected), expected);
    }
  }
});

Deno.test("the compile flags are the task flags: never prompt, bxp-mcp can narrow its worker, workers embedded", () => {
  for (const entry of ["bxp-cli", "bxp-mcp"] as const) {
    const args = compileArgs(denoJson, entry, "aarch64-apple-darwin");
    const flags = entryPointFlags(denoJson, entry);
    assert.deepEqual(args.slice(1, 1 + flags.length), flags);
    assert.ok(flags.includes("--no-prompt"), entry);
    assert.ok(!flags.includes("--allow-all") && !flags.includes("-A"), entry);
    assert.ok(!flags.some((f) => f.startsWith("--allow-net") || f.startsWith("--allow-ffi")), entry);
    for (const module of ENTRY_INCLUDES[entry]) {
      assert.ok(args.join(" ").includes(`--include ${module}`), module);
      Deno.statSync(new URL(module, REPO_ROOT));
    }
    assert.deepEqual(args.slice(-5), [
      "--target",
      "aarch64-apple-darwin",
      "--output",
      `dist/aarch64-apple-darwin/${entry}`,
      ENTRY_MODULES[entry],
    ]);
  }
  const mcp = entryPointFlags(denoJson, "bxp-mcp");
  assert.ok(mcp.includes("--unstable-worker-options"), "the session worker's narrowed permissions need it");
  assert.ok(ENTRY_INCLUDES["bxp-mcp"].includes("src/mcp/server_worker.ts"));
  assert.ok(!entryPointFlags(denoJson, "bxp-cli").includes("--allow-run"), "bxp-cli spawns nothing");
});
