/**
 * The official MCP TypeScript SDK client over `StreamableHTTPClientTransport` drives the real
 * `bxp-mcp --http`: every tool end to end, progress during bxp_simulate (on an event stream),
 * cancellation killing the session's bxp-cli child, and a session's end (DELETE) killing its children
 * and removing its workspaces while another session goes on.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CONFORMANCE_DIR } from "../../_support/processes.ts";
import { processAlive, processGone } from "../_support/server_process.ts";
import { BXP_TOOLS } from "../../../src/mcp/tools/catalog.ts";
import { cliPids, HttpServerProcess, listTree, SLOW_CONFIG, SLOW_CSV } from "./_support.ts";

interface TextResult {
  content: { type: string; text: string; uri?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

async function connect(server: HttpServerProcess) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.auth },
  });
  const client = new Client({ name: "bxp-mcp-http-test", version: "1.0.0" });
  const errors: unknown[] = [];
  client.onerror = (error: unknown) => errors.push(error);
  await client.connect(transport);
  return { client, transport, errors };
}

const opts = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name: "over HTTP the SDK client calls every catalog tool, reads the simulate resources and gets progress",
  ignore: CONFORMANCE_DIR === null,
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    const { client, transport, errors } = await connect(server);
    try {
      assert.match(transport.sessionId ?? "", /^[\x21-\x7e]{16,}$/, "a session id is issued");
      assert.equal(client.getServerVersion()?.name, "bxp-mcp");
      const { tools } = await client.listTools() as { tools: { name: string }[] };
      assert.deepEqual(
        tools.map((t) => t.name),
        BXP_TOOLS.filter((t) => !t.requiresWrite).map((t) => t.name),
      );

      const dataset = new URL("datasets/trading212_to_wealthfolio/", CONFORMANCE_DIR!);
      const config = await Deno.readTextFile(new URL("sample.json", dataset));
      const csv = await Deno.readTextFile(new URL("sample.csv", dataset));
      const expected = await Deno.readTextFile(new URL("sample.expected", dataset));
      const template = "trading212_to_wealthfolio";
      const calls: Record<string, Record<string, unknown>> = {
        bxp_validate: { config },
        bxp_validate_expr: { expr: "SPLIT_PART('a/b', '/', 0)" },
        bxp_eval: { expr: "[Price] * [Qty]", headers: ["Price", "Qty"], fields: ["2.5", "4"] },
        bxp_eval_batch: { headers: ["P"], fields: ["7"], exprs: ["[P] + 1", "NOPE()"] },
        bxp_eval_trace: { expr: "UPPER(LEFT('abc', 2))" },
        bxp_docs: { section: "functions" },
        bxp_list_templates: { config },
        bxp_fetch_template: { config, id: template },
        bxp_simulate: { config, template, csv, workspace: "http run" },
      };
      const results = new Map<string, TextResult>();
      const progress: number[] = [];
      for (const { name } of tools) {
        // Tools beyond bxp's nine get arguments a model would plausibly send; a refusal is a tool answer too.
        const args = calls[name] ?? { config, csv };
        const result = await client.callTool(
          { name, arguments: args },
          undefined,
          name === "bxp_simulate"
            ? { onprogress: (p: { progress: number }) => progress.push(p.progress) }
            : {},
        ) as TextResult;
        assert.ok(Array.isArray(result.content) && result.content.length > 0, name);
        if (name in calls) {
          assert.equal(result.isError, false, `${name}: ${result.content[0].text.slice(0, 300)}`);
        }
        results.set(name, result);
      }
      assert.deepEqual(results.get("bxp_eval")!.structuredContent, { ok: true, value: "10" });
      assert.equal(results.get("bxp_validate_expr")!.structuredContent!.error, "SplitPartBadIndex");
      assert.equal(results.get("bxp_simulate")!.structuredContent!.status, "ok");
      assert.ok(progress.length > 0, "progress notifications arrived during bxp_simulate");
      assert.deepEqual(progress, [...progress].sort((a, b) => a - b), "progress only grows");

      const link = results.get("bxp_simulate")!.content.find((c) => c.mimeType === "text/csv");
      assert.ok(link?.uri, "bxp_simulate links its output");
      let full = "";
      for (let uri: string | null = link.uri!; uri !== null;) {
        const page = await client.readResource({ uri }) as { contents: { text: string; mimeType: string }[] };
        full += page.contents[0].text;
        const info = page.contents.find((c) => c.mimeType === "application/json");
        uri = info === undefined ? null : JSON.parse(info.text).next;
      }
      assert.equal(full, expected, "the output read over HTTP is bxp's golden output");
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
      await server.dispose();
    }
  },
});

Deno.test({
  name: "over HTTP a cancelled bxp_simulate kills its bxp-cli and the session goes on",
  ignore: Deno.build.os === "windows",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    const { client } = await connect(server);
    try {
      const abort = new AbortController();
      const call = client.callTool(
        { name: "bxp_simulate", arguments: { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV } },
        undefined,
        { signal: abort.signal, timeout: 120_000 },
      );
      call.catch(() => {});
      await server.waitUntil(() => cliPids(server.stderr).length === 1, "bxp-cli to start");
      const [pid] = cliPids(server.stderr);
      assert.ok(await processAlive(pid), "bxp-cli runs");
      abort.abort("test cancels"); // the SDK sends notifications/cancelled
      await assert.rejects(call);
      assert.ok(await processGone(pid, 15_000), `bxp-cli (pid ${pid}) is gone after the cancel`);
      const after = await client.callTool({ name: "bxp_eval", arguments: { expr: "1 + 1" } }) as TextResult;
      assert.deepEqual(after.structuredContent, { ok: true, value: "2" });
    } finally {
      await client.close();
      await server.dispose();
    }
  },
});

Deno.test({
  name: "over HTTP ending a session kills its children and removes its workspaces; other sessions go on",
  ignore: Deno.build.os === "windows",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    const first = await connect(server);
    const second = await connect(server);
    try {
      assert.notEqual(first.transport.sessionId, second.transport.sessionId);
      const running = first.client.callTool(
        { name: "bxp_simulate", arguments: { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV } },
        undefined,
        { timeout: 120_000 },
      );
      running.catch(() => {});
      await server.waitUntil(() => cliPids(server.stderr).length === 1, "bxp-cli to start");
      const [pid] = cliPids(server.stderr);
      const scratch = `${server.tmpDir}/bxp-mcp-sim`;
      assert.ok((await listTree(scratch)).length > 0, "the running simulation has a workspace");

      await first.transport.terminateSession(); // DELETE with the session id
      assert.ok(await processGone(pid, 15_000), `bxp-cli (pid ${pid}) is gone after the session ended`);
      await server.waitUntil(
        async () => (await listTree(scratch)).length === 0,
        "the workspaces to be removed",
      );
      const gone = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": first.transport.sessionId!,
          ...server.auth,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
      });
      await gone.body?.cancel();
      assert.equal(gone.status, 404, "the ended session is unknown");

      const other = await second.client.callTool({
        name: "bxp_eval",
        arguments: { expr: "2 * 3" },
      }) as TextResult;
      assert.deepEqual(other.structuredContent, { ok: true, value: "6" });
    } finally {
      await first.client.close().catch(() => {});
      await second.client.close();
      await server.dispose();
    }
  },
});
