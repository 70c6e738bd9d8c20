import assert from "node:assert/strict";
import { join } from "node:path";
import {
  isPlainFilePattern,
  MAX_WORKSPACE_ID_BYTES,
  sanitizeWorkspaceId,
  stageWorkspace,
  StagingError,
  tempBase,
  workspacePaths,
} from "../../../src/mcp/simulate/workspace.ts";

Deno.test("sanitizeWorkspaceId keeps [A-Za-z0-9_-], maps other bytes to _, caps at 64 bytes, never empty", () => {
  assert.equal(sanitizeWorkspaceId("abc/DEF-9"), "abc_DEF-9");
  assert.equal(sanitizeWorkspaceId("a b.c"), "a_b_c");
  assert.equal(sanitizeWorkspaceId(""), "_");
  assert.equal(sanitizeWorkspaceId("../.."), "_____");
  assert.equal(sanitizeWorkspaceId("é"), "__", "one character, two UTF-8 bytes");
  assert.equal(sanitizeWorkspaceId("x".repeat(100)).length, MAX_WORKSPACE_ID_BYTES);
  assert.equal(sanitizeWorkspaceId("x".repeat(63) + "é"), "x".repeat(63) + "_", "the cap cuts bytes");
});

Deno.test("tempBase takes the first non-empty of TMPDIR, TMP, TEMP, else /tmp", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(tempBase(env({ TMPDIR: "/a", TMP: "/b", TEMP: "/c" })), "/a");
  assert.equal(tempBase(env({ TMPDIR: "", TMP: "/b", TEMP: "/c" })), "/b");
  assert.equal(tempBase(env({ TEMP: "/c" })), "/c");
  assert.equal(tempBase(env({})), "/tmp");
});

Deno.test("isPlainFilePattern refuses separators and '..'", () => {
  for (const ok of [".csv", "_cash.csv", "report.csv", ".CSV"]) assert.ok(isPlainFilePattern(ok), ok);
  for (const bad of ["/x.csv", "a\\b.csv", "..csv", "x..csv", "../x"]) {
    assert.ok(!isPlainFilePattern(bad), bad);
  }
});

Deno.test("workspacePaths lays the workspace out under <base>/bxp-mcp-sim/<sanitized id>", () => {
  const p = workspacePaths("/t", "my id", "_cash.csv");
  assert.deepEqual(p, {
    simRoot: "/t/bxp-mcp-sim",
    workspace: "/t/bxp-mcp-sim/my_id",
    dataDir: "/t/bxp-mcp-sim/my_id/data",
    configPath: "/t/bxp-mcp-sim/my_id/config.json",
    tracePath: "/t/bxp-mcp-sim/my_id/trace.bxtb",
    inputName: "input_cash.csv",
    inputPath: "/t/bxp-mcp-sim/my_id/data/input_cash.csv",
  });
});

Deno.test("stageWorkspace wipes the previous run and writes config and input verbatim", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const paths = workspacePaths(tmp, "w", ".csv");
    await Deno.mkdir(paths.dataDir, { recursive: true });
    await Deno.writeTextFile(join(paths.dataDir, "old.out"), "x");
    await Deno.writeTextFile(paths.tracePath, "x");
    await stageWorkspace(paths, "{ a: 1 }", new TextEncoder().encode("h\n1\n"));
    assert.equal(await Deno.readTextFile(paths.configPath), "{ a: 1 }");
    assert.equal(await Deno.readTextFile(paths.inputPath), "h\n1\n");
    assert.deepEqual([...Deno.readDirSync(paths.dataDir)].map((e) => e.name), ["input.csv"]);
    assert.deepEqual([...Deno.readDirSync(paths.workspace)].map((e) => e.name).sort(), [
      "config.json",
      "data",
    ]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("stageWorkspace fails closed on a symlinked workspace", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const target = join(tmp, "target");
    await Deno.mkdir(target);
    const paths = workspacePaths(join(tmp, "base"), "w", ".csv");
    await Deno.mkdir(paths.simRoot, { recursive: true });
    await Deno.symlink(target, paths.workspace);
    await assert.rejects(
      stageWorkspace(paths, "{}", new Uint8Array()),
      (e: unknown) => e instanceof StagingError && e.detail === paths.workspace && /symlink/.test(e.message),
    );
    assert.ok((await Deno.lstat(paths.workspace)).isSymlink, "the link is left alone");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
