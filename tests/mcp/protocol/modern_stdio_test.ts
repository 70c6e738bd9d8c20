/**
 * MCP 2026-07-28 over stdio against the real bxp-mcp process: modern requests served without any
 * handshake, version refusal, the era boundary (an `initialize` still selects legacy semantics, the same
 * process serving both eras), subscriptions, and roots asked for with an `InputRequiredResult`.
 */
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { ServerProcess, type Wire } from "../_support/server_process.ts";
import { BXP_TOOLS } from "../../../src/mcp/tools/catalog.ts";

const MODERN = "2026-07-28";
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** The per-request `_meta` a modern client sends (capabilities for this request only). */
function meta(extra: Wire = {}, capabilities: Wire = {}): Wire {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "modern-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    ...extra,
  };
}

function modernRequest(id: number | string, method: string, params: Wire = {}, metaFields = meta()): Wire {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: metaFields } };
}

/** Assert a modern result's common members; returns the result. */
function assertModernResult(response: Wire, resultType = "complete"): Wire {
  assert.equal(response.error, undefined, JSON.stringify(response.error));
  const result = response.result;
  assert.equal(result.resultType, resultType);
  assert.equal(result._meta[SERVER_INFO].name, "bxp-mcp");
  assert.equal(typeof result._meta[SERVER_INFO].version, "string");
  return result;
}

/** The tools a server without --allow-write lists, in catalog order. */
const TOOL_ORDER = BXP_TOOLS.filter((t) => !t.requiresWrite).map((t) => t.name);

async function withServer(fn: (server: ServerProcess) => Promise<void>, args: string[] = []): Promise<void> {
  const server = await ServerProcess.start(args);
  try {
    await fn(server);
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
  }
}

Deno.test("modern requests without initialize: server/discover, tools/list and tools/call bxp_eval", async () => {
  await withServer(async (server) => {
    await server.send(modernRequest("d", "server/discover"));
    const discover = assertModernResult(await server.response("d"));
    assert.ok(discover.supportedVersions.includes(MODERN));
    assert.ok(discover.supportedVersions.includes("2025-11-25"), "the legacy era is offered too");
    assert.deepEqual(Object.keys(discover.capabilities).sort(), ["extensions", "resources", "tools"]);
    assert.deepEqual(discover.capabilities.extensions, { "io.modelcontextprotocol/tasks": {} });
    assert.equal(typeof discover.instructions, "string");
    assert.equal(discover.ttlMs, 300_000);
    assert.equal(discover.cacheScope, "public");

    await server.send(modernRequest(1, "tools/list"));
    await server.send(modernRequest(2, "tools/list"));
    const first = assertModernResult(await server.response(1));
    const second = assertModernResult(await server.response(2));
    assert.deepEqual(first.tools.map((t: Wire) => t.name), TOOL_ORDER, "catalog order");
    assert.deepEqual(second, first, "the same list on every request");
    assert.ok(first.ttlMs >= 0 && Number.isInteger(first.ttlMs));
    assert.equal(first.cacheScope, "public");
    assert.equal(first.nextCursor, undefined);

    // Small answers of bxp_eval are written by evaluation workers in the legacy era; a modern one must
    // still carry resultType and serverInfo, whichever path writes it.
    // "1 + 2" is answered on the session thread; a regular expression runs on a worker, which may write
    // a legacy answer to stdout itself.
    for (const [id, expr] of [[3, "1 + 2"], [4, "REGEX_MATCH('ab', 'a.')"]] as const) {
      await server.send(modernRequest(id, "tools/call", { name: "bxp_eval", arguments: { expr } }));
    }
    const three = assertModernResult(await server.response(3));
    assert.equal(three.isError, false);
    assert.deepEqual(three.structuredContent, { ok: true, value: "3" });
    assert.equal(JSON.parse(three.content[0].text).value, "3");
    const four = assertModernResult(await server.response(4));
    assert.equal(four.structuredContent.ok, true, JSON.stringify(four));

    await server.send(modernRequest(5, "tools/call", { name: "no_such_tool", arguments: {} }));
    assert.equal((await server.response(5)).error.code, -32602);
    await server.send(modernRequest(6, "tools/list", { cursor: "page-1" }));
    assert.equal((await server.response(6)).error.code, -32602, "no cursor is one of ours");
  });
});

