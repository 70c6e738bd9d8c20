/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0, through npx) against the real
 * `bxp-mcp --http`, the way the README shows it: list the tools, call one, and see a tool failure as
 * its exit code 5. Skipped, saying why, where npx or the package is not available.
 */
import assert from "node:assert/strict";
import { HttpServerProcess } from "./_support.ts";

const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

/** Run the Inspector with `args` outside the repository; npm's engine warnings go to stderr. */
async function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cwd = await Deno.makeTempDir({ prefix: "bxp-inspector-" });
  try {
    const { code, stdout, stderr } = await new Deno.Command("npx", {
      args: ["--yes", INSPECTOR, ...args],
      cwd,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
  } finally {
    await Deno.remove(cwd, { recursive: true }).catch(() => {});
  }
}

const probe = await inspector(["--help"]).catch((error) => ({ code: -1, stdout: "", stderr: String(error) }));
const unavailable = probe.code === 0 ? null : probe.stderr.trim().split("\n").slice(-2).join(" | ");
if (unavailable !== null) {
  console.warn(`Inspector CLI test skipped: ${INSPECTOR} cannot run here: ${unavailable}`);
}

Deno.test({
  name: "the MCP Inspector CLI lists and calls bxp-mcp's tools over --transport http",
  ignore: unavailable !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const base = [
        "--cli",
        server.url,
        "--transport",
        "http",
        "--header",
        `Authorization: Bearer ${server.token}`,
      ];
      const listed = await inspector([...base, "--method", "tools/list"]);
      assert.equal(listed.code, 0, listed.stderr);
      const names = (JSON.parse(listed.stdout).tools as { name: string }[]).map((t) => t.name);
      assert.ok(names.includes("bxp_simulate") && names.includes("bxp_eval"), names.join(", "));

      const called = await inspector([
        ...base,
        "--method",
        "tools/call",
        "--tool-name",
        "bxp_eval",
        "--tool-args-json",
        JSON.stringify({ expr: "[a] * 2", headers: ["a"], fields: ["21"] }),
      ]);
      assert.equal(called.code, 0, called.stderr);
      assert.deepEqual(JSON.parse(called.stdout).structuredContent, { ok: true, value: "42" });

      const failed = await inspector([...base, "--method", "tools/call", "--tool-name", "bxp_eval"]);
      assert.equal(failed.code, 5, "a tool failure is the Inspector's exit code 5");
    } finally {
      await server.dispose();
    }
  },
});
