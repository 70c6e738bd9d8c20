/**
 * The official v2 TypeScript client (`@modelcontextprotocol/client`) drives the real bxp-mcp process over
 * stdio in its modern 2026-07-28 mode: pinned (it must find the revision in `server/discover`, and
 * validates every result against the 2026-07-28 schemas), and `auto` (its dual-era probe must pick the
 * modern era rather than fall back to `initialize`).
 */
import assert from "node:assert/strict";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { entryArgs } from "../_support/processes.ts";
import { connectV2Client, MODERN, type TextResult, TOOL_ORDER } from "./_support/v2_client.ts";

function connect(mode: "auto" | { pin: string }, tmpDir: string) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: entryArgs("bxp-mcp"),
    env: { TMPDIR: tmpDir, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stderr: "pipe",
  });
  return connectV2Client(transport, "bxp-mcp-v2-test", mode);
}

for (const mode of [{ pin: MODERN }, "auto"] as const) {
  Deno.test({
    name: `the v2 client in ${
      typeof mode === "string" ? mode : "pinned " + MODERN
    } mode lists and calls tools`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-v2-" });
      const { client, errors } = await connect(mode, tmpDir);
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
        assert.equal(client.getServerVersion()?.name, "bxp-mcp");

        const listed = await client.listTools();
        assert.deepEqual(listed.tools.map((t) => t.name), TOOL_ORDER);
        assert.equal(listed.cacheScope, "public");

        // On the session thread, and on an evaluation worker (regular expressions are never inline); the
        // client checks structuredContent against each tool's outputSchema.
        const inline = await client.callTool({
          name: "bxp_eval",
          arguments: { expr: "1 + 2" },
        }) as TextResult;
        assert.deepEqual(inline.structuredContent, { ok: true, value: "3" });
        const pooled = await client.callTool({
          name: "bxp_eval",
          arguments: { expr: "REGEX_MATCH('ab', 'a.')" },
        }) as TextResult;
        assert.equal(pooled.isError, false, pooled.content[0]?.text);
        assert.equal(pooled.structuredContent?.ok, true);
        const docs = await client.callTool({ name: "bxp_docs", arguments: { section: "functions" } });
        assert.equal((docs as TextResult).isError, false);

        const resources = await client.listResources();
        assert.deepEqual(resources.resources, []);
        await assert.rejects(
          client.readResource({ uri: "bxp-sim://run-404/out.csv" }),
          (error: { code?: unknown }) => error.code === -32602,
        );
        assert.deepEqual(errors, []);
      } finally {
        await client.close();
        await Deno.remove(tmpDir, { recursive: true });
      }
    },
  });
}
