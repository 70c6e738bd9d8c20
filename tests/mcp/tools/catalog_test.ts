/** The catalog's shape and every handler, driven in-process through the protocol core. */
import assert from "node:assert/strict";
import { McpServer } from "../../../src/mcp/protocol/mod.ts";
import { BXP_TOOLS, MAX_BYTES_CAP, registerBxpTools } from "../../../src/mcp/tools/catalog.ts";
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

const BXP_NINE = [
  "bxp_validate",
  "bxp_validate_expr",
  "bxp_eval",
  "bxp_eval_batch",
  "bxp_eval_trace",
  "bxp_docs",
  "bxp_list_templates",
  "bxp_fetch_template",
  "bxp_simulate",
];

Deno.test("the catalog starts with bxp's nine tools in bxp's order and ends with bxp_write_config; every schema is exact", () => {
  assert.deepEqual(BXP_TOOLS.slice(0, 9).map((t) => t.name), BXP_NINE);
  assert.equal(BXP_TOOLS.at(-1)!.name, "bxp_write_config");
  assert.deepEqual(
    [
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
    ].filter((name) => BXP_TOOLS.some((t) => t.name === name)).length,
    10,
  );
  assert.deepEqual(BXP_TOOLS.filter((t) => t.requiresWrite).map((t) => t.name), ["bxp_write_config"]);
  for (const tool of BXP_TOOLS) {
    if (BXP_NINE.includes(tool.name)) {
      assert.equal(tool.allowStructured, !["bxp_eval_trace", "bxp_docs"].includes(tool.name), tool.name);
    }
    assert.equal(tool.inputSchema.type, "object");
    assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name}: exact input schema`);
    assert.ok(tool.description.length > 40 && tool.title.length > 0, tool.name);
    if (tool.outputSchema !== undefined) {
      const required = tool.outputSchema.required ?? tool.outputSchema.anyOf;
      assert.ok(Array.isArray(required) && required.length > 0, `${tool.name}: outputSchema names required`);
    }
  }
  const required = Object.fromEntries(
    BXP_TOOLS.filter((t) => [...BXP_NINE, "bxp_write_config"].includes(t.name)).map((t) => [
      t.name,
      t.inputSchema.required,
    ]),
  );
  assert.deepEqual(required, {
    bxp_validate: undefined,
    bxp_validate_expr: ["expr"],
    bxp_eval: ["expr"],
    bxp_eval_batch: ["headers", "fields", "exprs"],
    bxp_eval_trace: ["expr"],
    bxp_docs: undefined,
    bxp_list_templates: undefined,
    bxp_fetch_template: ["template"],
    bxp_simulate: ["template"],
    bxp_write_config: ["path", "config"],
  });
  const simulate = BXP_TOOLS.find((t) => t.name === "bxp_simulate")!;
  const simulateArgs = Object.keys(simulate.inputSchema.properties as object);
  for (const name of ["config", "template", "csv", "workspace", "path", "csv_path"]) {
    assert.ok(simulateArgs.includes(name), name);
  }
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
  for (const tool of tools) {
    const schema = tool.inputSchema as { properties: Record<string, { maximum?: number }> };
    assert.ok(schema.properties.max_bytes, `${tool.name} takes max_bytes`);
    const own = BXP_TOOLS.find((t) => t.name === tool.name)!.inputSchema.properties as Record<
      string,
      unknown
    >;
    if (!("max_bytes" in own)) {
      assert.equal(schema.properties.max_bytes.maximum, MAX_BYTES_CAP, String(tool.name));
    }
  }
});

Deno.test("the config tools answer the inspect API's text", async () => {
  const validated = await call("bxp_validate", { config: CONFIG });
  assert.equal(validated.text, annotateConfig(CONFIG, "<config>").json);
  assert.deepEqual(
    (validated.structured as Record<string, unknown>).annotated,
    JSON.parse(validated.text),
    "the annotated config sits beside the verdict",
  );
  assert.equal((await call("bxp_list_templates", { config: CONFIG })).text, listTemplates(CONFIG));
  const fetched = await call("bxp_fetch_template", { config: CONFIG, id: "a" });
  assert.equal(fetched.text, fetchTemplate(CONFIG, "a").json);
  assert.equal((fetched.structured as Record<string, unknown>).file_pattern_in, ".csv");
  const byTemplate = await call("bxp_fetch_template", { config: CONFIG, template: "a" });
  assert.equal(byTemplate.text, fetched.text, "template is the argument's name; id stays an alias");
  const absent = await call("bxp_fetch_template", { config: CONFIG, template: "zz" });
  assert.equal(absent.isError, false, "an absent id is a domain answer");
  assert.deepEqual(JSON.parse(absent.text), { $err_1: "template id 'zz' not found", available: ["a"] });
  const docs = JSON.parse((await call("bxp_docs")).text);
  const full = JSON.parse(docsJson());
  assert.deepEqual(Object.keys(docs), Object.keys(full));
  assert.deepEqual(docs.functions, full.functions);
  assert.deepEqual(Object.keys(docs.config_schema[0]), [
    "key",
    "type_name",
    "required",
    "default",
    "description",
    "enum_values",
  ]);
});

Deno.test("bxp_validate's verdict counts and lists the findings beside the annotated config", async () => {
  const broken = `{ conversion_templates: { a: { data_dir: ".", file_pattern_in: ".csv",
    input_schema: { $x: "NOPE([A])" }, output_schema: { x: "$x" }, colour: 1 } } }`;
  const result = await call("bxp_validate", { config: broken });
  assert.equal(result.isError, false, "a config with errors is a domain answer");
  const verdict = result.structured as {
    ok: boolean;
    errors: number;
    warnings: number;
    findings: { severity: string; code: string; path: string; message: string }[];
    annotated: Record<string, unknown>;
  };
  assert.equal(verdict.ok, false);
  assert.equal(verdict.errors, verdict.findings.filter((f) => f.severity === "error").length);
  assert.ok(verdict.errors >= 1);
  const unknownFn = verdict.findings.find((f) => f.code === "expr.UnknownFunction");
  assert.ok(unknownFn, JSON.stringify(verdict.findings));
  assert.match(unknownFn.path, /input_schema/);
  assert.ok(verdict.findings.some((f) => f.code === "config.unknown_key" && f.path.endsWith("colour")));
  assert.deepEqual(verdict.annotated, JSON.parse(result.text));
  const syntax = (await call("bxp_validate", { config: "{ a: 1,, }" })).structured as {
    ok: boolean;
    findings: { line?: number; column?: number }[];
  };
  assert.equal(syntax.ok, false);
  assert.equal(syntax.findings[0].line, 1);
  assert.ok((syntax.findings[0].column ?? 0) > 1);
  const sound = CONFIG.replace(
    'file_pattern_in: ".csv",',
    'file_pattern_in: ".csv", file_pattern_out: "_out.csv",',
  );
  const clean = (await call("bxp_validate", { config: sound })).structured as { ok: boolean; errors: number };
  assert.deepEqual([clean.ok, clean.errors], [true, 0], JSON.stringify(clean));
});

Deno.test("bxp_docs narrows to a section or a name, and lists the valid names for an unknown one", async () => {
  const section = JSON.parse((await call("bxp_docs", { section: "date_tokens" })).text);
  assert.deepEqual(Object.keys(section), ["date_tokens"]);
  assert.deepEqual(section.date_tokens, JSON.parse(docsJson()).date_tokens);
  const fn = JSON.parse((await call("bxp_docs", { name: "date_convert" })).text);
  assert.deepEqual(fn.functions.map((f: { name: string }) => f.name), ["DATE_CONVERT"]);
  const key = JSON.parse((await call("bxp_docs", { name: "csv_delimiter_in" })).text);
  assert.deepEqual(key.config_schema.map((k: { key: string }) => k.key), [
    "conversion_templates.*.csv_delimiter_in",
  ]);
  const unknown = await call("bxp_docs", { name: "DATE_CONVRT" });
  assert.equal(unknown.isError, true);
  assert.match(
    unknown.text,
    /no function or config key named 'DATE_CONVRT' \(did you mean 'DATE_CONVERT'\?\)/,
  );
  assert.match(unknown.text, /UPPER/);
  const badSection = await call("bxp_docs", { section: "function" });
  assert.equal(badSection.isError, true);
  assert.match(
    badSection.text,
    /'section' must be one of .*"functions".*got "function" \(did you mean "functions"\?\)/,
  );
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
  const mapped = await call("bxp_eval", {
    expr: "REMAP([C], 'm') & LOOKUP('r', 'EUR', 'rate')",
    headers: ["C"],
    fields: ["a"],
    maps: { m: { a: "b" } },
    lookups: { "r\u0000EUR\u0000rate": "1.1" },
  });
  assert.deepEqual(JSON.parse(mapped.text), { ok: true, value: "b1.1" }, "bxp_eval takes maps and lookups");
  const batch = await call("bxp_eval_batch", {
    headers: ["P"],
    fields: ["7"],
    exprs: ["[P] * 2", "REMAP('a', 'm')"],
    maps: { m: { a: "b" } },
  });
  assert.deepEqual(JSON.parse(batch.text), {
    results: [{ ok: true, value: "14" }, { ok: true, value: "b" }],
  });
  const traced = await call("bxp_eval_trace", { expr: "REMAP('a', 'm')", maps: { m: { a: "b" } } });
  assert.deepEqual(JSON.parse(traced.text.trimEnd().split("\n").at(-1)!), { t: "final", value: "b" });
  const trace = await call("bxp_eval_trace", { expr: "NOPE()" });
  assert.equal(trace.isError, false);
  assert.equal(trace.structured, undefined);
  const last = JSON.parse(trace.text.trimEnd().split("\n").at(-1)!);
  assert.equal(last.t, "error");
  assert.ok(trace.text.endsWith("\n"));
});

Deno.test("missing or malformed arguments are tool failures that name the argument and the fix", async () => {
  const missingConfig = "error: missing 'config' (or 'path': a config file under the project root)";
  const cases: [string, unknown, string][] = [
    ["bxp_validate", {}, missingConfig],
    ["bxp_validate_expr", { expr: 1 }, "error: expected a string for 'expr', got number"],
    ["bxp_eval", undefined, "error: missing 'expr'"],
    ["bxp_eval", { expr: null }, "error: missing 'expr'"],
    ["bxp_eval", { expr: "1", headers: ["a", 2] }, "error: expected a string for 'headers[1]', got number"],
    [
      "bxp_eval_trace",
      { expr: "1", fields: 7 },
      "error: expected an array of strings or a string for 'fields', got number",
    ],
    [
      "bxp_eval_trace",
      { expr: "1", fields: "[1,2]" },
      `error: 'headers' and 'fields' must be arrays of strings, e.g. ["Date","Price"]`,
    ],
    ["bxp_eval_batch", { fields: [], exprs: [] }, "error: missing 'headers'"],
    ["bxp_eval_batch", undefined, "error: missing 'headers'"],
    [
      "bxp_eval_batch",
      { headers: [], fields: [], exprs: [], maps: { m: { a: 1 } } },
      "error: expected a string for 'maps.m.a', got number",
    ],
    ["bxp_fetch_template", { config: "{}" }, "error: missing 'template'"],
    ["bxp_fetch_template", { path: 7, template: "a" }, "error: expected a string for 'path', got number"],
    [
      "bxp_fetch_template",
      { config: "{}", template: "a", id: "b" },
      "error: give 'template' or its older name 'id', not both",
    ],
    ["bxp_simulate", { config: "{}", csv: "" }, "error: missing 'template'"],
    [
      "bxp_eval",
      { expr: "1", header: ["A"] },
      "error: unknown argument 'header' (did you mean 'headers'?); this tool takes: expr, headers, fields, maps, lookups, single_prepass_name, decimal_separator, template, config, path, max_bytes",
    ],
    [
      "bxp_docs",
      { sections: "functions", x: 1 },
      "error: unknown arguments 'sections' (did you mean 'section'?), 'x'; this tool takes: section, name, max_bytes",
    ],
    [
      "bxp_docs",
      { max_bytes: 10 * 1024 * 1024 },
      `error: 'max_bytes' must be at most ${MAX_BYTES_CAP}, got 10485760`,
    ],
    ["bxp_docs", { max_bytes: "big" }, "error: expected an integer for 'max_bytes', got string"],
  ];
  for (const [name, args, text] of cases) {
    const result = await call(name, args);
    assert.equal(result.isError, true, name);
    assert.equal(result.text, text, name);
    assert.equal(result.structured, undefined);
  }
});

Deno.test("an answer over its max_bytes budget is a failure that says its size and how to narrow it", async () => {
  const docs = await call("bxp_docs", { max_bytes: 2048 });
  assert.equal(docs.isError, true);
  assert.match(
    docs.text,
    /^error: the bxp_docs answer is \d+ bytes, over this call's max_bytes budget of 2048: ask for one section or one name, or raise max_bytes/,
  );
  const narrowed = await call("bxp_docs", { name: "UPPER", max_bytes: 2048 });
  assert.equal(narrowed.isError, false, narrowed.text);
  const big = await call("bxp_eval", { expr: "[A]", headers: ["A"], fields: ["x".repeat(300_000)] });
  assert.equal(big.isError, true, "the default budget applies to every tool");
  assert.match(big.text, /over this call's max_bytes budget of 262144/);
  const allowed = await call("bxp_eval", {
    expr: "[A]",
    headers: ["A"],
    fields: ["x".repeat(300_000)],
    max_bytes: 1024 * 1024,
  });
  assert.equal(JSON.parse(allowed.text).value.length, 300_000);
});
