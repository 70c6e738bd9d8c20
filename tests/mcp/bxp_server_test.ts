import assert from "node:assert/strict";
import { createBxpServer } from "../../src/mcp/bxp_server.ts";
import { SERVER_INSTRUCTIONS } from "../../src/mcp/help.ts";
import { denoSimulateHost } from "../../src/mcp/simulate/mod.ts";
import { BXP_TOOLS } from "../../src/mcp/tools/catalog.ts";
import { VERSION } from "../../src/version.ts";

Deno.test("createBxpServer announces bxp-mcp with title, version and instructions, and registers the catalog", async () => {
  const server = createBxpServer({ log: () => {}, simulateHost: denoSimulateHost(() => {}) });
  assert.deepEqual(server.toolNames, BXP_TOOLS.filter((t) => !t.requiresWrite).map((t) => t.name));
  const writing = createBxpServer({
    log: () => {},
    simulateHost: denoSimulateHost(() => {}),
    allowWrite: true,
  });
  assert.deepEqual(writing.toolNames, BXP_TOOLS.map((t) => t.name));
  const out: Record<string, unknown>[] = [];
  await server.handleLine(
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}',
    (json) => out.push(JSON.parse(json)),
  );
  const result = out[0].result as Record<string, unknown>;
  assert.equal(result.protocolVersion, "2025-06-18");
  assert.deepEqual(result.serverInfo, {
    name: "bxp-mcp",
    title: "bxp: CSV conversion tools",
    version: VERSION,
  });
  assert.equal(result.instructions, SERVER_INSTRUCTIONS);
});
