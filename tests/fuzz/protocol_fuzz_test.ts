/**
 * Fuzzing the MCP protocol layer with bxp's own tools registered: generated JSON-RPC messages (real and
 * bogus methods, odd ids, random params and tool arguments), mutated valid lines and random text. Every
 * output must be one JSON-RPC message, every request with a usable id gets exactly one answer, nothing
 * rejects, and the server still answers `ping` afterwards.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createBxpServer } from "../../src/mcp/bxp_server.ts";
import { CliNotFoundError, type SimulateHost } from "../../src/mcp/simulate/mod.ts";
import { readTopLevelId } from "../../src/mcp/protocol/guarded_json.ts";
import { parseWireLine, type Wire } from "../mcp/_support/server_process.ts";
import { fuzzParams, mutated, nastyText } from "./_fuzz.ts";

/** A simulate host that never spawns: fuzzed calls must not start processes. */
const inertHost: SimulateHost = {
  tempBase: () => "/nonexistent-bxp-fuzz",
  locateCli: () => Promise.reject(new CliNotFoundError("not in fuzz tests", "-")),
  childEnv: () => ({}),
  timeoutMs: 1000,
  log: () => {},
};

function makeServer() {
  return createBxpServer({ log: () => {}, simulateHost: inertHost });
}

const TOOLS = [
  "bxp_validate",
  "bxp_validate_expr",
  "bxp_eval",
  "bxp_eval_batch",
  "bxp_eval_trace",
  "bxp_docs",
  "bxp_list_templates",
  "bxp_fetch_template",
  "bxp_simulate",
  "bxp_write_config",
  "nope",
];
const METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "prompts/get",
  "notifications/initialized",
  "notifications/cancelled",
  "unknown/method",
];

const id = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(null, 1.5, true, [], {}, 12345678901234567890n),
);
const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 4 }), nastyText);
const toolArgs = fc.dictionary(
  fc.constantFrom(
    "config",
    "expr",
    "headers",
    "fields",
    "exprs",
    "id",
    "template",
    "csv",
    "path",
    "overwrite",
    "x",
  ),
  fc.oneof(anyValue, fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }), fc.string({ maxLength: 40 })),
);
const message = fc.record({
  jsonrpc: fc.constantFrom("2.0", "2.0", "2.0", "1.0", 2),
  id,
  method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 12 })),
  params: fc.oneof(
    fc.record({ name: fc.constantFrom(...TOOLS), arguments: fc.oneof(toolArgs, anyValue) }, {
      requiredKeys: [],
    }),
    fc.record({ requestId: id, protocolVersion: fc.string(), _meta: fc.record({ progressToken: id }) }, {
      requiredKeys: [],
    }),
    anyValue,
  ),
}, { requiredKeys: [] });

/** JSON text, with bigint ids written as bare (over-long) integers. */
const encode = (value: unknown) =>
  JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? `@@${v}@@` : v)).replace(/"@@(\d+)@@"/g, "$1");

const validLines = [
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bxp_eval","arguments":{"expr":"UPPER([a])","headers":["a"],"fields":["x"]}}}',
  '{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"bxp_validate","arguments":{"config":"{conversion_templates:{t:{data_dir:\\".\\"}}}"}}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}',
];
const line = fc.oneof(message.map(encode), mutated(validLines), nastyText, fc.json({ maxDepth: 5 }));

async function feed(lines: string[]): Promise<Wire[]> {
  const server = makeServer();
  const out: Wire[] = [];
  const send = (json: string) => {
    assert.ok(!json.includes("\n"), "one message per line");
    out.push(parseWireLine(json));
  };
  for (const text of lines) await server.handleLine(text, send);
  await server.handleLine('{"jsonrpc":"2.0","id":"final-ping","method":"ping"}', send);
  const pong = out.filter((m) => m.id === "final-ping");
  assert.equal(pong.length, 1, "ping answered once after the fuzzed lines");
  assert.deepEqual(pong[0].result, {});
  return out;
}

Deno.test("fuzz protocol: every output is JSON-RPC and ping still answers", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 8 }), async (lines) => {
      await feed(lines);
    }),
    fuzzParams(1500, 5),
  );
});

Deno.test("fuzz protocol: each request with a fresh valid id gets exactly one answer", async () => {
  await fc.assert(
    fc.asyncProperty(message, fc.integer({ min: 1, max: 1e9 }), async (m, n) => {
      const request = { ...m, jsonrpc: "2.0", id: `req-${n}`, method: m.method ?? "ping" };
      if (request.method.startsWith("notifications/")) return;
      const out = await feed([encode(request)]);
      assert.equal(out.filter((o) => o.id === `req-${n}`).length, 1, encode(request).slice(0, 200));
    }),
    fuzzParams(1500, 5),
  );
});

Deno.test("protocol caps: deep JSON nesting is refused before parsing; a huge id is echoed verbatim", async () => {
  const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":${"[".repeat(100_000)}${
    "]".repeat(100_000)
  }}`;
  const out = await feed([deep]);
  assert.equal(out[0].error.code, -32600);
  assert.match(out[0].error.message, /nests deeper than 64 levels/);
  const server = makeServer();
  const sent: string[] = [];
  await server.handleLine(
    '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
    (j) => sent.push(j),
  );
  assert.equal(sent[0], '{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}');
});

Deno.test("fuzz: the id of a message refused unparsed is read from its raw text exactly as JSON.parse reads it", async () => {
  const members = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
  const anId = fc.oneof(fc.integer(), fc.string({ maxLength: 12 }));
  await fc.assert(
    fc.asyncProperty(
      members,
      anId,
      members,
      fc.integer({ min: 65, max: 300 }),
      async (before, value, after, depth) => {
        // Members named "id" elsewhere would change which id is the message's; keep exactly one.
        delete before.id;
        delete after.id;
        const inner = JSON.stringify({ ...before, id: value, ...after });
        const text = readTopLevelId(inner);
        assert.deepEqual(text?.value, JSON.parse(inner).id, inner);
        // The same message made too deep is still answered to its id.
        const deep = `${inner.slice(0, -1)}${inner.length > 2 ? "," : ""}"pad":${"[".repeat(depth)}${
          "]".repeat(depth)
        }}`;
        const out = (await feed([deep])).filter((m) => m.id !== "final-ping");
        assert.equal(out.length, 1);
        assert.equal(out[0].error.code, -32600);
        assert.equal(out[0].id, value, deep.slice(0, 200));
      },
    ),
    fuzzParams(300, 5),
  );
});
