/**
 * Runs docs/guide/agents.md against the real bxp-mcp: the sample files are written under a fresh root, each
 * `json mcp-call tool=NAME` block is called in order (`{{tool.field}}` takes a field of an earlier answer),
 * and each `json mcp-result` block must be contained in the answer (objects by their keys, arrays item by
 * item). The `json client-config` registrations must parse and their arguments start a real server.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { encodeString, parseEncoding } from "../../src/formats/encoding.ts";
import { ServerProcess, type Wire } from "../mcp/_support/server_process.ts";
import { fences } from "./_harness.ts";

/** True when `expected` is contained in `actual`. */
function contains(actual: unknown, expected: unknown, path = "$"): string | null {
  if (expected === null || typeof expected !== "object") {
    return actual === expected
      ? null
      : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length < expected.length) return `${path}: expected an array`;
    for (let i = 0; i < expected.length; i++) {
      const miss = contains(actual[i], expected[i], `${path}[${i}]`);
      if (miss) return miss;
    }
    return null;
  }
  if (actual === null || typeof actual !== "object") return `${path}: expected an object`;
  for (const [k, v] of Object.entries(expected)) {
    const miss = contains((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
    if (miss) return miss;
  }
  return null;
}

function substitute(value: unknown, answers: Map<string, Wire>): unknown {
  if (typeof value === "string") {
    const m = /^\{\{(\w+)\.(\w+)\}\}$/.exec(value);
    if (!m) return value;
    const from = answers.get(m[1]);
    assert.ok(from, `no earlier answer of ${m[1]}`);
    return from[m[2]];
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, answers));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, answers)]));
  }
  return value;
}

const GUIDE = new URL("../../docs/guide/agents.md", import.meta.url);

Deno.test("docs/guide/agents.md: every tool call answers as shown", async () => {
  const blocks = fences(await Deno.readTextFile(GUIDE));
  const root = await Deno.makeTempDir({ prefix: "bxp-agents-guide-" });
  const server = await ServerProcess.start(["--root", root, "--allow-write"]);
  try {
    await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
    await server.response(1);
    const answers = new Map<string, Wire>();
    let last: Wire | null = null;
    let id = 1;
    let checked = 0;
    for (const f of blocks) {
      const where = `agents.md:${f.line}`;
      const file = f.attrs.get("file");
      if (file !== undefined) {
        await Deno.mkdir(join(root, dirname(file)), { recursive: true });
        await Deno.writeFile(
          join(root, file),
          encodeString(f.body, parseEncoding(f.attrs.get("encoding") ?? "utf-8")!),
        );
      } else if (f.lang === "json" && f.flags.has("mcp-call")) {
        const tool = f.attrs.get("tool")!;
        await server.call(++id, tool, substitute(JSON.parse(f.body), answers));
        const result = (await server.response(id, 120_000)).result;
        assert.equal(result.isError, false, `${where}: ${JSON.stringify(result)}`);
        last = result.structuredContent ?? JSON.parse(result.content[0].text);
        answers.set(tool, last!);
        checked++;
      } else if (f.lang === "json" && f.flags.has("mcp-result")) {
        assert.ok(last, `${where}: a result without a call`);
        const miss = contains(last, JSON.parse(f.body));
        assert.equal(miss, null, `${where}: ${miss}`);
        checked++;
      }
    }
    assert.ok(checked >= 8, `${checked} checks`);
    const saved = await Deno.readTextFile(join(root, "inbox", "bxp-cli.json"));
    assert.equal(saved, answers.get("bxp_draft_template")!.config);
  } finally {
    await server.dispose();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("docs/guide/agents.md: the client registrations parse and their arguments start bxp-mcp", async () => {
  const configs = fences(await Deno.readTextFile(GUIDE)).filter((f) => f.flags.has("client-config"));
  assert.equal(configs.length, 2);
  for (const f of configs) {
    const doc = JSON.parse(f.body);
    const entry = (doc.mcpServers ?? doc.servers).bxp;
    assert.equal(typeof entry.command, "string");
    const root = await Deno.makeTempDir({ prefix: "bxp-agents-reg-" });
    // The guide's folder stands for the user's; the flags are what must be accepted.
    const args = (entry.args as string[]).map((a) => (a.startsWith("/home/") ? root : a));
    const server = await ServerProcess.start(args);
    try {
      await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
      const r = await server.response(1);
      assert.equal(r.result.serverInfo.name !== undefined, true, JSON.stringify(r));
    } finally {
      await server.dispose();
      await Deno.remove(root, { recursive: true });
    }
  }
});
