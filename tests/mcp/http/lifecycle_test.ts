/**
 * Sessions of the real `bxp-mcp --http` over their life: the fixed `--root` for every session (a
 * client's MCP roots are never asked for, never used), resources private to their session, the
 * per-session cap on running requests, idle expiry, and SIGTERM ending everything in order (children
 * killed, workspaces removed, exit 0).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { processGone } from "../_support/server_process.ts";
import {
  cliPids,
  HttpServerProcess,
  listTree,
  openSession,
  POST_HEADERS,
  SLOW_CONFIG,
  SLOW_CSV,
} from "./_support.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };

const UPPER_CONFIG = `{
  conversion_templates: {
    up: {
      data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out",
      input_schema: { $n: "UPPER([name])" },
      row_rules: [{ when: "1 = 1", rows: [{ $k: "'x'" }] }],
      output_schema: { NAME: "$n" },
    },
  },
}`;

interface TextResult {
  content: { type: string; text: string; uri?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** An SDK client of `server`; with `roots`, it offers them as its MCP roots and counts the asks. */
async function connect(server: HttpServerProcess, roots: string[] | null = null, asked = { count: 0 }) {
  const client = new Client(
    { name: "bxp-mcp-http-lifecycle", version: "1.0.0" },
    roots === null ? {} : { capabilities: { roots: { listChanged: true } } },
  );
  if (roots !== null) {
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked.count++;
      return { roots: roots.map((uri) => ({ uri })) };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.auth } }),
  );
  return client;
}

async function project(files: Record<string, string>): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-mcp-http-project-" }));
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
  return dir;
}

Deno.test({
  name: "over HTTP every session uses --root: a client answering file:///etc reads nothing there",
  ...opts,
  async fn() {
    const root = await project({ "c.json5": UPPER_CONFIG, "in.csv": "name\nada\n" });
    const elsewhere = await project({ "c.json5": UPPER_CONFIG, "in.csv": "name\ngrace\n" });
    const server = await HttpServerProcess.start([], "127.0.0.1", { root });
    const asked = { count: 0 };
    const first = await connect(server, ["file:///etc"], asked);
    const second = await connect(server, [pathToFileURL(elsewhere).href], asked);
    try {
      for (const client of [first, second]) {
        const peek = await client.callTool({
          name: "bxp_peek_csv",
          arguments: { path: "passwd" },
        }) as TextResult;
        assert.equal(peek.isError, true, "no passwd under --root");
        assert.doesNotMatch(JSON.stringify(peek), /root:x:0:0/, "nothing of /etc/passwd comes back");
      }
      await first.sendRootsListChanged();
      const args = { path: "c.json5", template: "up", csv_path: "in.csv" };
      const one = await first.callTool({ name: "bxp_simulate", arguments: args }) as TextResult;
      const two = await second.callTool({ name: "bxp_simulate", arguments: args }) as TextResult;
      assert.equal(one.isError, false, one.content[0].text);
      const csvOf = (r: TextResult) => (r.structuredContent!.outputs as { csv: string }[])[0].csv;
      assert.equal(csvOf(one), "NAME\nADA\n", "the first session read --root");
      assert.equal(csvOf(two), "NAME\nADA\n", "the second session read --root, not its client's root");
      assert.equal(asked.count, 0, "the server never asked a client for its roots");

      const link = one.content.find((c) => c.mimeType === "text/csv")!;
      const mine = await first.readResource({ uri: link.uri! }) as { contents: { text: string }[] };
      assert.equal(mine.contents[0].text, "NAME\nADA\n");
      await assert.rejects(() => second.readResource({ uri: link.uri! }), /-32002|not found/i);
      const listed = await second.listResources() as { resources: { uri: string }[] };
      assert.ok(!listed.resources.some((r) => r.uri === link.uri), "another session's runs are not listed");
    } finally {
      await first.close();
      await second.close();
      await server.dispose();
      await Deno.remove(root, { recursive: true });
      await Deno.remove(elsewhere, { recursive: true });
    }
  },
});

