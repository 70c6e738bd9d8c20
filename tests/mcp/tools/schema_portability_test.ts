/**
 * Every tool's `inputSchema`, as a real bxp-mcp lists it (with `--allow-write`, so `bxp_write_config` is
 * listed too), against the schema subsets model APIs and MCP clients' own schema rewriters accept. Each
 * rule is a named check citing where the restriction is documented or reported; a rule a schema breaks on
 * purpose is listed in KNOWN_GAPS with the reason. The old shapes (a row as a JSON string, bxp's map and
 * lookup objects) are no longer declared but still accepted: checked through the same process.
 */
import assert from "node:assert/strict";
import { ServerProcess, type Wire } from "../_support/server_process.ts";

type Schema = Record<string, unknown>;

/** One sub-schema and where it sits (`bxp_eval.maps.items.key`). */
interface Node {
  schema: Schema;
  at: string;
  /** Levels below the tool's argument object (an argument is depth 1). */
  depth: number;
}

/** Every sub-schema of `schema`, itself included. */
function nodes(schema: Schema, at: string, depth = 0): Node[] {
  const out: Node[] = [{ schema, at, depth }];
  const properties = schema.properties as Record<string, Schema> | undefined;
  for (const [name, sub] of Object.entries(properties ?? {})) {
    out.push(...nodes(sub, `${at}.${name}`, depth + 1));
  }
  if (isSchema(schema.items)) out.push(...nodes(schema.items, `${at}.items`, depth + 1));
  if (isSchema(schema.additionalProperties)) {
    out.push(...nodes(schema.additionalProperties, `${at}.additionalProperties`, depth + 1));
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const [i, sub] of ((schema[key] ?? []) as Schema[]).entries()) {
      out.push(...nodes(sub, `${at}.${key}[${i}]`, depth + 1));
    }
  }
  return out;
}

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

interface Rule {
  name: string;
  /** Where the restriction comes from. */
  source: string;
  /** The problems `node` has under this rule (empty when it fits). */
  check(node: Node): string[];
}

/**
 * The keywords a Gemini `FunctionDeclaration.parameters` schema may use and every client sanitizer we know
 * of keeps: the OpenAPI 3.0 Schema subset Gemini documents (type, description, properties, required,
 * items, enum, minimum, maximum; ai.google.dev/api/caching#Schema), plus `additionalProperties: false`,
 * which the Gemini clients strip (see `gemini.additionalPropertiesOnlyFalse`).
 */
const GEMINI_KEYWORDS = new Set([
  "type",
  "description",
  "properties",
  "required",
  "items",
  "enum",
  "minimum",
  "maximum",
  "additionalProperties",
]);

