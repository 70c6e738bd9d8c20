/**
 * The official v2 TypeScript client (`@modelcontextprotocol/client`) drives the real `bxp-mcp --http`
 * (with its generated bearer token) in its modern 2026-07-28 mode: pinned (sessionless requests with the
 * metadata headers, every result validated against the 2026-07-28 schemas) and `auto` (its dual-era
 * probe must stay modern rather than fall back to `initialize` and a session); and in its default
 * legacy mode, which must still get a session.
 */
import assert from "node:assert/strict";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { connectV2Client, MODERN, type TextResult, TOOL_ORDER } from "../_support/v2_client.ts";
import { HttpServerProcess } from "./_support.ts";

/** Connect a v2 client in `mode`, recording the session ids the server hands it. */
async function connect(server: HttpServerProcess, mode: "auto" | "legacy" | { pin: string }) {
  const sessions: string[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.auth },
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      const session = response.headers.get("mcp-session-id");
      if (session !== null) sessions.push(session);
      return response;
    },
  });
  const { client, errors } = await connectV2Client(transport, "bxp-mcp-v2-http-test", mode);
  return { client, errors, sessions };
}

for (const mode of [{ pin: MODERN }, "auto"] as const) {
  Deno.test({
    name: `the v2 client over HTTP in ${
      typeof mode === "string" ? mode : "pinned " + MODERN
    } mode lists and calls tools without a session`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const server = await HttpServerProcess.start();
      const { client, errors, sessions } = await connect(server, mode);
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
        assert.equal(client.getServerVersion()?.name, "bxp-mcp");

        const listed = await client.listTools();
        assert.deepEqual(listed.tools.map((t) => t.name), TOOL_ORDER);
        assert.equal(listed.cacheScope, "public");

        // Inline and on an evaluation worker; the client checks structuredContent against outputSchema.
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
        // A tool failure is a result, not an error.
        const failed = await client.callTool({ name: "bxp_eval", arguments: { exprr: "1" } }) as TextResult;
        assert.equal(failed.isError, true);

        const resources = await client.listResources();
        assert.deepEqual(resources.resources, []);
        await assert.rejects(
          client.readResource({ uri: "bxp-sim://run-404/out.csv" }),
          (error: { code?: unknown }) => error.code === -32602,
        );
        // Modern requests never open a session (the spec's sessionless HTTP).
        assert.deepEqual(sessions, []);
        assert.deepEqual(errors, []);
      } finally {
        await client.close();
        await server.dispose();
      }
    },
  });
}

Deno.test({
  name: "the v2 client over HTTP in its default legacy mode still opens a session",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await HttpServerProcess.start();
    const { client, errors, sessions } = await connect(server, "legacy");
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
      const inline = await client.callTool({ name: "bxp_eval", arguments: { expr: "1 + 2" } }) as TextResult;
      assert.deepEqual(inline.structuredContent, { ok: true, value: "3" });
      assert.equal(sessions.length > 0, true);
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
      await server.dispose();
    }
  },
});