Deno.test("an unsupported or malformed modern request is refused with the spec's codes", async () => {
  await withServer(async (server) => {
    const unknown = { ...meta(), "io.modelcontextprotocol/protocolVersion": "1900-01-01" };
    await server.send(modernRequest(1, "tools/list", {}, unknown));
    const refused = (await server.response(1)).error;
    assert.equal(refused.code, -32022);
    assert.equal(refused.data.requested, "1900-01-01");
    assert.deepEqual(refused.data.supported, [
      "2026-07-28",
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
      "2024-11-05",
    ]);
    // server/discover is refused the same way: a modern client then retries with a listed version.
    await server.send(modernRequest(2, "server/discover", {}, unknown));
    assert.equal((await server.response(2)).error.code, -32022);

    const noCapabilities: Wire = { "io.modelcontextprotocol/protocolVersion": MODERN };
    await server.send(modernRequest(3, "tools/list", {}, noCapabilities));
    assert.equal((await server.response(3)).error.code, -32602);
    await server.send(
      modernRequest(4, "tools/list", {}, meta({ "io.modelcontextprotocol/logLevel": "loud" })),
    );
    assert.equal((await server.response(4)).error.code, -32602);

    // Removed in 2026-07-28, or behind a capability this server does not advertise.
    for (
      const [id, method] of [[5, "ping"], [6, "prompts/list"], [7, "logging/setLevel"], [8, "initialize2"]]
    ) {
      await server.send(modernRequest(id, method as string));
      assert.equal((await server.response(id)).error.code, -32601, method as string);
    }
    await server.send(modernRequest(9, "resources/read", { uri: "bxp-sim://run-404/out.csv" }));
    const missing = await server.response(9);
    assert.equal(missing.error.code, -32602, "resource not found is -32602 in 2026-07-28");
    assert.equal(missing.error.data.uri, "bxp-sim://run-404/out.csv");
  });
});

Deno.test("both eras in one process: initialize stays legacy, modern requests stay stateless", async () => {
  await withServer(async (server) => {
    // A modern request first: it must not start a legacy session.
    await server.send(modernRequest(1, "tools/list"));
    assertModernResult(await server.response(1));

    await server.send({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: "legacy", version: "1" } },
    });
    const init = (await server.response(2)).result;
    assert.equal(init.protocolVersion, "2025-11-25", "initialize negotiates a legacy revision, as before");
    assert.equal(init.resultType, undefined);
    assert.equal(init.serverInfo.name, "bxp-mcp");
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });

    await server.send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    const legacyList = (await server.response(3)).result;
    assert.equal(legacyList.resultType, undefined, "legacy results are unchanged");
    assert.equal(legacyList.ttlMs, undefined);
    assert.deepEqual(legacyList.tools.map((t: Wire) => t.name), TOOL_ORDER);
    await server.send({ jsonrpc: "2.0", id: 4, method: "ping" });
    assert.deepEqual((await server.response(4)).result, {});
    await server.send({ jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri: "bxp-sim://x" } });
    assert.equal((await server.response(5)).error.code, -32002, "legacy not-found code kept");
    await server.send({ jsonrpc: "2.0", id: 6, method: "server/discover", params: {} });
    assert.equal((await server.response(6)).error.code, -32601, "no _meta: a legacy request");

    // After the handshake, a modern request is still served by what it carries alone.
    await server.send(modernRequest(7, "tools/call", { name: "bxp_eval", arguments: { expr: "2 * 21" } }));
    assert.equal(assertModernResult(await server.response(7)).structuredContent.value, "42");
    await server.call(8, "bxp_eval", { expr: "2 * 21" });
    const legacyCall = (await server.response(8)).result;
    assert.equal(legacyCall.resultType, undefined);
    assert.equal(legacyCall.structuredContent.value, "42");
  });
});

