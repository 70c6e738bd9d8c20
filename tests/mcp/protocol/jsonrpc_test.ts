import assert from "node:assert/strict";
import {
  ErrorCode,
  errorResponse,
  MAX_ID_LENGTH,
  notificationMessage,
  resultResponse,
  toWireId,
} from "../../../src/mcp/protocol/jsonrpc.ts";

Deno.test("error codes are the JSON-RPC and MCP constants", () => {
  assert.deepEqual(
    [
      ErrorCode.parseError,
      ErrorCode.invalidRequest,
      ErrorCode.methodNotFound,
      ErrorCode.invalidParams,
      ErrorCode.internalError,
      ErrorCode.resourceNotFound,
    ],
    [-32700, -32600, -32601, -32602, -32603, -32002],
  );
});

Deno.test("string and finite number ids are accepted, everything else refused", () => {
  assert.equal(toWireId("abc")?.value, "abc");
  assert.equal(toWireId(0)?.value, 0);
  assert.equal(toWireId(-3.5)?.value, -3.5);
  for (const bad of [null, undefined, true, {}, [], { a: 1 }, NaN, Infinity]) {
    assert.equal(toWireId(bad), null, `id ${String(bad)}`);
  }
  assert.equal(toWireId("x".repeat(MAX_ID_LENGTH))?.value.toString().length, MAX_ID_LENGTH);
  assert.equal(toWireId("x".repeat(MAX_ID_LENGTH + 1)), null);
});

Deno.test("string 1 and number 1 are different requests", () => {
  assert.notEqual(toWireId("1")?.key, toWireId(1)?.key);
});

Deno.test("a number id keeps its source digits on the wire", () => {
  const id = toWireId(12345678901234567000, "12345678901234567890");
  assert.ok(id);
  assert.equal(resultResponse(id, {}), '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}');
});

Deno.test("responses and notifications are single JSON lines with the expected members", () => {
  const id = toWireId("req-1");
  assert.ok(id);
  assert.equal(resultResponse(id, { a: "x\ny" }), '{"jsonrpc":"2.0","id":"req-1","result":{"a":"x\\ny"}}');
  assert.equal(
    errorResponse(null, ErrorCode.parseError, "Parse error"),
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
  );
  assert.deepEqual(JSON.parse(errorResponse(id, -32601, "Method not found", { method: "x" })), {
    jsonrpc: "2.0",
    id: "req-1",
    error: { code: -32601, message: "Method not found", data: { method: "x" } },
  });
  const note = notificationMessage("notifications/progress", { progressToken: "t", progress: 1 });
  assert.ok(!note.includes("\n"));
  assert.deepEqual(JSON.parse(note), {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "t", progress: 1 },
  });
});
