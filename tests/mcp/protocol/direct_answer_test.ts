/**
 * Direct answers (`DirectAnswer` in server.ts): a tool may have another thread write its answer line
 * itself. Offered only while the transport turns it on, capped by the server's answer budget; the server
 * then sends nothing for the call, and an id whose answer was written may be reused at once.
 */
import assert from "node:assert/strict";
import { McpServer, type ToolCall } from "../../../src/mcp/protocol/mod.ts";
import { resultLine, resultResponse, toWireId } from "../../../src/mcp/protocol/jsonrpc.ts";
import { createOutputLock } from "../../../src/util/output_lock.ts";
import { collector, toolCall } from "./_test_tools.ts";

/** A server whose `direct` tool records its call and answers through `direct` (as a worker would). */
function directServer(maxAnswerBytes?: number) {
  const calls: ToolCall[] = [];
  const release: (() => void)[] = [];
  const server = new McpServer({ name: "t", version: "1", maxAnswerBytes });
  server.addTool({
    name: "direct",
    description: "Answer directly when offered, once released.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: async (_args, call) => {
      calls.push(call);
      if (!call.direct) return { text: "through the server" };
      let written = false;
      call.direct.watch(() => written);
      await new Promise<void>((resolve) => release.push(() => (written = true, resolve())));
      return { text: "", answered: true };
    },
  });
  server.addTool({
    name: "liar",
    description: "Claims a direct answer it was not offered.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: () => ({ text: "", answered: true }),
  });
  return { server, calls, release };
}

Deno.test("direct answers are offered only while the transport enables them, within the answer cap", async () => {
  const { server, calls, release } = directServer(1000);
  const out = collector();
  await server.handleLine(toolCall(1, "direct"), out.send);
  assert.equal(calls[0].direct ?? null, null, "not offered by default");
  assert.equal(out.messages()[0].result.content[0].text, "through the server");

  const outputLock = createOutputLock();
  server.setDirectAnswers({ maxLineBytes: 4096, outputLock });
  const pending = server.handleLine(toolCall("a", "direct"), out.send);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const direct = calls[1].direct!;
  assert.equal(direct.idJson, '"a"');
  assert.equal(direct.outputLock, outputLock, "the transport's output lock travels with the offer");
  assert.equal(direct.maxLineBytes, 1001, "the server's own cap (1000 bytes plus the newline) wins");
  release.shift()!();
  await pending;
  assert.equal(out.lines.length, 1, "nothing sent for a call answered directly");

  server.setDirectAnswers(null);
  await server.handleLine(toolCall(3, "direct"), out.send);
  assert.equal(calls[2].direct ?? null, null, "switched off again");
});

Deno.test("an id answered directly may be reused before its handler has returned", async () => {
  const { server, release } = directServer();
  server.setDirectAnswers({ maxLineBytes: 4096, outputLock: createOutputLock() });
  const out = collector();
  const first = server.handleLine(toolCall(7, "direct"), out.send);
  await new Promise((resolve) => setTimeout(resolve, 0));
  // Still running and not written: the id is busy.
  await server.handleLine(toolCall(7, "direct"), out.send);
  assert.match(out.messages()[0].error.message, /already in use/);
  // Written (the probe says so) but the handler has not returned yet: the client may reuse the id.
  release.shift()!();
  const second = server.handleLine(toolCall(7, "direct"), out.send);
  await first;
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(server.inFlightCount, 1, "the first call's end leaves the second one tracked");
  release.shift()!();
  await second;
  assert.equal(server.inFlightCount, 0);
  assert.equal(out.lines.length, 1, "only the refusal was sent by the server");
});

Deno.test("a handler claiming a direct answer it was not offered gets a failure, not silence", async () => {
  const { server } = directServer();
  const out = collector();
  await server.handleLine(toolCall(1, "liar"), out.send);
  assert.equal(out.messages()[0].result.isError, true);
});

Deno.test("resultLine builds the very line resultResponse does", () => {
  for (const [value, raw] of [[7, undefined], ["x\u2028", undefined], [1, "1.0"]] as const) {
    const id = toWireId(value, raw)!;
    const result = { content: [{ type: "text", text: "é\u0001" }], isError: false };
    assert.equal(resultLine(JSON.stringify(id.wire), JSON.stringify(result)), resultResponse(id, result));
  }
});