Deno.test({
  name: "requests running in one session are capped (429, Retry-After) without touching other sessions",
  ignore: Deno.build.os === "windows",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const session = await openSession(server.url, server.auth);
      const headers = { ...POST_HEADERS, ...server.auth, "mcp-session-id": session };
      const slow = (id: number) =>
        fetch(server.url, {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: {
              name: "bxp_simulate",
              arguments: { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV },
            },
          }),
        });
      // Simulations run two at a time; the rest wait in the queue and still count as running requests.
      // Each takes long (100k slow rows), so the one answer that comes at once is the refusal.
      const requests = Array.from({ length: 17 }, (_, i) => slow(i + 1));
      const refused = await Promise.race(requests);
      assert.equal(refused.status, 429, await refused.text());
      assert.equal(refused.headers.get("retry-after"), "1");
      const other = await openSession(server.url, server.auth);
      const ping = await fetch(server.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...server.auth, "mcp-session-id": other },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      assert.equal(ping.status, 200, "another session is served");
      await ping.body?.cancel();
      const ended = await fetch(server.url, {
        method: "DELETE",
        headers: { ...server.auth, "mcp-session-id": session },
      });
      assert.equal(ended.status, 204);
      await ended.body?.cancel();
      const statuses = [];
      for (const response of await Promise.all(requests)) {
        statuses.push(response.status);
        if (!response.bodyUsed) await response.body?.cancel();
      }
      // The cancelled calls end without an answer (the spec forbids one): 202 and no body.
      assert.deepEqual(statuses.sort(), [...Array(16).fill(202), 429]);
      for (const pid of cliPids(server.stderr)) {
        assert.ok(await processGone(pid, 15_000), `bxp-cli ${pid} is gone`);
      }
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "an idle session expires (--idle-timeout): its files are removed and its id is then unknown (404)",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start(["--idle-timeout", "3"]);
    try {
      const session = await openSession(server.url, server.auth);
      // A finished simulation keeps its run (outputs, trace) for the session: expiry must delete it.
      const simulated = await fetch(server.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...server.auth, "mcp-session-id": session },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: {
            name: "bxp_simulate",
            arguments: { config: UPPER_CONFIG, template: "up", csv: "name\nada\n" },
          },
        }),
      });
      const answer = JSON.parse(await simulated.text());
      assert.equal(answer.result?.isError, false, JSON.stringify(answer).slice(0, 300));
      const scratch = `${server.tmpDir}/bxp-mcp-sim`;
      assert.ok((await listTree(scratch)).length > 0, "the kept run is on disk");
      await server.waitUntil(
        () => /session \S+ ended \(idle\)/.test(server.stderr),
        "the idle expiry",
        20_000,
      );
      const late = await fetch(server.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...server.auth, "mcp-session-id": session },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      await late.body?.cancel();
      assert.equal(late.status, 404);
      assert.deepEqual(await listTree(scratch), [], "the expired session's files are removed");
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name:
    "SIGTERM ends an HTTP server in order: running simulations cancelled, children killed, files removed, exit 0",
  ignore: Deno.build.os === "windows",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const client = await connect(server);
      const call = client.callTool(
        { name: "bxp_simulate", arguments: { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV } },
        undefined,
        { timeout: 120_000 },
      );
      call.catch(() => {});
      await server.waitUntil(() => cliPids(server.stderr).length === 1, "bxp-cli to start");
      const [pid] = cliPids(server.stderr);
      const code = await server.stop("SIGTERM");
      assert.equal(code, 0, server.stderr);
      assert.ok(await processGone(pid, 10_000), `bxp-cli (pid ${pid}) does not outlive the server`);
      assert.deepEqual(await listTree(`${server.tmpDir}/bxp-mcp-sim`), [], "no workspace is left behind");
      await client.close().catch(() => {});
    } finally {
      await server.dispose();
    }
  },
});
