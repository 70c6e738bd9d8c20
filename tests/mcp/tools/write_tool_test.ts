/** `bxp_write_config`'s own argument checks (the catalog checks the schema first; these hold without it). */
import assert from "node:assert/strict";
import type { ToolCall, ToolResult } from "../../../src/mcp/protocol/mod.ts";
import { WRITE_TOOL, writeArgs } from "../../../src/mcp/tools/write_tool.ts";

const call: ToolCall = {
  name: "bxp_write_config",
  requestId: 1,
  signal: new AbortController().signal,
  progress: () => {},
  fail: (message: string): ToolResult => ({ text: `error: ${message}`, isError: true }),
};

Deno.test("writeArgs names the argument and the type it got", () => {
  const cases: [Record<string, unknown> | null, string][] = [
    [null, "error: missing 'path'"],
    [{ config: "{}" }, "error: missing 'path'"],
    [{ path: 5, config: "{}" }, "error: expected a string for 'path', got number"],
    [{ path: "a.json" }, "error: missing 'config'"],
    [{ path: "a.json", config: ["{}"] }, "error: expected a string for 'config', got array"],
    [
      { path: "a.json", config: "{}", overwrite: "yes" },
      "error: expected a boolean for 'overwrite', got string",
    ],
    [
      { path: "a.json", config: "{}", create_dirs: 1 },
      "error: expected a boolean for 'create_dirs', got number",
    ],
  ];
  for (const [args, message] of cases) {
    const result = writeArgs(args, call);
    assert.ok("text" in result, JSON.stringify(args));
    assert.equal((result as ToolResult).text, message);
  }
  assert.deepEqual(writeArgs({ path: "a.json", config: "{}", max_bytes: 100 }, call), {
    path: "a.json",
    config: "{}",
    overwrite: false,
    createDirs: false,
  });
  assert.deepEqual(writeArgs({ path: "a.json", config: "{}", overwrite: true, create_dirs: true }, call), {
    path: "a.json",
    config: "{}",
    overwrite: true,
    createDirs: true,
  });
});

Deno.test("the write tool's input schema is exact and documents create_dirs", () => {
  const schema = WRITE_TOOL.inputSchema as {
    additionalProperties: unknown;
    required: string[];
    properties: object;
  };
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(schema.required, ["path", "config"]);
  assert.deepEqual(Object.keys(schema.properties), ["path", "config", "overwrite", "create_dirs"]);
  assert.match(WRITE_TOOL.description, /create_dirs: true/);
  assert.match(WRITE_TOOL.description, /\.git, .*node_modules/);
});
