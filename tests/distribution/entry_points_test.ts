/**
 * The entry points' flags come from one place, deno.json's tasks: the `deno run` vector of the smoke test
 * from source is the one the tests spawn, and the flags of a compiled binary are the same list.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  binaryName,
  compileArgs,
  ENTRY_MODULES,
  type EntryPoint,
  entryPointFlags,
  runArgs,
} from "../../src/distribution/mod.ts";
import { entryArgs, REPO_ROOT } from "../_support/processes.ts";
import { fromBinDir, fromSource } from "../../tools/smoke/programs.ts";

const denoJson = Deno.readTextFileSync(new URL("deno.json", REPO_ROOT));
const ENTRIES = Object.keys(ENTRY_MODULES) as EntryPoint[];

Deno.test("runArgs: the task's flags, then the module given", () => {
  const text = '{"tasks":{"bxp-cli":"deno run --no-prompt --allow-read src/cli/main.ts"}}';
  assert.deepEqual(runArgs(text, "bxp-cli", "/r/src/cli/main.ts"), [
    "run",
    "--no-prompt",
    "--allow-read",
    "/r/src/cli/main.ts",
  ]);
  assert.throws(() => runArgs(text, "bxp-mcp", "/r/main.ts"), /deno\.json has no 'bxp-mcp' task/);
});

Deno.test("the smoke test from source runs each entry point exactly as the tests and the binaries do", async () => {
  const set = await fromSource(REPO_ROOT, Deno.execPath());
  assert.equal(set.binDir, null);
  for (const entry of ENTRIES) {
    const program = set.programs[entry];
    assert.equal(program.command, Deno.execPath());
    assert.deepEqual(program.prefixArgs, entryArgs(entry));
    assert.equal(program.prefixArgs.at(-1), fileURLToPath(new URL(ENTRY_MODULES[entry], REPO_ROOT)));
    const flags = entryPointFlags(denoJson, entry);
    assert.deepEqual(
      compileArgs(denoJson, entry, "x86_64-unknown-linux-gnu").slice(1, 1 + flags.length),
      flags,
    );
  }
});

Deno.test("fromBinDir finds both binaries by their platform names and names a missing one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-bin-" });
  try {
    await Deno.writeTextFile(join(dir, binaryName("bxp-cli", "windows")), "");
    await assert.rejects(() => fromBinDir(dir, "windows"), /^Error: no bxp-mcp\.exe in /);
    await Deno.writeTextFile(join(dir, binaryName("bxp-mcp", "windows")), "");
    const set = await fromBinDir(dir, "windows");
    assert.equal(set.binDir, dir);
    assert.equal(set.programs["bxp-mcp"].command, join(dir, "bxp-mcp.exe"));
    assert.deepEqual(set.programs["bxp-cli"].prefixArgs, []);
    await assert.rejects(() => fromBinDir(dir, "linux"), /no bxp-cli in /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
