import assert from "node:assert/strict";
import { McpServer, type ToolCall } from "../../../src/mcp/protocol/mod.ts";
import { collector, makeTestServer, request, toolCall, type Wire } from "./_test_tools.ts";

/** Feed lines one by one (awaiting each) and return everything sent. */
async function run(server: McpServer, ...lines: string[]): Promise<Wire[]> {
  const out = collector();
  for (const line of lines) await server.handleLine(line, out.send);
  assertAllJsonRpc(out.lines);
  return out.messages();
}

/** Every line must be one JSON-RPC 2.0 response or notification on a single line. */
function assertAllJsonRpc(lines: string[]): void {
  for (const line of lines) {
    assert.ok(!line.includes("\n"), "a message must not contain a raw newline");
    const message = JSON.parse(line);
    assert.equal(message.jsonrpc, "2.0", line);
    const isResponse = "id" in message && (("result" in message) !== ("error" in message));
    const isNotification = !("id" in message) && typeof message.method === "string";
    assert.ok(isResponse || isNotification, `not a JSON-RPC message: ${line}`);
    if ("error" in message) {
      assert.ok(Number.isInteger(message.error.code) && typeof message.error.message === "string", line);
    }
  }
}

async function one(server: McpServer, line: string): Promise<Wire> {
  const messages = await run(server, line);
  assert.equal(messages.length, 1, `expected exactly one message for ${line}`);
  return messages[0];
}

function toolText(message: Wire): string {
  return message.result.content[0].text;
}

// ── handshake ────────────────────────────────────────────────────────────────

Deno.test("initialize without protocolVersion answers the latest with the full result shape", async () => {
  const { server } = makeTestServer();
  const reply = await one(server, request(1, "initialize", { capabilities: {} }));
  assert.deepEqual(reply, {
    jsonrpc: "2.0",
    id: 1,
    result: {
      protocolVersion: "2025-11-25",
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: "test-mcp", title: "Test MCP", version: "9.8.7" },
      instructions: "Use the test tools.",
    },
  });
  assert.equal(server.protocolVersion, "2025-11-25");
});

Deno.test("initialize echoes each supported revision and answers the latest for unknown ones", async () => {
  const { server } = makeTestServer();
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    const reply = await one(server, request(9, "initialize", { protocolVersion: version, capabilities: {} }));
    assert.equal(reply.result.protocolVersion, version);
    assert.equal(server.protocolVersion, version);
  }
  for (const version of ["1999-01-01", "2026-07-28", 42]) {
    const reply = await one(server, request(10, "initialize", { protocolVersion: version }));
    assert.equal(reply.result.protocolVersion, "2025-11-25");
  }
});

Deno.test("initialize omits title and instructions when the server has none, and records clientInfo", async () => {
  const server = new McpServer({ name: "bare", version: "1" });
  const reply = await one(
    server,
    request(1, "initialize", { protocolVersion: "2025-06-18", clientInfo: { name: "c", version: "2" } }),
  );
  assert.deepEqual(reply.result.serverInfo, { name: "bare", version: "1" });
  assert.equal("instructions" in reply.result, false);
  assert.deepEqual(server.clientInfo, { name: "c", version: "2" });
  await run(server, request(2, "initialize", { clientInfo: "nonsense" }));
  assert.equal(server.clientInfo, null, "a malformed clientInfo never fails the handshake");
});

Deno.test("notifications/initialized gets no answer; with an id it is an invalid request", async () => {
  const { server } = makeTestServer();
  assert.deepEqual(
    await run(server, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })),
    [],
  );
  assert.equal(server.clientInitialized, true);
  const reply = await one(server, request(5, "notifications/initialized"));
  assert.equal(reply.id, 5);
  assert.equal(reply.error.code, -32600);
});

