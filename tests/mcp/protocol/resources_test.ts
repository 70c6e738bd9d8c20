/** Resource providers behind resources/list, resources/read and the `resources` capability. */
import assert from "node:assert/strict";
import { McpServer, type ResourceEntry, type ResourceProvider } from "../../../src/mcp/protocol/mod.ts";
import { resourcePage } from "../../../src/mcp/protocol/resources.ts";
import { collector, request, type Wire } from "./_test_tools.ts";

function provider(entries: ResourceEntry[], texts: Record<string, string>): ResourceProvider {
  return {
    list: () => entries,
    read: (uri) => Promise.resolve(uri in texts ? [{ uri, mimeType: "text/csv", text: texts[uri] }] : null),
  };
}

async function ask(server: McpServer, line: string): Promise<Wire> {
  const out = collector();
  await server.handleLine(line, out.send);
  assert.equal(out.lines.length, 1);
  return out.messages()[0];
}

const newServer = () => new McpServer({ name: "t", version: "1" });

Deno.test("without a provider: no resources capability, empty lists, reads are not found", async () => {
  const server = newServer();
  const init = await ask(server, request(1, "initialize", { capabilities: {} }));
  assert.deepEqual(init.result.capabilities, { tools: { listChanged: false } });
  assert.deepEqual((await ask(server, request(2, "resources/list"))).result, { resources: [] });
  const read = await ask(server, request(3, "resources/read", { uri: "sim://a" }));
  assert.deepEqual(read.error, { code: -32002, message: "Resource not found", data: { uri: "sim://a" } });
});

Deno.test("a provider's resources are advertised, listed and read; unknown URIs get -32002 with the uri", async () => {
  const server = newServer();
  server.addResourceProvider(provider([{ uri: "sim://a", name: "a.csv", mimeType: "text/csv" }], {
    "sim://a": "x,y\n",
  }));
  server.addResourceProvider(provider([{ uri: "sim://b", name: "b.csv" }], { "sim://b": "b\n" }));
  const init = await ask(server, request(1, "initialize", { capabilities: {} }));
  assert.deepEqual(init.result.capabilities, { tools: { listChanged: false }, resources: {} });
  assert.deepEqual((await ask(server, request(2, "resources/list"))).result, {
    resources: [{ uri: "sim://a", name: "a.csv", mimeType: "text/csv" }, { uri: "sim://b", name: "b.csv" }],
  });
  assert.deepEqual((await ask(server, request(3, "resources/read", { uri: "sim://b" }))).result, {
    contents: [{ uri: "sim://b", mimeType: "text/csv", text: "b\n" }],
  });
  const missing = await ask(server, request(4, "resources/read", { uri: "sim://zzz" }));
  assert.equal(missing.error.code, -32002);
  assert.deepEqual(missing.error.data, { uri: "sim://zzz" });
  const bad = await ask(server, request(5, "resources/read", { uri: 7 }));
  assert.equal(bad.error.code, -32602);
  assert.deepEqual((await ask(server, request(6, "resources/templates/list"))).result, {
    resourceTemplates: [],
  });
});

Deno.test("a long listing is paged through nextCursor; a foreign cursor is -32602", async () => {
  const entries = Array.from({ length: 250 }, (_, i) => ({ uri: `sim://${i}`, name: `r${i}` }));
  const server = newServer();
  server.addResourceProvider(provider(entries, {}));
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await ask(
      server,
      request(pages + 1, "resources/list", cursor === undefined ? {} : { cursor }),
    );
    seen.push(...page.result.resources.map((r: ResourceEntry) => r.uri));
    cursor = page.result.nextCursor;
    pages++;
  } while (cursor !== undefined);
  assert.equal(pages, 3);
  assert.deepEqual(seen, entries.map((e) => e.uri));
  for (const bogus of ["nope", "page-999", 5, "page--1"]) {
    const reply = await ask(server, request(9, "resources/list", { cursor: bogus }));
    assert.equal(reply.error.code, -32602, String(bogus));
  }
  assert.deepEqual(resourcePage([], undefined), { resources: [] });
});

Deno.test("a failing provider is an internal error, logged, and the session goes on", async () => {
  const logs: string[] = [];
  const server = new McpServer({ name: "t", version: "1", log: (m) => logs.push(m) });
  server.addResourceProvider({
    list: () => {
      throw new Error("disk gone");
    },
    read: () => Promise.reject(new Error("disk gone")),
  });
  assert.equal((await ask(server, request(1, "resources/list"))).error.code, -32603);
  assert.equal((await ask(server, request(2, "resources/read", { uri: "sim://a" }))).error.code, -32603);
  assert.ok(logs.some((line) => line.includes("disk gone")));
  assert.deepEqual((await ask(server, request(3, "ping"))).result, {});
});

Deno.test("a resource read over the answer budget is refused with its size", async () => {
  const server = new McpServer({ name: "t", version: "1", maxAnswerBytes: 1000 });
  server.addResourceProvider(provider([], { "sim://big": "x".repeat(2000) }));
  const reply = await ask(server, request(1, "resources/read", { uri: "sim://big" }));
  assert.equal(reply.error.code, -32603);
  assert.equal(reply.error.data.limit, 1000);
  assert.ok(reply.error.data.bytes > 2000);
});
