/**
 * Fuzzing the real bxp-mcp process over stdio (started with the bxp-mcp task's flags): hundreds of
 * generated, mutated and random lines, odd Unicode and a long junk line, then a ping must be
 * answered, every stdout byte must belong to a JSON-RPC line (the test harness parses each one), and the
 * process must exit 0 when stdin closes.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ServerProcess } from "../mcp/_support/server_process.ts";
import { FUZZ_SEED, mutated, nastyText } from "./_fuzz.ts";

const VALID = [
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bxp_eval","arguments":{"expr":"ROUND([p]*2, 1)","headers":["p"],"fields":["1.25"]}}}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bxp_validate_expr","arguments":{"expr":"SPLIT_PART([a], \'/\', 0)"}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bxp_list_templates","arguments":{"config":"{conversion_templates:{t:{data_dir:\\".\\"}}}"}}}',
  '{"jsonrpc":"2.0","id":5,"method":"tools/list"}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}',
];

Deno.test({
  name: "fuzz process: random and mutated lines never pollute stdout, and ping still answers",
  async fn() {
    const lines = fc.sample(fc.oneof(mutated(VALID), nastyText, fc.json({ maxDepth: 4 })), {
      seed: FUZZ_SEED,
      numRuns: 400,
    }).map((text) => text.replaceAll("\n", " "));
    const server = await ServerProcess.start();
    try {
      await server.send(VALID[0]);
      await server.response(1);
      for (const text of lines) await server.send(text);
      await server.send(new TextDecoder("latin1").decode(new Uint8Array([0xff, 0xfe, 0x7b])));
      await server.send("x".repeat(64 * 1024));
      await server.send({ jsonrpc: "2.0", id: "after-fuzz", method: "ping" });
      const pong = await server.response("after-fuzz", 30_000);
      assert.deepEqual(pong.result, {});
      assert.equal(await server.close(), 0);
      assert.ok(server.messages.length > 100, `the server answered (${server.messages.length} messages)`);
    } finally {
      await server.dispose();
    }
  },
});