Deno.test("after-initialize hooks run once per initialize answer, after it is emitted; a throwing one is logged", async () => {
  const logged: string[] = [];
  const { server } = makeTestServer((message) => logged.push(message));
  const out = collector();
  const sentWhenCalled: number[] = [];
  server.afterInitialize(() => sentWhenCalled.push(out.lines.length));
  server.afterInitialize(() => {
    throw new Error("warm-up failed");
  });
  await server.handleLine(request(1, "ping"), out.send);
  await server.handleLine(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), out.send);
  assert.deepEqual(sentWhenCalled, [], "neither a ping nor the notification runs the hooks");
  await server.handleLine(request(2, "initialize", {}), out.send);
  assert.deepEqual(sentWhenCalled, [2], "run once, with the initialize answer already sent");
  assert.equal(out.messages()[1].id, 2);
  assert.ok(logged.some((m) => m.includes("warm-up failed")), logged.join("\n"));
  await server.handleLine(request(3, "ping"), out.send);
  assert.deepEqual(out.messages()[2].result, {}, "the session goes on after a failed hook");
  await server.handleLine(request(4, "initialize", {}), out.send);
  assert.deepEqual(sentWhenCalled, [2, 4]);
});

Deno.test("ping answers {} before and after initialize", async () => {
  const { server } = makeTestServer();
  assert.deepEqual(await one(server, request("p", "ping")), { jsonrpc: "2.0", id: "p", result: {} });
  await run(server, request(1, "initialize", {}));
  assert.deepEqual((await one(server, request(2, "ping"))).result, {});
});

Deno.test("tools are callable before initialize (no init gate, as in bxp)", async () => {
  const { server } = makeTestServer();
  const reply = await one(server, toolCall(1, "json_echo", { expr: "a" }));
  assert.equal(toolText(reply), '{"ok":true,"value":"A"}');
});

// ── catalogs ─────────────────────────────────────────────────────────────────

Deno.test("tools/list reports the catalog in registration order with the registered fields", async () => {
  const { server } = makeTestServer();
  const reply = await one(server, request(2, "tools/list"));
  const tools = reply.result.tools as Wire[];
  assert.deepEqual(tools.map((tool) => tool.name), [
    "json_echo",
    "raw_text",
    "ndjson_text",
    "stepper",
    "hang",
    "sleep",
    "thrower",
    "inspect_args",
  ]);
  assert.deepEqual(tools[0], {
    name: "json_echo",
    description: "Echo expr inside a JSON object.",
    inputSchema: { type: "object", properties: { expr: { type: "string" } }, required: ["expr"] },
  });
  assert.deepEqual(tools[1].outputSchema, { type: "object" });
  assert.equal(tools.filter((tool) => "outputSchema" in tool).length, 1);
  assert.equal("nextCursor" in reply.result, false);
});

Deno.test("tools/list carries optional title and annotations verbatim", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.addTool({
    name: "t",
    title: "The T",
    description: "d",
    inputSchema: { type: "object", additionalProperties: false },
    annotations: { readOnlyHint: true },
    allowStructured: false,
    handler: () => ({ text: "" }),
  });
  const reply = await one(server, request(1, "tools/list", { cursor: undefined }));
  assert.deepEqual(reply.result.tools, [{
    name: "t",
    title: "The T",
    description: "d",
    inputSchema: { type: "object", additionalProperties: false },
    annotations: { readOnlyHint: true },
  }]);
});

Deno.test("empty resource and prompt catalogs are served; prompts/get and resources/read fail", async () => {
  const { server } = makeTestServer();
  assert.deepEqual((await one(server, request(108, "resources/list"))).result, { resources: [] });
  assert.deepEqual((await one(server, request(1, "resources/templates/list"))).result, {
    resourceTemplates: [],
  });
  assert.deepEqual((await one(server, request(109, "prompts/list"))).result, { prompts: [] });
  const prompt = await one(server, request(3, "prompts/get", { name: "review" }));
  assert.equal(prompt.error.code, -32602);
  assert.equal(prompt.error.data.name, "review");
  assert.equal((await one(server, request(4, "prompts/get"))).error.code, -32602);
  const resource = await one(server, request(5, "resources/read", { uri: "file:///x" }));
  assert.equal(resource.error.code, -32002);
});

// ── JSON-RPC hygiene: the smoke contract's wiring seams ────────────────────────

