/** The catalog's shape and every handler, driven in-process through the protocol core. */
import assert from "node:assert/strict";
import { McpServer } from "../../../src/mcp/protocol/mod.ts";
import { BXP_TOOLS, registerBxpTools } from "../../../src/mcp/tools/catalog.ts";
import { type SimulateHost, Simulator } from "../../../src/mcp/simulate/mod.ts";
import { annotateConfig, docsJson, fetchTemplate, listTemplates } from "../../../src/inspect/mod.ts";

type Wire = Record<string, unknown> & { result?: Record<string, unknown>; error?: { code: number } };

const unusedHost: SimulateHost = {
  tempBase: () => "/nonexistent",
  locateCli: () => Promise.reject(new Error("not used")),
  childEnv: () => ({}),
  timeoutMs: 1000,
  log: () => {},
};

function server(): McpServer {
  const s = new McpServer({ name: "t", version: "0" });
  registerBxpTools(s, {
    simulator: new Simulator(unusedHost),
    root: () => Promise.resolve(null),
    allowWrite: false,
  });
  return s;
}

async function call(
  name: string,
  args?: unknown,
): Promise<{ text: string; isError: boolean; structured?: unknown }> {
  const out: Wire[] = [];
  const params: Record<string, unknown> = { name };
  if (args !== undefined) params.arguments = args;
  await server().handleLine(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
    (json) => out.push(JSON.parse(json)),
  );
  assert.equal(out.length, 1);
  const result = out[0].result as {
    content: { text: string }[];
    isError: boolean;
    structuredContent?: unknown;
  };
  return { text: result.content[0].text, isError: result.isError, structured: result.structuredContent };
}

const CONFIG = `{
  // a comment, JSON5 style
  conversion_templates: {
    a: { data_dir: ".", file_pattern_in: ".csv", input_schema: { $x: "[A]" }, output_schema: { x: "$x" } },
  },
}`;

Deno.test("the catalog has bxp's nine tools in bxp's order plus bxp_write_config, structured output everywhere but eval_trace", () => {
  assert.deepEqual(BXP_TOOLS.map((t) => t.name), [
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
  ]);
  assert.deepEqual(BXP_TOOLS.filter((t) => t.requiresWrite).map((t) => t.name), ["bxp_write_config"]);
  for (const tool of BXP_TOOLS) {
    assert.equal(tool.allowStructured, tool.name !== "bxp_eval_trace", tool.name);
    assert.equal(tool.inputSchema.type, "object");
    assert.ok(tool.description.length > 40 && tool.title.length > 0, tool.name);
  }
  const required = Object.fromEntries(BXP_TOOLS.map((t) => [t.name, t.inputSchema.required]));
  assert.deepEqual(required, {
    bxp_validate: undefined,
    bxp_validate_expr: ["expr"],
    bxp_eval: ["expr"],
    bxp_eval_batch: ["headers", "fields", "exprs"],
    bxp_eval_trace: ["expr"],
    bxp_docs: [],
    bxp_list_templates: undefined,
    bxp_fetch_template: ["id"],
    bxp_simulate: ["template"],
    bxp_write_config: ["path", "config"],
  });
  const simulate = BXP_TOOLS.find((t) => t.name === "bxp_simulate")!;
  assert.deepEqual(Object.keys(simulate.inputSchema.properties as object), [
    "config",
    "template",
    "csv",
    "workspace",
    "path",
    "csv_path",
  ]);
  assert.ok(simulate.outputSchema);
});

Deno.test("tools/list reports the catalog verbatim", async () => {
  const out: Wire[] = [];
  await server().handleLine(
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    (json) => out.push(JSON.parse(json)),
  );
  const tools = (out[0].result as { tools: Record<string, unknown>[] }).tools;
  assert.deepEqual(tools.map((t) => t.name), BXP_TOOLS.filter((t) => !t.requiresWrite).map((t) => t.name));
  assert.deepEqual(tools[8].outputSchema, BXP_TOOLS[8].outputSchema);
  assert.equal(tools[4].outputSchema, undefined);
});

