import assert from "node:assert/strict";
import { join } from "node:path";
import {
  checkScratchRoot,
  createWorkspace,
  inputNameProblem,
  isPlainFilePattern,
  MAX_WORKSPACE_ID_BYTES,
  sanitizeWorkspaceId,
  stageFiles,
  StagingError,
  tempBase,
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

Deno.test("inputNameProblem: a plain name ending with file_pattern_in", () => {
  assert.equal(inputNameProblem("statement_2024-01-01_2024-12-31.csv", ".csv"), null);
  assert.equal(inputNameProblem(".csv", ".csv"), null);
  for (const bad of ["", ".", "../a.csv", "a/b.csv", "a\\b.csv", "c:a.csv", "a\u0000.csv", "a..b.csv"]) {
    assert.match(inputNameProblem(bad, ".csv") ?? "", /plain file name/, JSON.stringify(bad));
  }
  assert.match(inputNameProblem("x".repeat(252) + ".csv", ".csv") ?? "", /plain file name/, "over 255 bytes");
  assert.match(
    inputNameProblem("a.txt", ".csv") ?? "",
    /must end with the template's file_pattern_in ".csv"/,
  );
});

Deno.test("createWorkspace: a fresh 0700 folder per call under a checked scratch folder; files staged exclusively", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const simRoot = join(tmp, "bxp-mcp-sim");
    const uid = await checkScratchRoot(simRoot);
    assert.equal((await Deno.stat(simRoot)).mode! & 0o777, 0o700);
    const a = await createWorkspace(simRoot, uid, "my run", "in.csv");
    const b = await createWorkspace(simRoot, uid, "my run", "in.csv");
    assert.notEqual(a.workspace, b.workspace);
    assert.match(a.id, /^my_run-/);
    assert.equal(a.workspace, join(simRoot, a.id));
    assert.equal((await Deno.stat(a.workspace)).mode! & 0o777, 0o700);
    await stageFiles(a, "{ a: 1 }", new TextEncoder().encode("h\n1\n"));
    assert.equal(await Deno.readTextFile(a.configPath), "{ a: 1 }");
    assert.equal(await Deno.readTextFile(join(a.dataDir, "in.csv")), "h\n1\n");
    await assert.rejects(
      stageFiles(a, "{}", new Uint8Array()),
      (e: unknown) => e instanceof StagingError && e.detail === "config.json",
      "never written over",
    );
    assert.deepEqual([...Deno.readDirSync(b.dataDir)], []);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("checkScratchRoot refuses a symlink, a file, and a group/other-writable folder, naming it symbolically", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const target = join(tmp, "target");
    await Deno.mkdir(target);
    await Deno.symlink(target, join(tmp, "link"));
    await Deno.writeTextFile(join(tmp, "file"), "");
    await Deno.mkdir(join(tmp, "open"));
    await Deno.chmod(join(tmp, "open"), 0o775);
    for (
      const [name, why] of [["link", /symlink/], ["file", /not a folder/], ["open", /mode 775/]] as const
    ) {
      await assert.rejects(
        checkScratchRoot(join(tmp, name)),
        (e: unknown) =>
          e instanceof StagingError && e.detail === "$TMPDIR/bxp-mcp-sim" && why.test(e.message),
        name,
      );
    }
    assert.deepEqual([...Deno.readDirSync(target)], []);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