Deno.test("wiring seams answer exactly as the bxp smoke contract pins them", async () => {
  const { server } = makeTestServer();
  const lines = [
    "{ this is not json",
    "[]",
    "",
    JSON.stringify({ jsonrpc: "2.0", id: 100 }),
    request(101, "no/such"),
    JSON.stringify({ jsonrpc: "2.0", method: "no/such" }),
    request(102, "tools/call"),
    request(103, "tools/call", []),
    request(104, "tools/call", {}),
    toolCall(105, "not_a_tool", {}),
    request(106, "tools/call", { name: "json_echo" }),
    toolCall(107, "json_echo", { expr: 5 }),
    request(108, "resources/list"),
    request(109, "prompts/list"),
    JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }),
    JSON.stringify({ jsonrpc: "2.0", id: 111, result: {} }),
    JSON.stringify({ jsonrpc: "2.0", method: "tools/list" }),
    toolCall(110, "json_echo", { expr: "ok" }),
  ];
  const messages = await run(server, ...lines);
  const nullIds = messages.filter((message) => message.id === null);
  assert.deepEqual(nullIds.map((message) => message.error.code), [-32700, -32600, -32600]);
  assert.equal(nullIds[0].error.message, "Parse error");
  assert.equal(nullIds[2].error.message, "Invalid request id");
  const answered = messages.filter((message) => message.id !== null);
  assert.deepEqual(answered.map((message) => message.id), [
    100,
    101,
    102,
    103,
    104,
    105,
    106,
    107,
    108,
    109,
    110,
  ]);
  const byId: Record<number, Wire> = Object.fromEntries(answered.map((message) => [message.id, message]));
  assert.equal(byId[100].error.code, -32600);
  assert.equal(byId[100].error.message, "Missing method");
  assert.equal(byId[101].error.code, -32601);
  assert.equal(byId[101].error.message, "Method not found");
  assert.deepEqual(
    [102, 103, 104, 105].map((id) => [byId[id].error.code, byId[id].error.message]),
    [[-32602, "Missing params"], [-32602, "Invalid params"], [-32602, "Missing tool name"], [
      -32602,
      "Unknown tool",
    ]],
  );
  for (const id of [106, 107]) {
    assert.equal("error" in byId[id], false);
    assert.equal(byId[id].result.isError, true);
    assert.equal(toolText(byId[id]), "error: missing 'expr'");
    assert.equal("structuredContent" in byId[id].result, false);
  }
  assert.deepEqual(byId[108].result, { resources: [] });
  assert.deepEqual(byId[109].result, { prompts: [] });
  assert.equal(111 in byId, false);
  assert.deepEqual(byId[110].result.structuredContent, { ok: true, value: "OK" });
});

Deno.test("non-object messages are invalid requests with a null id", async () => {
  const { server } = makeTestServer();
  for (const line of ["5", '"ping"', "null", "true", "[1]", '[{"jsonrpc":"2.0","id":1,"method":"ping"}]']) {
    const reply = await one(server, line);
    assert.equal(reply.id, null, line);
    assert.equal(reply.error.code, -32600, line);
  }
});

Deno.test("ids must be strings or integers; others (fractions included) are refused with a null id", async () => {
  const { server } = makeTestServer();
  for (const id of [null, true, false, [1], {}, { a: 1 }, 2.5, -0.5]) {
    const reply = await one(server, JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
    assert.deepEqual(reply, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid request id" },
    }, JSON.stringify(id));
  }
  assert.equal((await one(server, request("x".repeat(5000), "ping"))).id, null, "absurdly long id refused");
  for (const id of ["abc", "", 0, -1, 1e3]) {
    assert.deepEqual(await one(server, request(id, "ping")), { jsonrpc: "2.0", id, result: {} });
  }
});

Deno.test("numeric ids are echoed byte for byte, even beyond double precision", async () => {
  const { server } = makeTestServer();
  const out = collector();
  await server.handleLine('{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}', out.send);
  await server.handleLine('{"jsonrpc":"2.0","id":1.0,"method":"ping"}', out.send);
  await server.handleLine('{"jsonrpc":"2.0","id":1.50,"method":"ping"}', out.send);
  assert.deepEqual(out.lines, [
    '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}',
    '{"jsonrpc":"2.0","id":1.0,"result":{}}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request id"}}',
  ]);
});