const RULES: Rule[] = [
  {
    name: "gemini.singleType",
    source: 'Gemini\'s Schema.type is one enum value, not a list: `type: ["array","string"]` fails with ' +
      '"Proto field is not repeating, cannot start list" (n8n-io/n8n#15553, zed-industries/zed#44875)',
    check: ({ schema, at }) =>
      typeof schema.type === "string" ? [] : [`${at}: type ${JSON.stringify(schema.type)}`],
  },
  {
    name: "gemini.additionalPropertiesOnlyFalse",
    source: 'Gemini refuses additionalProperties ("Unknown name additionalProperties", nanbingxyz/5ire#42; ' +
      '"should not be set for TYPE_OBJECT", promptfoo/promptfoo#6904); Gemini CLI and the other clients strip ' +
      "it (google-gemini/gemini-cli#400), which loses nothing for `false` (bxp-mcp refuses unknown names itself) " +
      "but drops a map's value type",
    check: ({ schema, at }) =>
      schema.additionalProperties === undefined || schema.additionalProperties === false
        ? []
        : [`${at}: additionalProperties ${JSON.stringify(schema.additionalProperties)}`],
  },
  {
    name: "gemini.keywordSubset",
    source:
      "Gemini parameters are a select subset of the OpenAPI 3.0 Schema: no $ref, anyOf/oneOf/allOf, const, " +
      "default, title, format, pattern, ... (ai.google.dev/api/caching#Schema; taylorwilsdon/google_workspace_mcp" +
      "#1099; anomalyco/opencode#13666 and danny-avila/LibreChat#13850 strip them, or get a 400)",
    check: ({ schema, at }) =>
      Object.keys(schema).filter((k) => !GEMINI_KEYWORDS.has(k)).map((k) => `${at}: ${k}`),
  },
  {
    name: "gemini.enumOnlyOnStrings",
    source: '"enum: only allowed for STRING type" (nanbingxyz/5ire#218)',
    check: ({ schema, at }) =>
      schema.enum === undefined ||
        (schema.type === "string" && (schema.enum as unknown[]).every((v) => typeof v === "string"))
        ? []
        : [`${at}: enum on ${JSON.stringify(schema.type)}`],
  },
  {
    name: "gemini.objectsDeclareProperties",
    source:
      "Gemini needs an object's structure declared (nanbingxyz/5ire#42: an object parameter must have its " +
      "properties); an open object cannot be described to it",
    check: ({ schema, at, depth }) =>
      schema.type !== "object" || depth === 0 || Object.keys((schema.properties ?? {}) as Schema).length > 0
        ? []
        : [`${at}: an object without properties`],
  },
  {
    name: "gemini.arraysDeclareTypedItems",
    source:
      'Gemini refuses an array whose items have no type ("items: missing field", anomalyco/opencode#11952)',
    check: ({ schema, at }) =>
      schema.type !== "array" || (isSchema(schema.items) && typeof schema.items.type === "string")
        ? []
        : [`${at}: array items without a type`],
  },
  {
    name: "clients.shallow",
    source:
      "Cline 4.0.10's Gemini adapter rebuilds one property level only and turns nested arrays into STRING " +
      "(cline/cline#12514): an argument may be a scalar, an array of scalars, or an array of objects of " +
      "scalars, nothing deeper",
    check: ({ schema, at, depth }) =>
      depth <= 3 && !(depth >= 2 && schema.type === "array") && !(depth === 3 && schema.type === "object")
        ? []
        : [`${at}: ${schema.type} nested ${depth} levels deep`],
  },
  {
    name: "openai.objectAtTopLevel",
    source:
      'OpenAI function parameters must be a JSON Schema object: `type: "object"` at the top, no top-level ' +
      "anyOf/oneOf/allOf/enum/not (platform.openai.com/docs/guides/function-calling)",
    check: ({ schema, at, depth }) =>
      depth > 0 ||
        (schema.type === "object" && ["anyOf", "oneOf", "allOf", "enum", "not"].every((k) => !(k in schema)))
        ? []
        : [`${at}: not a plain object schema`],
  },
  {
    name: "openai.strict.additionalPropertiesFalse",
    source: "OpenAI strict mode: every object sets additionalProperties: false " +
      "(platform.openai.com/docs/guides/structured-outputs#supported-schemas; letta-ai/letta#3137)",
    check: ({ schema, at }) =>
      schema.type !== "object" || schema.additionalProperties === false ? [] : [`${at}: open object`],
  },
  {
    name: "openai.strict.noStringConstraints",
    source:
      "OpenAI strict mode long refused minLength/maxLength/pattern/format (and some models still do); " +
      "a length or pattern is stated in the description and checked by bxp-mcp instead",
    check: ({ schema, at }) =>
      ["minLength", "maxLength", "pattern", "format"].filter((k) => k in schema).map((k) => `${at}: ${k}`),
  },
  {
    name: "openai.strict.allRequired",
    source: "OpenAI strict mode: every property is listed in required; an optional one is made nullable " +
      "(platform.openai.com/docs/guides/structured-outputs#all-fields-must-be-required)",
    check: ({ schema, at }) => {
      if (schema.type !== "object") return [];
      const required = new Set((schema.required ?? []) as string[]);
      return Object.keys((schema.properties ?? {}) as Schema).filter((n) => !required.has(n)).map((n) =>
        `${at}.${n}: optional`
      );
    },
  },
];