Deno.test("the config tools answer the inspect API's text", async () => {
  assert.equal(
    (await call("bxp_validate", { config: CONFIG })).text,
    annotateConfig(CONFIG, "<config>").json,
  );
  assert.equal((await call("bxp_list_templates", { config: CONFIG })).text, listTemplates(CONFIG));
  const fetched = await call("bxp_fetch_template", { config: CONFIG, id: "a" });
  assert.equal(fetched.text, fetchTemplate(CONFIG, "a").json);
  assert.equal((fetched.structured as Record<string, unknown>).file_pattern_in, ".csv");
  const absent = await call("bxp_fetch_template", { config: CONFIG, id: "zz" });
  assert.equal(absent.isError, false, "an absent id is a domain answer");
  assert.ok(Object.keys(JSON.parse(absent.text))[0].startsWith("$err_"));
  assert.equal((await call("bxp_docs")).text, docsJson());
});

Deno.test("the expression tools answer bxp's shapes; domain failures keep isError false", async () => {
  assert.deepEqual(
    JSON.parse((await call("bxp_eval", { expr: "[A] & [B]", headers: ["A", "B"], fields: ["x", "y"] })).text),
    {
      ok: true,
      value: "xy",
    },
  );
  assert.deepEqual(
    JSON.parse((await call("bxp_eval", { expr: "[A]", headers: '["A"]', fields: '["v"]' })).text),
    {
      ok: true,
      value: "v",
    },
  );
  const bad = await call("bxp_eval", { expr: "NOPE(1)" });
  assert.equal(bad.isError, false);
  assert.equal((bad.structured as { ok: boolean }).ok, false);
  assert.deepEqual(JSON.parse((await call("bxp_validate_expr", { expr: "UPPER('hi')" })).text), { ok: true });
  const batch = await call("bxp_eval_batch", {
    headers: ["P"],
    fields: ["7"],
    exprs: ["[P] * 2", "REMAP('a', 'm')"],
    maps: { m: { a: "b" } },
  });
  assert.deepEqual(JSON.parse(batch.text), {
    results: [{ ok: true, value: "14" }, { ok: true, value: "b" }],
  });
  const trace = await call("bxp_eval_trace", { expr: "NOPE()" });
  assert.equal(trace.isError, false);
  assert.equal(trace.structured, undefined);
  const last = JSON.parse(trace.text.trimEnd().split("\n").at(-1)!);
  assert.equal(last.t, "error");
  assert.ok(trace.text.endsWith("\n"));
});

Deno.test("missing or malformed arguments are tool failures with bxp's texts", async () => {
  const cases: [string, unknown, string][] = [
    ["bxp_validate", {}, "error: missing 'config'"],
    ["bxp_validate_expr", { expr: 1 }, "error: missing 'expr'"],
    ["bxp_eval", undefined, "error: missing 'expr'"],
    [
      "bxp_eval",
      { expr: "1", headers: ["a", 2] },
      `error: 'headers' must be an array of strings, e.g. ["Date","Price"]`,
    ],
    [
      "bxp_eval_trace",
      { expr: "1", fields: 7 },
      `error: 'fields' must be an array of strings, e.g. ["Date","Price"]`,
    ],
    [
      "bxp_eval_trace",
      { expr: "1", fields: "[1,2]" },
      `error: 'headers' and 'fields' must be arrays of strings, e.g. ["Date","Price"]`,
    ],
    ["bxp_eval_batch", { fields: [], exprs: [] }, "error: missing 'headers' in eval_batch request"],
    ["bxp_eval_batch", undefined, "error: eval_batch request must be a JSON object"],
    ["bxp_list_templates", { config: null }, "error: missing 'config'"],
    ["bxp_fetch_template", { config: "{}" }, "error: missing 'id'"],
    ["bxp_fetch_template", { id: "a" }, "error: missing 'config'"],
    ["bxp_simulate", { config: "{}", csv: "" }, "error: missing 'template'"],
    ["bxp_simulate", { config: "{}", template: "t" }, "error: missing 'csv'"],
  ];
  for (const [name, args, text] of cases) {
    const result = await call(name, args);
    assert.equal(result.isError, true, name);
    assert.equal(result.text, text, name);
    assert.equal(result.structured, undefined);
  }
});