Deno.test("request-only methods without an id are dropped silently", async () => {
  const { server, seen } = makeTestServer();
  const notes = ["initialize", "tools/list", "ping", "resources/list", "prompts/list", "no/such"].map((
    method,
  ) => JSON.stringify({ jsonrpc: "2.0", method }));
  notes.push(JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "hang" } }));
  notes.push(JSON.stringify({ jsonrpc: "2.0", method: "notifications/unknown" }));
  notes.push("{}", JSON.stringify({ jsonrpc: "2.0", method: 7 }));
  assert.deepEqual(await run(server, ...notes), []);
  assert.equal(seen.startedIds.length, 0, "an id-less tools/call must not run the tool");
  assert.equal(server.protocolVersion, null, "an id-less initialize must not negotiate");
});

Deno.test("response-shaped messages draw no output", async () => {
  const { server } = makeTestServer();
  const lines = [
    JSON.stringify({ jsonrpc: "2.0", id: 111, result: {} }),
    JSON.stringify({ jsonrpc: "2.0", id: 112, error: { code: -1, message: "x" } }),
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }),
    JSON.stringify({ jsonrpc: "2.0", id: { odd: 1 }, result: {} }),
  ];
  assert.deepEqual(await run(server, ...lines), []);
});

Deno.test("a method that is not a string, or a wrong jsonrpc version, is an invalid request", async () => {
  const { server } = makeTestServer();
  const badMethod = await one(server, JSON.stringify({ jsonrpc: "2.0", id: 3, method: 7 }));
  assert.deepEqual(badMethod.error, { code: -32600, message: "Invalid method" });
  assert.equal(badMethod.id, 3);
  const badVersion = await one(server, JSON.stringify({ jsonrpc: "1.0", id: 4, method: "ping" }));
  assert.equal(badVersion.error.code, -32600);
  assert.equal(badVersion.id, 4);
});

Deno.test("a trailing CR is tolerated and whitespace-only lines are ignored", async () => {
  const { server } = makeTestServer();
  assert.deepEqual(await run(server, "", " ", "\t", "\r", "  \r"), []);
  assert.deepEqual(await one(server, request(1, "ping") + "\r"), { jsonrpc: "2.0", id: 1, result: {} });
  assert.deepEqual(await one(server, "  " + request(2, "ping") + " \t\r"), {
    jsonrpc: "2.0",
    id: 2,
    result: {},
  });
});

Deno.test("deeply nested messages are refused with their id instead of overflowing the stack", async () => {
  const { server } = makeTestServer();
  const nest = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${nest(200_000)}}}`;
  const reply = await one(server, deep);
  assert.equal(reply.id, 1, "the id is read from the raw text");
  assert.equal(reply.error.code, -32600);
  assert.equal(reply.error.message, "Invalid request: message nests deeper than 64 levels");
  // The id after the deep part, a string id with escapes, and ids that are not top-level.
  const after = await one(
    server,
    `{"params":{"x":${nest(100)}},"method":"ping","id":"a\\"b","jsonrpc":"2.0"}`,
  );
  assert.equal(after.id, 'a"b');
  const nested = await one(server, `{"params":{"id":5,"x":${nest(100)}},"method":"ping","jsonrpc":"2.0"}`);
  assert.equal(nested.id, null, "an id inside params is not the message's id");
  const fractional = await one(server, `{"id":1.5,"x":${nest(100)}}`);
  assert.equal(fractional.id, null, "an unusable id is not echoed");
  const quoted = await one(server, `{"x":"\\"id\\":3","y":${nest(100)}}`);
  assert.equal(quoted.id, null, "text inside a string is not a key");
  assert.deepEqual(await one(server, request(2, "ping")), { jsonrpc: "2.0", id: 2, result: {} });
});

Deno.test("the nesting limit fires at exactly the depth it names", async () => {
  const { server } = makeTestServer();
  // The root object is level 1; params level 2; the innermost array is level 64 (or 65).
  const at = (levels: number) =>
    `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":${"[".repeat(levels - 2)}${
      "]".repeat(levels - 2)
    }}}`;
  assert.deepEqual(await one(server, at(64)), { jsonrpc: "2.0", id: 7, result: {} });
  const refused = await one(server, at(65));
  assert.equal(refused.error.code, -32600);
  assert.match(refused.error.message, /deeper than 64 levels/);
});

