/** The modern era's per-request metadata and result shaping (`src/mcp/protocol/modern.ts`). */
import assert from "node:assert/strict";
import {
  missingInputCapabilities,
  modernResult,
  modernResultJson,
  readEra,
} from "../../../src/mcp/protocol/modern.ts";

const V = "io.modelcontextprotocol/protocolVersion";
const CAPS = "io.modelcontextprotocol/clientCapabilities";

Deno.test("readEra: the protocol-version key selects the era; legacy versions stay legacy", () => {
  assert.equal(readEra(undefined).era, "legacy");
  assert.equal(readEra({ _meta: { progressToken: 1 } }).era, "legacy");
  assert.equal(readEra({ _meta: { [V]: "2025-11-25" } }).era, "legacy");
  const modern = readEra({ _meta: { [V]: "2026-07-28", [CAPS]: { roots: {} } } });
  assert.equal(modern.era, "modern");
  assert.deepEqual(modern.era === "modern" && modern.request.clientCapabilities, { roots: {} });
  assert.equal(modern.era === "modern" && modern.request.logLevel, null);
});

Deno.test("readEra: refusals carry -32022 with the supported list, or -32602 for malformed fields", () => {
  const unknown = readEra({ _meta: { [V]: "2099-01-01", [CAPS]: {} } });
  assert.equal(unknown.era === "refused" && unknown.code, -32022);
  assert.deepEqual(unknown.era === "refused" && unknown.data, {
    supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
    requested: "2099-01-01",
  });
  for (
    const meta of [
      { [V]: 20260728, [CAPS]: {} },
      { [V]: "2026-07-28" },
      { [V]: "2026-07-28", [CAPS]: [] },
      { [V]: "2026-07-28", [CAPS]: {}, "io.modelcontextprotocol/logLevel": "verbose" },
    ]
  ) {
    const verdict = readEra({ _meta: meta });
    assert.equal(verdict.era === "refused" && verdict.code, -32602, JSON.stringify(meta));
  }
});

Deno.test("modernResultJson splices the same members modernResult builds", () => {
  const info = { name: "s", version: "1" };
  for (const json of ['{"content":[],"isError":false}', "{}", ' { "a" : 1 }']) {
    const spliced = JSON.parse(modernResultJson(json, JSON.stringify(info)));
    assert.deepEqual(spliced, modernResult(JSON.parse(json), info));
    assert.equal(Object.keys(spliced)[0], "resultType");
  }
  const cached = modernResult({ tools: [] }, info, { ttlMs: 5, cacheScope: "public" });
  assert.deepEqual(cached, {
    resultType: "complete",
    tools: [],
    ttlMs: 5,
    cacheScope: "public",
    _meta: { "io.modelcontextprotocol/serverInfo": info },
  });
});

Deno.test("missingInputCapabilities names what an input request needs and the request lacks", () => {
  const roots = { r: { method: "roots/list" } };
  assert.equal(missingInputCapabilities(roots, { roots: {} }), null);
  assert.deepEqual(missingInputCapabilities(roots, {}), { roots: {} });
  assert.deepEqual(missingInputCapabilities({ e: { method: "elicitation/create" } }, { roots: {} }), {
    elicitation: {},
  });
});

Deno.test("a tool's InputRequired: input_required when declared, -32021 when not, a failure in the legacy era", async () => {
  const { McpServer, InputRequired } = await import("../../../src/mcp/protocol/mod.ts");
  const server = new McpServer({ name: "t", version: "1" });
  server.addTool({
    name: "ask",
    description: "Asks the client to elicit.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: () => {
      throw new InputRequired({ who: { method: "elicitation/create", params: { mode: "form" } } }, "st");
    },
  });
  // deno-lint-ignore no-explicit-any
  const out: Record<string, any>[] = [];
  const call = (id: number, caps: Record<string, unknown> | null) =>
    server.handleLine(
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "ask", ...(caps === null ? {} : { _meta: { [V]: "2026-07-28", [CAPS]: caps } }) },
      }),
      (json) => out.push(JSON.parse(json)),
    );
  await call(1, { elicitation: {} });
  await call(2, {});
  await call(3, null);
  assert.equal(out[0].result.resultType, "input_required");
  assert.deepEqual(out[0].result.inputRequests, {
    who: { method: "elicitation/create", params: { mode: "form" } },
  });
  assert.equal(out[0].result.requestState, "st");
  assert.equal(out[1].error.code, -32021);
  assert.deepEqual(out[1].error.data, { requiredCapabilities: { elicitation: {} } });
  assert.equal(out[2].result.isError, true, "the legacy era has no InputRequiredResult");
  assert.equal(out[2].result.resultType, undefined);
});