/**
 * Rules broken on purpose, with the reason. Strict mode's "every property required, optional ones
 * nullable" would need `type: ["string","null"]` (or anyOf with null), which Gemini refuses outright
 * (gemini.singleType), and would make a model send every optional argument as an explicit null. Clients
 * that use strict mode rewrite schemas themselves (OpenAI's Agents SDK falls back to non-strict for a
 * schema that does not fit, and adk-java#1476 does the same); bxp-mcp reads a top-level null as absent,
 * so such a rewrite works. Nested objects (maps and lookups entries) do fit: all their members are
 * required.
 */
const KNOWN_GAPS: Record<string, string> = {
  "openai.strict.allRequired": "optional arguments stay optional; see above",
};

/** The problems of `tools` under `rule`, by tool. */
function problemsOf(rule: Rule, tools: Wire[]): string[] {
  return tools.flatMap((tool) => nodes(tool.inputSchema, tool.name).flatMap((node) => rule.check(node)));
}

async function listedTools(): Promise<Wire[]> {
  const root = await Deno.makeTempDir({ prefix: "bxp-schema-root-" });
  const server = await ServerProcess.start(["--root", root, "--allow-write"]);
  try {
    await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
    await server.response(1);
    await server.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const tools = (await server.response(2)).result.tools as Wire[];
    assert.equal(await server.close(), 0);
    return tools;
  } finally {
    await server.dispose();
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("every listed input schema fits what Gemini, OpenAI and the clients' rewriters accept", async () => {
  const tools = await listedTools();
  assert.ok(tools.some((t) => t.name === "bxp_write_config"), "the writing tool is checked too");
  assert.ok(tools.length >= 13, tools.map((t) => t.name).join(", "));
  for (const rule of RULES) {
    const problems = problemsOf(rule, tools);
    if (rule.name in KNOWN_GAPS) {
      // A known gap must still be real: if it is closed some day, this list should say so.
      assert.ok(problems.length > 0, `${rule.name} is listed as a known gap but every schema fits it`);
      continue;
    }
    assert.deepEqual(problems, [], `${rule.name} (${rule.source})`);
  }
});

Deno.test("the rules catch the shapes bxp-mcp used to declare", () => {
  // bxp_eval's arguments as bxp-mcp listed them before (and bxp still does).
  const old: Wire = {
    name: "bxp_eval",
    inputSchema: {
      type: "object",
      properties: {
        expr: { type: "string" },
        headers: { type: ["array", "string"], items: { type: "string" } },
        maps: {
          type: "object",
          additionalProperties: { type: "object", additionalProperties: { type: "string" } },
        },
        lookups: { type: "object", additionalProperties: { type: "string" } },
      },
      required: ["expr"],
      additionalProperties: false,
    },
  };
  const flagged = (name: string) => problemsOf(RULES.find((r) => r.name === name)!, [old]);
  assert.deepEqual(flagged("gemini.singleType"), ['bxp_eval.headers: type ["array","string"]']);
  assert.deepEqual(flagged("gemini.additionalPropertiesOnlyFalse"), [
    'bxp_eval.maps: additionalProperties {"type":"object","additionalProperties":{"type":"string"}}',
    'bxp_eval.maps.additionalProperties: additionalProperties {"type":"string"}',
    'bxp_eval.lookups: additionalProperties {"type":"string"}',
  ]);
  assert.deepEqual(flagged("gemini.objectsDeclareProperties"), [
    "bxp_eval.maps: an object without properties",
    "bxp_eval.maps.additionalProperties: an object without properties",
    "bxp_eval.lookups: an object without properties",
  ]);
  const nested: Wire = {
    name: "t",
    inputSchema: {
      type: "object",
      properties: {
        a: { type: "array", items: { type: "array", items: { type: "string" } } },
        e: { type: "integer", enum: [1, 2] },
        s: { type: "string", pattern: "^x", anyOf: [{ type: "string" }] },
      },
    },
  };
  const on = (name: string) => problemsOf(RULES.find((r) => r.name === name)!, [nested]);
  assert.deepEqual(on("clients.shallow"), ["t.a.items: array nested 2 levels deep"]);
  assert.deepEqual(on("gemini.enumOnlyOnStrings"), ['t.e: enum on "integer"']);
  assert.deepEqual(on("gemini.keywordSubset"), ["t.s: pattern", "t.s: anyOf"]);
  assert.deepEqual(on("openai.strict.additionalPropertiesFalse"), ["t: open object"]);
  assert.deepEqual(on("openai.strict.noStringConstraints"), ["t.s: pattern"]);
});

Deno.test("the declared and the older shapes of rows, maps and lookups give the same answers", async () => {
  const server = await ServerProcess.start();
  let id = 0;
  const call = async (name: string, args: Wire) => {
    id++;
    await server.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    return (await server.response(id)).result as Wire;
  };
  const value = async (args: Wire) => {
    const result = await call("bxp_eval", args);
    assert.equal(result.isError, false, result.content[0].text);
    return result.structuredContent.value as string;
  };
  try {
    await server.send({ jsonrpc: "2.0", id: "i", method: "initialize", params: { capabilities: {} } });
    await server.response("i");
    const remap = { expr: "REMAP([S], 'sym') & '|' & REPLACE([S], 'sub')" };
    const declared = {
      ...remap,
      headers: ["S"],
      fields: ["BTC"],
      maps: [
        { map: "sym", key: "BTC", value: "BTC-EUR" },
        { map: "sub", key: "T", value: "t" },
        { map: "sub", key: "B", value: "b" },
      ],
    };
    assert.equal(await value(declared), "BTC-EUR|btC");
    const older = {
      ...remap,
      headers: '["S"]',
      fields: '["BTC"]',
      maps: { sym: { BTC: "BTC-EUR" }, sub: { T: "t", B: "b" } },
    };
    assert.equal(await value(older), "BTC-EUR|btC", "bxp's shapes are still accepted");
    assert.equal(await value({ ...declared, maps: JSON.stringify(declared.maps) }), "BTC-EUR|btC");

    const lookup = { expr: "LOOKUP('rates', 'EUR', 'rate')" };
    const entries = [{ pre_pass: "rates", key: "EUR", field: "rate", value: "1.1" }];
    assert.equal(await value({ ...lookup, lookups: entries }), "1.1");
    assert.equal(await value({ ...lookup, lookups: { "rates\u0000EUR\u0000rate": "1.1" } }), "1.1");
    assert.equal(
      await value({ expr: "LOOKUP('EUR', 'rate')", lookups: entries, single_prepass_name: "rates" }),
      "1.1",
    );

    const batch = await call("bxp_eval_batch", {
      headers: ["S"],
      fields: ["BTC"],
      exprs: "[\"REMAP([S], 'sym')\"]",
      maps: declared.maps,
    });
    assert.equal(batch.isError, false, batch.content[0].text);
    assert.deepEqual(batch.structuredContent.results, [{ ok: true, value: "BTC-EUR" }]);
    const trace = await call("bxp_eval_trace", { expr: "REMAP('BTC', 'sym')", maps: declared.maps });
    assert.match(trace.content[0].text, /"t":"final","value":"BTC-EUR"/);

    // A malformed entry is named, with the shape it should have.
    const twice = await call("bxp_eval", { ...declared, maps: [...declared.maps, declared.maps[0]] });
    assert.equal(twice.isError, true);
    assert.match(twice.content[0].text, /'maps\[3\]' gives key "BTC" of map "sym" a second time/);
    const bad = await call("bxp_eval", { expr: "1", lookups: '[{"pre_pass":"r","key":1}]' });
    assert.equal(bad.isError, true);
    assert.match(
      bad.content[0].text,
      /'lookups\[0\]' must be an object of strings \{pre_pass, key, field, value\}/,
    );
    const wrong = await call("bxp_eval", { expr: "1", maps: [{ map: "m", key: "a" }] });
    assert.equal(wrong.isError, true);
    assert.match(wrong.content[0].text, /missing 'maps\[0\]\.value'/);
    // An accepted older shape never adds an argument: bxp_eval takes no exprs.
    const extra = await call("bxp_eval", { expr: "1", exprs: ["2"] });
    assert.equal(extra.isError, true);
    assert.match(extra.content[0].text, /unknown argument 'exprs'/);
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
  }
});