Deno.test('a request without "jsonrpc":"2.0" is refused with -32600; such a notification is dropped', async () => {
  const { server, seen } = makeTestServer();
  const missing = await one(server, JSON.stringify({ id: 3, method: "ping" }));
  assert.deepEqual(missing.error, { code: -32600, message: 'Invalid request: "jsonrpc" must be "2.0"' });
  assert.equal(missing.id, 3);
  const wrong = await one(server, JSON.stringify({ jsonrpc: "1.0", id: 4, method: "ping" }));
  assert.equal(wrong.error.code, -32600);
  assert.deepEqual(await run(server, JSON.stringify({ method: "notifications/initialized" })), []);
  assert.equal(server.clientInitialized, false);
  assert.deepEqual(seen.startedIds, []);
});

Deno.test("__proto__ keys never reach a handler", async () => {
  const { server } = makeTestServer();
  const line = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect_args",' +
    '"arguments":{"a":1,"__proto__":{"polluted":true},"nested":{"__proto__":{"x":1}}}}}';
  const seen = JSON.parse(toolText(await one(server, line)));
  assert.deepEqual(seen.args, { a: 1, nested: {} });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

// ── tools/call ───────────────────────────────────────────────────────────────

Deno.test("absent or null arguments reach the handler as null; an object arrives as is", async () => {
  const { server } = makeTestServer();
  const absent = JSON.parse(toolText(await one(server, request(1, "tools/call", { name: "inspect_args" }))));
  assert.deepEqual(absent, { args: null, isNull: true, name: "inspect_args", requestId: 1 });
  const nullArgs = JSON.parse(toolText(await one(server, toolCall("r2", "inspect_args", null))));
  assert.equal(nullArgs.isNull, true);
  assert.equal(nullArgs.requestId, "r2");
  const given = JSON.parse(toolText(await one(server, toolCall(3, "inspect_args", { k: [1, "2"] }))));
  assert.deepEqual(given.args, { k: [1, "2"] });
});

Deno.test("non-object arguments and a non-string tool name are invalid params", async () => {
  const { server } = makeTestServer();
  for (const args of [[1], "text", 5, true]) {
    const reply = await one(server, toolCall(1, "inspect_args", args));
    assert.equal(reply.error.code, -32602, JSON.stringify(args));
  }
  const badName = await one(server, request(2, "tools/call", { name: 7 }));
  assert.equal(badName.error.code, -32602);
  assert.equal((await one(server, request(3, "tools/call", null))).error.code, -32602);
  assert.equal((await one(server, request(4, "tools/call", "json_echo"))).error.code, -32602);
});

Deno.test("unknown tool names are -32602 and name the tool", async () => {
  const { server } = makeTestServer();
  for (const name of ["bxp_not_a_tool", "constructor", "__proto__", "toString", ""]) {
    const reply = await one(server, toolCall(105, name, {}));
    assert.equal(reply.error.code, -32602, name);
    assert.equal(reply.error.message, "Unknown tool");
  }
});

Deno.test("structuredContent: added for a single JSON object from a tool that allows it", async () => {
  const { server } = makeTestServer();
  const reply = await one(server, toolCall(3, "json_echo", { expr: "1 + 2" }));
  assert.deepEqual(reply.result, {
    content: [{ type: "text", text: '{"ok":true,"value":"1 + 2"}' }],
    structuredContent: { ok: true, value: "1 + 2" },
    isError: false,
  });
});

Deno.test("structuredContent: absent for arrays, NDJSON, plain text, malformed JSON and failures", async () => {
  const { server } = makeTestServer();
  const texts = ['[{"a":1}]', '{"fn":"ABS"}\n{"t":"final","value":"2"}', "plain", '{"a":', "{]", "42", '"s"'];
  for (const text of texts) {
    const reply = await one(server, toolCall(1, "raw_text", { text }));
    assert.equal("structuredContent" in reply.result, false, JSON.stringify(text));
    assert.equal(reply.result.isError, false);
    assert.equal(toolText(reply), text);
  }
  const failed = await one(server, toolCall(2, "raw_text", { text: '{"ok":false}', isError: true }));
  assert.equal(failed.result.isError, true);
  assert.equal("structuredContent" in failed.result, false);
});

Deno.test("a result the tool already serialised is sent as it is, spliced after the request's id", async () => {
  const { server } = makeTestServer();
  // Deliberately not what the server would print for `text`: only the given JSON can produce this line.
  const json =
    '{"content":[{"type":"text","text":"prebuilt"}],"structuredContent":{"n":1.50},"isError":false}';
  server.addTool({
    name: "prebuilt",
    description: "Answer a result serialised beforehand.",
    inputSchema: { type: "object" },
    allowStructured: true,
    handler: () => ({ text: "prebuilt", json }),
  });
  const out = collector();
  await server.handleLine(toolCall("a-7", "prebuilt", {}), out.send);
  assert.deepEqual(out.lines, [`{"jsonrpc":"2.0","id":"a-7","result":${json}}`]);
});

Deno.test("structuredContent: never for a tool registered with allowStructured false", async () => {
  const { server } = makeTestServer();
  const reply = await one(server, toolCall(12, "ndjson_text", { text: '{"t":"final","value":"3"}' }));
  assert.equal(reply.result.isError, false);
  assert.equal("structuredContent" in reply.result, false);
});

Deno.test("a throwing handler becomes an isError result with its message, and is logged", async () => {
  const logs: string[] = [];
  const { server } = makeTestServer((message) => logs.push(message));
  const reply = await one(server, toolCall(1, "thrower", {}));
  assert.deepEqual(reply.result, {
    content: [{ type: "text", text: "error: boom at step 2" }],
    isError: true,
  });
  assert.ok(logs.some((line) => line.includes("thrower") && line.includes("boom")));
  assert.ok(!toolText(reply).includes("    at "), "no stack trace reaches the client");
});

Deno.test("a handler returning something without text becomes a failure", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.addTool({
    name: "broken",
    description: "d",
    inputSchema: { type: "object" },
    allowStructured: true,
    handler: () => ({}) as unknown as { text: string },
  });
  const reply = await one(server, toolCall(1, "broken"));
  assert.equal(reply.result.isError, true);
  assert.match(toolText(reply), /^error: /);
});

// ── progress ─────────────────────────────────────────────────────────────────

Deno.test("progress is sent only when the request carried a progressToken", async () => {
  const { server } = makeTestServer();
  const silent = await run(server, toolCall(1, "stepper", { steps: 3 }));
  assert.equal(silent.length, 1);
  assert.equal(silent[0].id, 1);
  const noToken = await run(server, toolCall(2, "stepper", { steps: 3 }, { other: 1 }));
  assert.equal(noToken.length, 1);
  const badToken = await run(server, toolCall(3, "stepper", { steps: 3 }, { progressToken: { a: 1 } }));
  assert.equal(badToken.length, 1);
});

Deno.test("a string progressToken is echoed verbatim and progress precedes the result", async () => {
  const { server } = makeTestServer();
  const messages = await run(server, toolCall(10, "stepper", { steps: 4 }, { progressToken: "p10" }));
  assert.equal(messages.length, 5);
  assert.deepEqual(messages.slice(0, 4).map((message) => message.params), [
    { progressToken: "p10", progress: 1, total: 4, message: "step 1" },
    { progressToken: "p10", progress: 2, total: 4, message: "step 2" },
    { progressToken: "p10", progress: 3, total: 4, message: "step 3" },
    { progressToken: "p10", progress: 4, total: 4, message: "step 4" },
  ]);
  for (const note of messages.slice(0, 4)) {
    assert.equal(note.method, "notifications/progress");
    assert.equal("id" in note, false);
  }
  assert.equal(messages[4].id, 10);
  assert.deepEqual(messages[4].result.structuredContent, { steps: 4 });
});

Deno.test("integer progressTokens are echoed verbatim, including ones beyond double precision", async () => {
  const { server } = makeTestServer();
  const small = collector();
  await server.handleLine(toolCall(1, "stepper", { steps: 1 }, { progressToken: 42 }), small.send);
  assert.equal(
    small.lines[0],
    '{"jsonrpc":"2.0","method":"notifications/progress","params":' +
      '{"progressToken":42,"progress":1,"total":1,"message":"step 1"}}',
  );
  const big = collector();
  await server.handleLine(
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stepper","arguments":{"steps":1},' +
      '"_meta":{"progressToken":98765432109876543210}}}',
    big.send,
  );
  assert.ok(big.lines[0].includes('"progressToken":98765432109876543210,'), big.lines[0]);
});

Deno.test("progress must increase, and nothing is sent after the result", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  let kept: ToolCall | undefined;
  server.addTool({
    name: "erratic",
    description: "d",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: (_args, call) => {
      kept = call;
      call.progress(1);
      call.progress(1);
      call.progress(0.5);
      call.progress(Number.NaN);
      call.progress(2.5, undefined, "half");
      return { text: "done" };
    },
  });
  const out = collector();
  await server.handleLine(toolCall(1, "erratic", {}, { progressToken: "t" }), out.send);
  kept?.progress(10, 10, "late");
  const messages = out.messages();
  assert.deepEqual(messages.map((message) => message.params?.progress ?? "result"), [1, 2.5, "result"]);
  assert.deepEqual(messages[1].params, { progressToken: "t", progress: 2.5, message: "half" });
});

