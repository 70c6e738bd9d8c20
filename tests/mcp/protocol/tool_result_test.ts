import assert from "node:assert/strict";
import { singleJsonObject, toCallToolResult, toolFailure } from "../../../src/mcp/protocol/tool_result.ts";
import { parseJsonFaithfully } from "../../../src/mcp/protocol/guarded_json.ts";

Deno.test("only a single JSON object counts as structured", () => {
  assert.deepEqual(singleJsonObject('{"ok":true}'), { ok: true });
  assert.deepEqual(singleJsonObject('  {"ok":false,"n":[1,2]}\n'), { ok: false, n: [1, 2] });
  for (const text of ['[{"a":1}]', '"s"', "3", "null", "true", '{"a":1}\n{"b":2}\n', "{]", "{", "", "text"]) {
    assert.equal(singleJsonObject(text), undefined, JSON.stringify(text));
  }
});

Deno.test("structuredContent is added when allowed and the text is one object", () => {
  const text = '{"ok":true,"value":"3"}';
  assert.deepEqual(toCallToolResult({ text }, true), {
    content: [{ type: "text", text }],
    structuredContent: { ok: true, value: "3" },
    isError: false,
  });
});

Deno.test("structuredContent is never added for a tool that does not allow it", () => {
  const result = toCallToolResult({ text: '{"t":"final","value":"2"}' }, false);
  assert.equal("structuredContent" in result, false);
  assert.equal(result.isError, false);
});

Deno.test("failures carry isError true and no structuredContent", () => {
  const result = toCallToolResult({ text: '{"ok":false}', isError: true }, true);
  assert.equal("structuredContent" in result, false);
  assert.equal(result.isError, true);
});

Deno.test("isError is always present", () => {
  assert.equal(toCallToolResult({ text: "plain" }, true).isError, false);
  assert.equal("structuredContent" in toCallToolResult({ text: "plain" }, true), false);
});

Deno.test("the structured copy serialises with the same number digits as the text", () => {
  const text = '{"rate":2204.39463319000,"big":12345678901234567890}';
  const result = toCallToolResult({ text }, true);
  assert.equal(JSON.stringify(result.structuredContent), text);
});

Deno.test("toolFailure formats the bxp failure text", () => {
  assert.deepEqual(toolFailure("missing 'expr'"), { text: "error: missing 'expr'", isError: true });
});

Deno.test("the structured copy serialises like the text whichever parse path built it", () => {
  const texts = [
    '{"ok":true,"value":"2024-06-18"}',
    '{"a":1.50,"b":[1,2e3,-0],"c":{"d":null}}',
    '{"s":"\\u00e9\\/","n":1}',
    '{"a":1,"a":2}',
    ' {"ok":true}\n',
  ];
  for (const text of texts) {
    const fast = JSON.stringify(singleJsonObject(text));
    const faithful = JSON.stringify(parseJsonFaithfully(text));
    assert.equal(fast, faithful, text);
  }
  const deep = '{"a":' + "[".repeat(300) + "]".repeat(300) + "}";
  assert.equal(singleJsonObject(deep), undefined, "nesting the faithful parse refuses is refused too");
});
