/**
 * Refused path spellings name the one to send: an absolute path inside the root gets its relative form,
 * a backslash path its `/` form (both stay refused: one spelling per file, and `\` is a legal POSIX name
 * character), and a call without a project root says to start bxp-mcp with --root, for a 2026-07-28
 * request adding that its revision deprecates client roots. Through a real bxp-mcp.
 */
import assert from "node:assert/strict";
import { ServerProcess, type Wire } from "../_support/server_process.ts";
import { relativeParts } from "../../../src/mcp/security/paths.ts";

const CONFIG = '{ conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv" } } }';

Deno.test("relativeParts names the relative or '/' form it would accept", () => {
  const refusal = (path: string, os = "linux", roots = ["/srv/p"]) => {
    try {
      relativeParts(path, os, roots);
    } catch (error) {
      return (error as Error).message;
    }
    return assert.fail(`accepted ${path}`);
  };
  assert.match(
    refusal("/srv/p/data/./in.csv"),
    /^Path must be relative to the project root: .*send "data\/in.csv"/,
  );
  assert.match(refusal("/srv/p"), /the project root itself/);
  // Outside the root, or only a name prefix of it: no relative form is offered.
  for (const path of ["/srv/p-evil/in.csv", "/etc/passwd", "/srv/p/../etc/passwd", "~/in.csv"]) {
    assert.doesNotMatch(refusal(path), /send/, path);
    assert.match(refusal(path), /bxp_list_files lists them/, path);
  }
  assert.match(
    refusal("data\\in.csv"),
    /^Path must use '\/' as its separator: data\\in.csv; send "data\/in.csv"$/,
  );
  assert.doesNotMatch(refusal("a\\..\\..\\x"), /send/, "a form that would be refused is not offered");
  assert.match(refusal("C:\\Proj\\Data\\in.csv", "windows", ["C:\\proj"]), /send "Data\/in.csv"/);
  assert.doesNotMatch(refusal("C:\\Proj\\Data\\in.csv", "linux", ["C:\\proj"]), /send/);
});

/** A real bxp-mcp and a tools/call helper. */
async function withServer(
  args: string[],
  fn: (call: (name: string, a: Wire, meta?: Wire) => Promise<Wire>) => Promise<void>,
) {
  const server = await ServerProcess.start(args);
  let id = 0;
  const call = async (name: string, a: Wire, meta?: Wire) => {
    id++;
    const params = meta === undefined ? { name, arguments: a } : { name, arguments: a, _meta: meta };
    await server.send({ jsonrpc: "2.0", id, method: "tools/call", params });
    return (await server.response(id)).result as Wire;
  };
  try {
    // A handshake without the roots capability: the legacy call need not wait for roots that never come.
    await server.send({ jsonrpc: "2.0", id: "i", method: "initialize", params: { capabilities: {} } });
    await server.response("i");
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await fn(call);
    assert.equal(await server.close(), 0);
  } finally {
    await server.dispose();
  }
}

Deno.test("a real bxp-mcp names the path to send for an absolute or backslash path inside its root", async () => {
  const root = await Deno.makeTempDir({ prefix: "bxp-path-hints-" });
  try {
    await Deno.mkdir(`${root}/cfg`);
    await Deno.writeTextFile(`${root}/cfg/a.json5`, CONFIG);
    await withServer(["--root", root], async (call) => {
      const refused = await call("bxp_validate", { path: `${root}/cfg/a.json5` });
      assert.equal(refused.isError, true);
      const sent = /send "([^"]+)"/.exec(refused.content[0].text)?.[1];
      assert.equal(sent, "cfg/a.json5", refused.content[0].text);
      const ok = await call("bxp_validate", { path: sent });
      assert.equal(ok.isError, false, ok.content[0].text);

      const slashed = await call("bxp_list_templates", { path: "cfg\\a.json5" });
      assert.equal(slashed.isError, true);
      assert.match(slashed.content[0].text, /separator: cfg\\a.json5; send "cfg\/a.json5"/);
      const outside = await call("bxp_validate", { path: "/etc/passwd" });
      assert.equal(outside.isError, true);
      assert.doesNotMatch(outside.content[0].text, /send|root:x/);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("without a root, path tools say to start with --root; a 2026-07-28 request is told why", async () => {
  await withServer([], async (call) => {
    const legacy = await call("bxp_validate", { path: "cfg/a.json5" });
    assert.equal(legacy.isError, true);
    assert.match(
      legacy.content[0].text,
      /no project root for the path "cfg\/a.json5": start bxp-mcp with --root DIR/,
    );
    assert.match(legacy.content[0].text, /file:\/\/ MCP root/);
    const modern = await call("bxp_simulate", { config: CONFIG, template: "t", csv_path: "in.csv" }, {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "path-hints-test", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    });
    assert.equal(modern.isError, true);
    assert.match(modern.content[0].text, /start bxp-mcp with --root DIR/);
    assert.match(modern.content[0].text, /2026-07-28 request, and that revision deprecates client roots/);
  });
});