// ── cancellation and concurrency ─────────────────────────────────────────────

Deno.test("notifications/cancelled aborts the call's signal and suppresses its response", async () => {
  const { server, seen } = makeTestServer();
  const out = collector();
  const pending = server.handleLine(toolCall(7, "hang", {}), out.send);
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(server.inFlightCount, 1);
  await server.handleLine(
    JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 7, reason: "user" },
    }),
    out.send,
  );
  await pending; // settles although the handler never does
  assert.deepEqual(seen.abortedIds, [7]);
  assert.deepEqual(out.lines, []);
  assert.equal(server.inFlightCount, 0);
});

Deno.test("a cancelled call's signal carries the reason and later results are dropped", async () => {
  const { server, seen } = makeTestServer();
  const out = collector();
  const pending = server.handleLine(toolCall("s1", "sleep", { ms: 50 }, { progressToken: "t" }), out.send);
  await new Promise((resolve) => setTimeout(resolve, 5));
  await server.handleLine(
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "s1" } }),
    out.send,
  );
  await pending;
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.deepEqual(seen.abortedIds, ["s1"]);
  assert.deepEqual(out.lines, []);
});

Deno.test("cancellation matches the id's type and ignores unknown or malformed targets", async () => {
  const { server, seen } = makeTestServer();
  const out = collector();
  void server.handleLine(toolCall(1, "hang", {}), out.send);
  await Promise.resolve();
  for (
    const params of [{ requestId: "1" }, { requestId: 2 }, {}, { requestId: null }, "x", {
      requestId: { a: 1 },
    }]
  ) {
    await server.handleLine(
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params }),
      out.send,
    );
  }
  assert.deepEqual(seen.abortedIds, []);
  assert.equal(server.inFlightCount, 1);
  server.cancelAll("test over");
  assert.deepEqual(seen.abortedIds, [1]);
  assert.deepEqual(out.lines, []);
});

