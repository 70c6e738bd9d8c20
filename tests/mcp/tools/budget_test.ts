import assert from "node:assert/strict";
import {
  answerBytes,
  DEFAULT_MAX_BYTES,
  MAX_BYTES_PROP,
  overBudget,
  withMaxBytes,
} from "../../../src/mcp/tools/budget.ts";
import { toCallToolResult } from "../../../src/mcp/protocol/tool_result.ts";

Deno.test("answerBytes is the wire size of the result once it could be over the budget", () => {
  const result = { text: '{"ok":true,"value":"' + "é".repeat(1000) + '"}' };
  const exact = new TextEncoder().encode(JSON.stringify(toCallToolResult(result, true))).length;
  assert.equal(answerBytes(result, true, 100), exact, "text and its structured copy both count");
  assert.ok(answerBytes(result, true, DEFAULT_MAX_BYTES) <= DEFAULT_MAX_BYTES, "a cheap bound within budget");
  const structured = { text: "short", structured: { big: "x".repeat(5000) } };
  assert.ok(answerBytes(structured, true, DEFAULT_MAX_BYTES) > 5000, "explicit structured content counts");
});

Deno.test("withMaxBytes adds the budget argument unless the entry declares its own; overBudget says what to do", () => {
  const schema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
  assert.deepEqual(withMaxBytes(schema).properties, { a: { type: "string" }, max_bytes: MAX_BYTES_PROP });
  assert.equal(Object.keys(schema.properties).length, 1, "the entry's schema is left as written");
  const own = { type: "object", properties: { max_bytes: { type: "integer", minimum: 8192 } } };
  assert.equal(withMaxBytes(own), own);
  const failure = overBudget("bxp_docs", 5000, 2048, "ask for one section");
  assert.equal(failure.isError, true);
  assert.equal(
    failure.text,
    "error: the bxp_docs answer is 5000 bytes, over this call's max_bytes budget of 2048: ask for one " +
      "section, or raise max_bytes (at most 4194304)",
  );
});
