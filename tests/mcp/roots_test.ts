/**
 * Where `path` / `csv_path` arguments are read from when bxp-mcp runs without `--root`: the official SDK
 * client drives the real server. Exactly one client root becomes the root (and follows list changes);
 * zero or several roots, or a client without the roots capability, leave no root at all: the working
 * directory is never used, so a server started in `/` cannot read `etc/passwd`.
 */
import assert from "node:assert/strict";
import { join, parse } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { entryArgs } from "../_support/processes.ts";

interface TextResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const CONFIG = `{
  conversion_templates: {
    up: {
      data_dir: ".",
      file_pattern_in: ".csv",
      file_pattern_out: ".out.csv",
      input_schema: { $n: "UPPER([name])" },
      row_rules: [{ when: "1 = 1", rows: [{ $k: "'x'" }] }],
      output_schema: { NAME: "$n" },
    },
  },
}`;

interface Session {
  client: Client;
  stderr: () => string;
  /** Replace the roots the client offers (and tell the server). */
  setRoots(uris: string[]): Promise<void>;
  close(): Promise<void>;
}

/** Start bxp-mcp through the SDK; `roots` null means a client without the roots capability. */
async function connect(
  options: { roots: string[] | null; cwd?: string; args?: string[] },
): Promise<Session> {
  const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-roots-" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: entryArgs("bxp-mcp", options.args ?? []),
    cwd: options.cwd,
    env: { TMPDIR: tmpDir, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  let roots = options.roots ?? [];
  const client = new Client(
    { name: "bxp-mcp-roots-test", version: "1.0.0" },
    options.roots === null ? {} : { capabilities: { roots: { listChanged: true } } },
  );
  if (options.roots !== null) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: roots.map((uri, i) => ({ uri, name: `root ${i}` })),
    }));
  }
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async setRoots(uris) {
      roots = uris;
      await client.sendRootsListChanged();
    },
    async close() {
      await client.close();
      await Deno.remove(tmpDir, { recursive: true }).catch(() => {});
    },
  };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<TextResult> {
  return await client.callTool({ name, arguments: args }) as TextResult;
}

async function project(files: Record<string, string>): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-mcp-project-" }));
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
  return dir;
}

Deno.test({
  name: "one client root: path and csv_path are read relative to it, and a changed root is followed",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const first = await project({ "c.json5": CONFIG, "in.csv": "name\nada\n" });
    const second = await project({ "other.json5": CONFIG });
    const session = await connect({ roots: [pathToFileURL(first).href] });
    try {
      const validated = await call(session.client, "bxp_validate", { path: "c.json5" });
      assert.equal(validated.isError, false, validated.content[0].text);
      assert.match(validated.content[0].text, /conversion_templates/);

      const simulated = await call(session.client, "bxp_simulate", {
        path: "c.json5",
        template: "up",
        csv_path: "in.csv",
      });
      assert.equal(simulated.isError, false, simulated.content[0].text);
      const outputs = simulated.structuredContent?.outputs as { csv: string }[];
      assert.ok(outputs?.length === 1, simulated.content[0].text.slice(0, 800));
      assert.equal(outputs[0].csv, "NAME\nADA\n");

      // A file outside the root stays out of reach.
      const escaped = await call(session.client, "bxp_validate", { path: "../" + second.split("/").pop() });
      assert.equal(escaped.isError, true);

      await session.setRoots([pathToFileURL(second).href]);
      // The list change is a notification: poll (bounded) until the server has re-read the roots.
      let moved: TextResult | null = null;
      for (let attempt = 0; attempt < 100; attempt++) {
        moved = await call(session.client, "bxp_validate", { path: "other.json5" });
        if (!moved.isError) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(moved?.isError, false, moved?.content[0].text);
      const old = await call(session.client, "bxp_validate", { path: "c.json5" });
      assert.equal(old.isError, true, "the old root is gone");
    } finally {
      await session.close();
      await Deno.remove(first, { recursive: true });
      await Deno.remove(second, { recursive: true });
    }
  },
});

Deno.test({
  name: "no root, several roots, or a file system root: path arguments are refused, inline text works",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const a = await project({ "c.json5": CONFIG });
    const b = await project({ "c.json5": CONFIG });
    const fsRoot = pathToFileURL(parse(a).root).href;
    for (
      const roots of [[], [pathToFileURL(a).href, pathToFileURL(b).href], ["https://example.com/x"], [fsRoot]]
    ) {
      const session = await connect({ roots });
      try {
        // Under a file system root the config would exist at its absolute path minus the leading '/'.
        const path = roots[0] === fsRoot ? join(a, "c.json5").slice(parse(a).root.length) : "c.json5";
        const refused = await call(session.client, "bxp_validate", { path });
        assert.equal(refused.isError, true, `roots ${JSON.stringify(roots)}`);
        assert.match(refused.content[0].text, /root/);
        assert.match(session.stderr(), /no project root for path arguments: .*--root DIR/);
        if (roots[0] === fsRoot) assert.match(session.stderr(), /is a file system root/);
        const inline = await call(session.client, "bxp_validate", { config: CONFIG });
        assert.equal(inline.isError, false);
      } finally {
        await session.close();
      }
    }
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  },
});

Deno.test({
  name: "started in / without --root and a client without roots: etc/passwd is refused",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const session = await connect({ roots: null, cwd: "/" });
    try {
      for (
        const [name, args] of [
          ["bxp_validate", { path: "etc/passwd" }],
          ["bxp_list_templates", { path: "etc/passwd" }],
          ["bxp_simulate", { config: CONFIG, template: "up", csv_path: "etc/passwd" }],
        ] as const
      ) {
        const result = await call(session.client, name, args);
        assert.equal(result.isError, true, name);
        assert.doesNotMatch(result.content[0].text, /root:x:0/, `${name} leaked the file`);
        assert.match(result.content[0].text, /root/);
      }
      assert.match(session.stderr(), /the client does not offer MCP roots/);
    } finally {
      await session.close();
    }
  },
});

Deno.test({
  name: "--allow-write without --root: bxp_write_config is refused with guidance to pass --root",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await project({});
    const session = await connect({ roots: [pathToFileURL(dir).href], args: ["--allow-write"] });
    try {
      const { tools } = await session.client.listTools();
      assert.ok(!tools.some((t: { name: string }) => t.name === "bxp_write_config"), "not listed");
      await assert.rejects(
        () => call(session.client, "bxp_write_config", { path: "new.json5", config: CONFIG }),
        /Writes need a fixed project root. Start bxp-mcp with --root DIR --allow-write/,
      );
      assert.deepEqual([...Deno.readDirSync(dir)], [], "nothing was written");
      assert.match(session.stderr(), /--allow-write needs --root DIR/);
    } finally {
      await session.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