Deno.test("a late cancel for a finished call is ignored", async () => {
  const { server } = makeTestServer();
  const out = collector();
  await server.handleLine(toolCall(1, "json_echo", { expr: "x" }), out.send);
  await server.handleLine(
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }),
    out.send,
  );
  assert.equal(out.lines.length, 1);
  assert.equal(JSON.parse(out.lines[0]).id, 1);
});

Deno.test("a slow call does not block ping; responses come in completion order", async () => {
  const { server } = makeTestServer();
  const out = collector();
  const slow = server.handleLine(toolCall("slow", "sleep", { ms: 30 }), out.send);
  await server.handleLine(request("ping", "ping"), out.send);
  assert.deepEqual(out.messages().map((message) => message.id), ["ping"]);
  await slow;
  assert.deepEqual(out.messages().map((message) => message.id), ["ping", "slow"]);
});

Deno.test("a request reusing the id of a running call is refused without disturbing it", async () => {
  const { server, seen } = makeTestServer();
  const out = collector();
  void server.handleLine(toolCall(5, "hang", {}), out.send);
  await Promise.resolve();
  await server.handleLine(toolCall(5, "json_echo", { expr: "x" }), out.send);
  const reply = out.messages();
  assert.equal(reply.length, 1);
  assert.equal(reply[0].id, 5);
  assert.equal(reply[0].error.code, -32600);
  assert.deepEqual(seen.abortedIds, []);
  server.cancelAll("test over");
});

