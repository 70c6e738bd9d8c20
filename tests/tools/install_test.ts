/** The pure parts of tools/install.ts; the real install is run by tests/docs/install_test.ts. */
import assert from "node:assert/strict";
import { commandName, installArgs, installRoot } from "../../tools/install.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("installRoot: --root from the user's folder, else DENO_INSTALL_ROOT, else ~/.deno; none is an error", () => {
  assert.equal(installRoot("inst", "/w", env({}), "linux"), "/w/inst");
  assert.equal(installRoot("/abs", "/w", env({ DENO_INSTALL_ROOT: "/d" }), "linux"), "/abs");
  assert.equal(installRoot(undefined, "/w", env({ DENO_INSTALL_ROOT: "/d", HOME: "/h" }), "linux"), "/d");
  assert.equal(installRoot(undefined, "/w", env({ DENO_INSTALL_ROOT: "", HOME: "/h" }), "linux"), "/h/.deno");
  assert.throws(() => installRoot(undefined, "/w", env({}), "linux"), /pass --root DIR/);
  assert.throws(() => installRoot(undefined, "/w", env({ HOME: "relative" }), "linux"), /pass --root DIR/);
  assert.throws(() => installRoot("", "/w", env({ HOME: "/h" }), "linux"), /--root needs a folder/);
});

Deno.test("commandName: the suffix is appended only when it is file-name safe", () => {
  assert.equal(commandName("bxp-cli", ""), "bxp-cli");
  assert.equal(commandName("bxp-mcp", "-dev.2_x"), "bxp-mcp-dev.2_x");
  for (const bad of ["/x", "..\\x", "a b", "x;rm", "é", "x".repeat(33)]) {
    assert.throws(() => commandName("bxp-cli", bad), /may hold only letters/, bad);
  }
});

Deno.test("installArgs: root, name, the checkout's deno.json, the task flags, the absolute module", () => {
  const denoJson =
    '{"tasks":{"bxp-mcp":"deno run --no-prompt --unstable-worker-options --allow-read main.ts"}}';
  assert.deepEqual(installArgs(denoJson, "bxp-mcp", { repo: "/r", root: "/i", suffix: "-x", force: true }), [
    "install",
    "-g",
    "--force",
    "--root",
    "/i",
    "--name",
    "bxp-mcp-x",
    "--config",
    "/r/deno.json",
    "--no-prompt",
    "--unstable-worker-options",
    "--allow-read",
    "/r/main.ts",
  ]);
  assert.throws(
    () => installArgs("{}", "bxp-cli", { repo: "/r", root: "/i", suffix: "", force: false }),
    /no 'bxp-cli' task/,
  );
});
