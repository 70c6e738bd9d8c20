import assert from "node:assert/strict";
import { createBxpServer, WRITES_NEED_FIXED_ROOT } from "../../src/mcp/bxp_server.ts";
import { ProjectRoot } from "../../src/mcp/security/paths.ts";
import { SERVER_INSTRUCTIONS } from "../../src/mcp/help.ts";
import { denoSimulateHost } from "../../src/mcp/simulate/mod.ts";
import { BXP_TOOLS } from "../../src/mcp/tools/catalog.ts";
import { VERSION } from "../../src/version.ts";

Deno.test("createBxpServer announces bxp-mcp with title, version and instructions, and registers the catalog", async () => {
  const server = createBxpServer({ log: () => {}, simulateHost: denoSimulateHost(() => {}) });
  assert.deepEqual(server.toolNames, BXP_TOOLS.filter((t) => !t.requiresWrite).map((t) => t.name));
  const root = await ProjectRoot.open(await Deno.makeTempDir({ prefix: "bxp-server-" }));
  const writing = createBxpServer({
    log: () => {},
    simulateHost: denoSimulateHost(() => {}),
    allowWrite: true,
    root,
  });
  assert.deepEqual(writing.toolNames, BXP_TOOLS.map((t) => t.name));
  // Writes need a fixed root: without one the writing tool stays off, with guidance.
  const rootless = createBxpServer({
    log: () => {},
    simulateHost: denoSimulateHost(() => {}),
    allowWrite: true,
  });
  assert.deepEqual(rootless.toolNames, server.toolNames);
  const refusal: Record<string, unknown>[] = [];
  await rootless.handleLine(
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bxp_write_config","arguments":{}}}',
    (json) => refusal.push(JSON.parse(json)),
  );
  assert.deepEqual((refusal[0].error as Record<string, unknown>).message, WRITES_NEED_FIXED_ROOT);
  await Deno.remove(root.path, { recursive: true });
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