Deno.test("a log level in _meta is accepted, and no notifications/message is ever sent", async () => {
  await withServer(async (server) => {
    const debug = meta({ "io.modelcontextprotocol/logLevel": "debug", progressToken: "p1" });
    await server.send(modernRequest(1, "tools/call", { name: "bxp_eval", arguments: { expr: "1" } }, debug));
    await server.send(modernRequest(2, "tools/call", { name: "bxp_eval", arguments: { expr: "nope(" } }));
    assertModernResult(await server.response(1));
    assert.equal(assertModernResult(await server.response(2)).structuredContent.ok, false);
    assert.ok(!server.messages.some((m) => m.method === "notifications/message"));
  });
});

Deno.test("subscriptions/listen: acknowledged with the subset honoured, ended by cancel or at close", async () => {
  const server = await ServerProcess.start();
  try {
    const filter = { toolsListChanged: true, resourcesListChanged: true };
    await server.send(modernRequest("s1", "subscriptions/listen", { notifications: filter }));
    await server.send(modernRequest("s2", "subscriptions/listen", { notifications: filter }));
    const acks = () => server.messages.filter((m) => m.method === "notifications/subscriptions/acknowledged");
    await server.waitUntil(() => acks().length === 2, "two acknowledgements");
    for (const [i, id] of ["s1", "s2"].entries()) {
      assert.equal(acks()[i].params._meta["io.modelcontextprotocol/subscriptionId"], id);
      assert.deepEqual(acks()[i].params.notifications, {}, "this server sends no change notifications");
    }
    await server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "s1" } });
    // A later request's answer shows the cancel was handled (lines are read in order).
    await server.send(modernRequest(9, "server/discover"));
    await server.response(9);
    assert.equal(await server.close(), 0);
    assert.ok(!server.messages.some((m) => m.id === "s1"), "a cancelled subscription gets no response");
    const closed = server.messages.find((m) => m.id === "s2");
    assert.ok(closed !== undefined, "an open subscription gets a completion result at the end");
    assert.equal(closed.result.resultType, "complete");
    assert.equal(closed.result._meta["io.modelcontextprotocol/subscriptionId"], "s2");
  } finally {
    await server.dispose();
  }
});

Deno.test("a modern call needing the client's roots asks for them with an InputRequiredResult", async () => {
  const project = await Deno.makeTempDir({ prefix: "bxp-modern-roots-" });
  try {
    await Deno.writeTextFile(`${project}/data.csv`, "a,b\n1,2\n");
    await withServer(async (server) => {
      const withRoots = meta({}, { roots: {} });
      const list = { name: "bxp_list_files", arguments: {} };
      await server.send(modernRequest(1, "tools/call", list, withRoots));
      const asked = assertModernResult(await server.response(1), "input_required");
      assert.deepEqual(asked.inputRequests, { roots: { method: "roots/list" } });
      assert.equal(asked.ttlMs, undefined, "interim results carry no caching hints");

      // The retry (a new id) carries the client's roots/list answer.
      const roots = { roots: { roots: [{ uri: pathToFileURL(project).href, name: "project" }] } };
      await server.send(modernRequest(2, "tools/call", { ...list, inputResponses: roots }, withRoots));
      const files = assertModernResult(await server.response(2));
      assert.equal(files.isError, false, files.content?.[0]?.text);
      assert.ok(files.structuredContent.files.some((f: Wire) => f.path === "data.csv"));

      // Without the roots capability there is nothing to ask: the tool says how to get a root.
      await server.send(modernRequest(3, "tools/call", list));
      const refused = assertModernResult(await server.response(3));
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, /--root/);
      assert.ok(!server.messages.some((m) => m.method === "roots/list"), "no server-initiated request");
    });
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});