Deno.test("cancelAll aborts every running call and keeps the server usable", async () => {
  const { server, seen } = makeTestServer();
  const out = collector();
  const calls = [1, 2, 3].map((id) => server.handleLine(toolCall(id, "hang", {}), out.send));
  await Promise.resolve();
  await Promise.resolve();
  server.cancelAll("stdin closed");
  await Promise.all(calls);
  assert.deepEqual(seen.abortedIds.sort(), [1, 2, 3]);
  assert.deepEqual(out.lines, []);
  await server.handleLine(request(4, "ping"), out.send);
  assert.deepEqual(out.messages(), [{ jsonrpc: "2.0", id: 4, result: {} }]);
});

Deno.test("a send that throws is logged and does not break the server", async () => {
  const logs: string[] = [];
  const { server } = makeTestServer((message) => logs.push(message));
  await server.handleLine(request(1, "ping"), () => {
    throw new Error("pipe closed");
  });
  assert.ok(logs.some((line) => line.includes("pipe closed")));
  assert.equal((await one(server, request(2, "ping"))).id, 2);
});

// ── registration ─────────────────────────────────────────────────────────────

Deno.test("addTool refuses duplicates, bad names, non-object schemas and outputSchema without structure", () => {
  const base = {
    name: "ok_tool",
    description: "d",
    inputSchema: { type: "object" },
    allowStructured: true,
    handler: () => ({ text: "" }),
  };
  const server = new McpServer({ name: "s", version: "1" });
  server.addTool(base);
  assert.throws(() => server.addTool(base), /already registered/);
  for (const name of ["", "has space", "x".repeat(129), "semi;colon"]) {
    assert.throws(() => server.addTool({ ...base, name }), /must be 1-128 characters/, name);
  }
  assert.throws(() => server.addTool({ ...base, name: "a", inputSchema: { type: "string" } }), /inputSchema/);
  assert.throws(
    () => server.addTool({ ...base, name: "b", outputSchema: { type: "array" } }),
    /outputSchema/,
  );
  assert.throws(
    () => server.addTool({ ...base, name: "c", outputSchema: { type: "object" }, allowStructured: false }),
    /allowStructured/,
  );
  assert.deepEqual(server.toolNames, ["ok_tool"]);
});

Deno.test("a default send given at construction serves lines handled without one", async () => {
  const out = collector();
  const server = new McpServer({ name: "s", version: "1", send: out.send });
  await server.handleLine(request(1, "ping"));
  const other = collector();
  await server.handleLine(request(2, "ping"), other.send);
  assert.deepEqual(out.messages(), [{ jsonrpc: "2.0", id: 1, result: {} }]);
  assert.deepEqual(other.messages(), [{ jsonrpc: "2.0", id: 2, result: {} }]);
  const logs: string[] = [];
  const mute = new McpServer({ name: "s", version: "1", log: (message) => logs.push(message) });
  await mute.handleLine(request(3, "ping"));
  assert.equal(logs.length, 1);
});

Deno.test("a switched-off tool is not listed, and a call to it says why instead of 'Unknown tool'", async () => {
  const server = new McpServer({
    name: "s",
    version: "1",
    unavailableTools: new Map([["write_thing", "Writes are disabled: start with --allow-write."]]),
  });
  const listed = await one(server, request(1, "tools/list"));
  assert.deepEqual(listed.result.tools, []);
  const refused = await one(server, toolCall(2, "write_thing", {}));
  assert.equal(refused.error.code, -32602);
  assert.equal(refused.error.message, "Writes are disabled: start with --allow-write.");
  assert.deepEqual(refused.error.data, { name: "write_thing", available: false });
  const unknown = await one(server, toolCall(3, "other", {}));
  assert.equal(unknown.error.message, "Unknown tool");
});

Deno.test("tools/list passes input and output schemas through verbatim, required fields included", async () => {
  const server = new McpServer({ name: "t", version: "1" });
  const outputSchema = {
    type: "object",
    properties: { ok: { type: "boolean" }, value: { type: "string" } },
    required: ["ok"],
    additionalProperties: false,
  };
  const inputSchema = { type: "object", properties: { x: { type: "string" } }, required: ["x"] };
  server.addTool({
    name: "typed",
    description: "Typed answers.",
    inputSchema,
    outputSchema,
    allowStructured: true,
    handler: () => ({ text: '{"ok":true}' }),
  });
  const listed = (await one(server, request(1, "tools/list"))).result.tools[0];
  assert.deepEqual(listed.outputSchema, outputSchema);
  assert.deepEqual(listed.inputSchema, inputSchema);
});
