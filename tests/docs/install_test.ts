/**
 * docs/guide/install.md and `deno task install`, run for real:
 *
 * 1. every client snippet of the guide is read by a parser of its format (JSON, TOML with smol-toml, shell
 *    words), has exactly its client's keys, and names its form's one command line, whose bxp-mcp arguments
 *    `parseMcpArgs` accepts; the Cursor and VS Code install links decode to the same entry, and the guide's
 *    link generator prints them;
 * 2. the checkout form, as parsed from a snippet, started from a working directory that is not the checkout,
 *    answers `initialize`, `tools/list` and a `bxp_simulate`; the binary form's arguments start bxp-mcp;
 * 3. the HTTP form: the guide's token-file line and server line start a real `bxp-mcp --http`, and every HTTP
 *    snippet's URL and `Authorization` header open a session on it and list the tools;
 * 4. `deno task install --root DIR` leaves launchers that run: `bxp-cli --version`, and a `bxp-mcp` that
 *    answers from another working directory and simulates through the checkout's bxp-cli; an existing install
 *    is refused without `--force`; the launchers carry exactly the task's permission flags;
 * 5. the guide's bxp-cli checkout line converts, and its after-install check (`--version`) runs.
 *
 * The guide's placeholder paths are mapped onto the real checkout and fresh temp folders.
 *
 * Where each client's format comes from (the clients' own documentation, looked up for this test):
 * - Claude Code: `claude mcp add NAME -- COMMAND ARGS...`, and `claude mcp add --transport http NAME URL
 *   --header "Authorization: Bearer ..."` (docs.claude.com, Claude Code "MCP"; anthropics/claude-ai-mcp#10).
 * - Claude Desktop: `claude_desktop_config.json`, `mcpServers.NAME` = `{command, args}` (modelcontextprotocol.io,
 *   "Connect to local MCP servers"); remote servers only as OAuth connectors, so no HTTP snippet.
 * - Cursor: `~/.cursor/mcp.json`, `mcpServers.NAME` = `{command, args}` or `{url, headers}`; the install link
 *   `cursor://anysphere.cursor-deeplink/mcp/install?name=NAME&config=BASE64(JSON.stringify(entry))`
 *   (cursor.com/docs/mcp, cursor.com/docs/mcp/install-links).
 * - VS Code: `.vscode/mcp.json`, `servers.NAME` = `{type: "stdio", command, args}` or `{type: "http", url,
 *   headers}` (code.visualstudio.com/docs/copilot/reference/mcp-configuration); the install link
 *   `vscode:mcp/install?encodeURIComponent(JSON.stringify({name, ...entry}))`, the object `--add-mcp` takes
 *   (code.visualstudio.com/docs/copilot/guides/mcp-developer-guide, "MCP URL handler").
 * - Codex CLI: `~/.codex/config.toml`, `[mcp_servers.NAME]` with `command`/`args`, or `url` and
 *   `bearer_token_env_var` (an inline token is refused); `codex mcp add NAME -- COMMAND ARGS...` and
 *   `codex mcp add NAME --url URL --bearer-token-env-var VAR` (developers.openai.com/codex/mcp; openai/codex
 *   discussion 30870 for the flag).
 * - Gemini CLI: `~/.gemini/settings.json`, `mcpServers.NAME` = `{command, args}` or `{httpUrl, headers}`
 *   (`url` is SSE there) (geminicli.com/docs/tools/mcp-server).
 * - Windsurf: `~/.codeium/windsurf/mcp_config.json`, `mcpServers.NAME` = `{command, args}` or `{serverUrl,
 *   headers}` (docs.windsurf.com/windsurf/cascade/mcp).
 * - Zed: `settings.json`, `context_servers.NAME` = `{command, args}` or `{url, headers}` (zed.dev/docs/ai/mcp).
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { ENTRY_MODULES, type EntryPoint, entryPointFlags } from "../../src/distribution/mod.ts";
import { parseMcpArgs } from "../../src/mcp/cli_args.ts";
import { installArgs } from "../../tools/install.ts";
import { REPO_ROOT, runBxpCli } from "../_support/processes.ts";
import { ServerProcess, type Wire } from "../mcp/_support/server_process.ts";
import { HttpServerProcess, initializeBody, POST_HEADERS } from "../mcp/http/_support.ts";
import { type Fence, fences, words } from "./_harness.ts";
import { StdioClient } from "./_stdio_client.ts";

const GUIDE = new URL("../../docs/guide/install.md", import.meta.url);
const REPO = fileURLToPath(REPO_ROOT);
const DENO_JSON = join(REPO, "deno.json");
const denoJsonText = Deno.readTextFileSync(DENO_JSON);

/** The guide's placeholders. */
const GUIDE_DENO_JSON = "/home/me/src/bxp/deno.json";
const GUIDE_BINARY = "/opt/bxp/bxp-mcp";
const GUIDE_PROJECT = "/home/me/finance";
const GUIDE_HOME = "/home/me";
const GUIDE_TOKEN_FILE = "/home/me/.config/bxp-mcp/token";
const TOKEN_PLACEHOLDER = "<token>";
const CODEX_TOKEN_VAR = "BXP_MCP_TOKEN";

const CHECKOUT_ARGV = ["deno", "task", "--config", GUIDE_DENO_JSON, "bxp-mcp", "--root", GUIDE_PROJECT];
const BINARY_ARGV = [GUIDE_BINARY, "--root", GUIDE_PROJECT];
const CHECKOUT_PREFIX = CHECKOUT_ARGV.slice(0, 5);

/** The JSON clients: the top-level key, and the entry's keys beside `command`/`args` or the URL and headers. */
const JSON_CLIENTS: Record<string, { key: string; stdio: Wire; url?: string; http?: Wire }> = {
  "claude-desktop": { key: "mcpServers", stdio: {} },
  cursor: { key: "mcpServers", stdio: {}, url: "url", http: {} },
  vscode: { key: "servers", stdio: { type: "stdio" }, url: "url", http: { type: "http" } },
  gemini: { key: "mcpServers", stdio: {}, url: "httpUrl", http: {} },
  windsurf: { key: "mcpServers", stdio: {}, url: "serverUrl", http: {} },
  zed: { key: "context_servers", stdio: {}, url: "url", http: {} },
};

/** Every snippet the guide must have, as `client/form/lang` (`text` is an install link). */
const EXPECTED = [
  ...["binary", "checkout"].flatMap((form) => [
    `claude-code/${form}/sh`,
    ...Object.keys(JSON_CLIENTS).map((c) => `${c}/${form}/json`),
    `cursor/${form}/text`,
    `vscode/${form}/text`,
    `codex/${form}/toml`,
    `codex/${form}/sh`,
  ]),
  "claude-code/http/sh",
  ...Object.keys(JSON_CLIENTS).filter((c) => JSON_CLIENTS[c].url !== undefined).map((c) => `${c}/http/json`),
  "codex/http/toml",
  "codex/http/sh",
].sort();

/** What a client snippet registers: a command line, or a URL with the headers sent to it. */
type Snippet = { argv: string[] } | { url: string; headers: Record<string, string> };

/** A parsed document as plain objects (smol-toml's tables have no prototype). */
const plain = (value: unknown): Wire => JSON.parse(JSON.stringify(value));

/** The one `bxp` entry under `key`, the only top-level key. */
function bxpEntry(doc: Wire, key: string, where: string): Wire {
  assert.deepEqual(Object.keys(doc), [key], where);
  assert.deepEqual(Object.keys(doc[key]), ["bxp"], where);
  return doc[key].bxp;
}

/** `{command, args}` plus exactly `extra`, as a command line. */
function stdioEntry(entry: Wire, extra: Wire, where: string): string[] {
  assert.deepEqual(Object.keys(entry).sort(), ["args", "command", ...Object.keys(extra)].sort(), where);
  for (const [k, v] of Object.entries(extra)) assert.equal(entry[k], v, `${where}: ${k}`);
  assert.equal(typeof entry.command, "string", where);
  assert.ok(Array.isArray(entry.args) && entry.args.every((a: unknown) => typeof a === "string"), where);
  return [entry.command, ...entry.args];
}

/** A `Name: value` header of a shell line. */
function header(text: string, where: string): Record<string, string> {
  const colon = text.indexOf(": ");
  assert.ok(colon > 0, `${where}: header ${text}`);
  return { [text.slice(0, colon)]: text.slice(colon + 2) };
}

/** A snippet's registration, read by the parser of its format; throws when its shape is not its client's. */
function readSnippet(f: Fence): Snippet {
  const where = `install.md:${f.line}`;
  const client = f.attrs.get("client")!;
  const http = f.attrs.get("form") === "http";
  if (f.lang === "json") {
    const spec = JSON_CLIENTS[client];
    assert.ok(spec, `${where}: JSON for ${client}`);
    const entry = bxpEntry(JSON.parse(f.body), spec.key, where);
    if (!http) return { argv: stdioEntry(entry, spec.stdio, where) };
    assert.ok(spec.url !== undefined && spec.http !== undefined, `${where}: ${client} over HTTP`);
    assert.deepEqual(
      Object.keys(entry).sort(),
      [spec.url, "headers", ...Object.keys(spec.http)].sort(),
      where,
    );
    for (const [k, v] of Object.entries(spec.http)) assert.equal(entry[k], v, `${where}: ${k}`);
    return { url: entry[spec.url], headers: entry.headers };
  }
  if (f.lang === "toml") {
    assert.equal(client, "codex", where);
    const entry = bxpEntry(plain(parseToml(f.body)), "mcp_servers", where);
    if (!http) return { argv: stdioEntry(entry, {}, where) };
    assert.deepEqual(Object.keys(entry).sort(), ["bearer_token_env_var", "url"], where);
    assert.equal(entry.bearer_token_env_var, CODEX_TOKEN_VAR, where);
    return { url: entry.url, headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` } };
  }
  assert.equal(f.lang, "sh", where);
  const lines = f.body.trim().split("\n");
  assert.equal(lines.length, 1, where);
  const argv = words(lines[0]);
  const add = client === "claude-code"
    ? ["claude", "mcp", "add"]
    : client === "codex"
    ? ["codex", "mcp", "add"]
    : null;
  assert.ok(add !== null, `${where}: a shell line for ${client}`);
  assert.deepEqual(argv.slice(0, 3), add, where);
  if (!http) {
    assert.deepEqual(argv.slice(3, 5), ["bxp", "--"], where);
    return { argv: argv.slice(5) };
  }
  if (client === "claude-code") {
    assert.equal(argv.length, 9, where);
    assert.deepEqual([argv[3], argv[4], argv[5], argv[7]], ["--transport", "http", "bxp", "--header"], where);
    return { url: argv[6], headers: header(argv[8], where) };
  }
  assert.equal(argv.length, 8, where);
  assert.deepEqual([argv[3], argv[4], argv[6], argv[7]], [
    "bxp",
    "--url",
    "--bearer-token-env-var",
    CODEX_TOKEN_VAR,
  ], where);
  return { url: argv[5], headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` } };
}

/** The entry an install link carries: Cursor's Base64 `config`, or VS Code's URL-encoded object. */
function linkEntry(f: Fence): Wire {
  const where = `install.md:${f.line}`;
  const link = f.body.trim();
  assert.ok(!/\s/.test(link), `${where}: one link`);
  if (f.attrs.get("client") === "cursor") {
    const url = new URL(link);
    assert.equal(
      `${url.protocol}//${url.host}${url.pathname}`,
      "cursor://anysphere.cursor-deeplink/mcp/install",
    );
    assert.deepEqual([...url.searchParams.keys()], ["name", "config"], where);
    assert.equal(url.searchParams.get("name"), "bxp", where);
    // Read as a client reads the query: a `+` of raw Base64 would turn into a space here and fail.
    return JSON.parse(atob(url.searchParams.get("config")!));
  }
  assert.equal(f.attrs.get("client"), "vscode", where);
  const prefix = "vscode:mcp/install?";
  assert.ok(link.startsWith(prefix), where);
  const { name, ...entry } = JSON.parse(decodeURIComponent(link.slice(prefix.length)));
  assert.equal(name, "bxp", where);
  return entry;
}

/** bxp-mcp's own arguments in a command line of `form`. */
function bxpMcpArgs(argv: string[], form: string, where: string): string[] {
  if (form === "checkout") {
    assert.deepEqual(argv.slice(0, 5), CHECKOUT_PREFIX, where);
    return argv.slice(5);
  }
  assert.equal(argv[0], GUIDE_BINARY, where);
  return argv.slice(1);
}

/** The guide's fences. */
async function guideFences(): Promise<Fence[]> {
  return fences(await Deno.readTextFile(GUIDE));
}

/** The guide's client snippets with what they register. */
async function clientSnippets(): Promise<{ f: Fence; snippet: Snippet }[]> {
  return (await guideFences()).filter((f) => f.attrs.has("client") && !f.flags.has("link"))
    .map((f) => ({ f, snippet: readSnippet(f) }));
}

/** The bxp-mcp arguments of the guide's HTTP server line of `form`. */
async function httpServerArgs(form: string): Promise<string[]> {
  const f = (await guideFences()).find((b) => b.flags.has("http-server") && b.attrs.get("form") === form);
  assert.ok(f, `the guide shows the ${form} HTTP server line`);
  return bxpMcpArgs(words(f.body.trim()), form, `install.md:${f.line}`);
}

/** A command line mapped onto this checkout and `root`, as a program and its arguments. */
function mapped(argv: string[], root: string): { program: string; args: string[] } {
  const real = argv.map((w) => w === GUIDE_DENO_JSON ? DENO_JSON : w === GUIDE_PROJECT ? root : w);
  assert.equal(real[0], "deno");
  return { program: Deno.execPath(), args: real.slice(1) };
}

/** A project with a sample and a config that changes it (so the simulation really evaluates). */
async function makeProject(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "bxp-install-project-" });
  await Deno.writeTextFile(join(root, "in.csv"), "name,amount\nAda,1\nBob,2.5\n");
  await Deno.writeTextFile(
    join(root, "bxp-cli.json"),
    `{ conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".clean.csv",
  input_schema: { $name: "UPPER([name])", $twice: "[amount] * 2" },
  row_rules: [{ when: "1 = 1", rows: [{}] }],
  output_schema: { name: "$name", twice: "$twice" } } } }
`,
  );
  return root;
}

/** initialize, tools/list and a bxp_simulate of the project made by {@link makeProject}. */
async function exerciseServer(client: StdioClient): Promise<void> {
  const init = await client.initialize();
  assert.equal(init.result?.serverInfo?.name, "bxp-mcp", JSON.stringify(init));
  const list = await client.request("tools/list");
  const names = (list.result.tools as Wire[]).map((t) => t.name);
  for (const tool of ["bxp_docs", "bxp_validate", "bxp_eval", "bxp_simulate"]) {
    assert.ok(names.includes(tool), `${tool} in ${names}`);
  }
  const evaled = await client.request("tools/call", {
    name: "bxp_eval",
    arguments: { expr: "UPPER([a])", headers: ["a"], fields: ["x"] },
  });
  assert.deepEqual(evaled.result.structuredContent, { ok: true, value: "X" }, JSON.stringify(evaled));
  const sim = await client.request("tools/call", {
    name: "bxp_simulate",
    arguments: { path: "bxp-cli.json", template: "t", csv_path: "in.csv" },
  });
  const report = sim.result.structuredContent;
  assert.equal(report?.exit_code, 0, `${JSON.stringify(sim)}\n${client.stderr}`);
  assert.deepEqual(report.outputs.map((o: Wire) => [o.file, o.csv]), [
    ["in.clean.csv", "name,twice\nADA,2\nBOB,5\n"],
  ]);
}

/** The environment a client gives the server: a private TMPDIR, and Deno on the PATH for the launchers. */
function clientEnv(tmp: string): Record<string, string> {
  const sep = Deno.build.os === "windows" ? ";" : ":";
  return { TMPDIR: tmp, PATH: `${dirname(Deno.execPath())}${sep}${Deno.env.get("PATH") ?? ""}` };
}

async function withTemp<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test("install.md: every client snippet parses and names its form's one command line, which bxp-mcp takes", async () => {
  const snippets = await clientSnippets();
  const links = (await guideFences()).filter((f) => f.flags.has("link"));
  const seen = [...snippets.map(({ f }) => f), ...links].map((f) =>
    `${f.attrs.get("client")}/${f.attrs.get("form")}/${f.lang}`
  );
  assert.deepEqual(seen.sort(), EXPECTED);
  const stdioServer = parseMcpArgs(["--root", GUIDE_PROJECT]);
  const httpUrl = await (async () => {
    const command = parseMcpArgs(await httpServerArgs("binary"));
    assert.ok(command.kind === "serve" && command.http !== undefined, JSON.stringify(command));
    return `http://${command.http.hostname}:${command.http.port}/mcp`;
  })();
  for (const { f, snippet } of snippets) {
    const where = `install.md:${f.line}`;
    const form = f.attrs.get("form")!;
    if ("argv" in snippet) {
      assert.deepEqual(snippet.argv, form === "binary" ? BINARY_ARGV : CHECKOUT_ARGV, where);
      assert.deepEqual(parseMcpArgs(bxpMcpArgs(snippet.argv, form, where)), stdioServer, where);
    } else {
      assert.equal(form, "http", where);
      assert.equal(snippet.url, httpUrl, where);
      assert.deepEqual(snippet.headers, { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` }, where);
    }
  }
  // The install links carry the entry of their client's JSON snippet of the same form.
  for (const f of links) {
    const json = snippets.find(({ f: s }) =>
      s.lang === "json" && s.attrs.get("client") === f.attrs.get("client") &&
      s.attrs.get("form") === f.attrs.get("form")
    );
    assert.ok(json, `install.md:${f.line}: no JSON snippet beside the link`);
    const spec = JSON_CLIENTS[f.attrs.get("client")!];
    assert.deepEqual(linkEntry(f), bxpEntry(JSON.parse(json.f.body), spec.key, ""), `install.md:${f.line}`);
  }
});

Deno.test("install.md: the HTTP server lines are the ones bxp-mcp accepts, in both forms", async () => {
  const binary = await httpServerArgs("binary");
  assert.deepEqual(await httpServerArgs("checkout"), binary);
  const command = parseMcpArgs(binary);
  assert.ok(command.kind === "serve" && command.http !== undefined, JSON.stringify(command));
  assert.equal(command.root, GUIDE_PROJECT);
  assert.equal(command.http.tokenFile, GUIDE_TOKEN_FILE);
  assert.equal(command.http.hostname, "127.0.0.1");
  // The token-file line writes the file the server line reads, and Codex's variable is set from it.
  const tokenLine = (await guideFences()).find((f) => f.flags.has("token-file"));
  assert.ok(tokenLine, "the guide shows how to make the token file");
  assert.ok(tokenLine.body.includes(GUIDE_TOKEN_FILE.replace(GUIDE_HOME, "~")), tokenLine.body);
  const guide = await Deno.readTextFile(GUIDE);
  assert.ok(
    guide.includes(`export ${CODEX_TOKEN_VAR}="$(cat ${GUIDE_TOKEN_FILE.replace(GUIDE_HOME, "~")})"`),
  );
});

Deno.test({
  name: "install.md: the link generator prints the guide's install links for both forms",
  ignore: Deno.build.os === "windows", // a POSIX shell line
  fn: async () => {
    const all = await guideFences();
    const generator = all.find((f) => f.flags.has("links"));
    assert.ok(generator, "the guide shows how to make the links");
    const binaryArgs = BINARY_ARGV.join(" ");
    assert.ok(generator.body.trimEnd().endsWith(binaryArgs), generator.body);
    for (const [form, argv] of [["binary", BINARY_ARGV], ["checkout", CHECKOUT_ARGV]] as const) {
      const script = generator.body.trimEnd().slice(0, -binaryArgs.length) + argv.join(" ");
      await withTemp("bxp-install-links-", async (cwd) => {
        const out = await new Deno.Command("sh", {
          args: ["-c", script],
          cwd,
          env: clientEnv(cwd),
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
        const expected = ["cursor", "vscode"].map((client) =>
          all.find((f) =>
            f.flags.has("link") && f.attrs.get("client") === client && f.attrs.get("form") === form
          )!
            .body.trim()
        );
        assert.deepEqual(new TextDecoder().decode(out.stdout).trim().split("\n"), expected, form);
      });
    }
  },
});

Deno.test("install.md: the binary form's arguments start bxp-mcp", async () => {
  await withTemp("bxp-install-bin-", async (root) => {
    const server = await ServerProcess.start(BINARY_ARGV.slice(1).map((a) => a === GUIDE_PROJECT ? root : a));
    try {
      await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
      assert.equal((await server.response(1)).result.serverInfo.name, "bxp-mcp");
    } finally {
      await server.dispose();
    }
  });
});

Deno.test("install.md: the checkout form, as a snippet gives it, starts from another working directory and simulates", async () => {
  // Every snippet names the same command line (checked above); this one is read with the TOML parser.
  const codex = (await clientSnippets()).find(({ f }) =>
    f.lang === "toml" && f.attrs.get("form") === "checkout"
  );
  assert.ok(codex !== undefined && "argv" in codex.snippet);
  const argv = codex.snippet.argv;
  const root = await makeProject();
  try {
    await withTemp("bxp-install-cwd-", async (cwd) => {
      const { program, args } = mapped(argv, root);
      const client = new StdioClient(program, args, cwd, clientEnv(cwd));
      try {
        await exerciseServer(client);
      } finally {
        const status = await client.close();
        assert.equal(status.code, 0, client.stderr);
      }
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** POST one JSON-RPC message with `headers`; the status and the parsed JSON answer (null for none). */
async function post(url: string, headers: Record<string, string>, body: string) {
  const response = await fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...headers }, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === "" ? null : JSON.parse(text) };
}

Deno.test({
  name: "install.md: the HTTP snippets' URL and header open a session on the guide's bxp-mcp --http",
  ignore: Deno.build.os === "windows", // the token-file line is a POSIX shell line
  fn: async () => {
    await withTemp("bxp-install-http-", async (home) => {
      const all = await guideFences();
      const tokenFile = join(home, GUIDE_TOKEN_FILE.slice(GUIDE_HOME.length + 1));
      const tokenLine = all.find((f) => f.flags.has("token-file"))!.body;
      const openssl = await new Deno.Command("openssl", { args: ["version"], stdout: "null", stderr: "null" })
        .output().then((o) => o.success, () => false);
      if (openssl) {
        const out = await new Deno.Command("sh", {
          args: ["-c", tokenLine],
          env: { HOME: home },
          stderr: "piped",
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
        assert.equal((await Deno.stat(tokenFile)).mode! & 0o777, 0o600);
      } else {
        // No openssl here: a token of the same shape, to test the rest.
        await Deno.mkdir(dirname(tokenFile), { recursive: true });
        await Deno.writeTextFile(tokenFile, "ab".repeat(32) + "\n", { mode: 0o600 });
      }
      // The guide's server line, on a free port (HttpServerProcess gives --http and --root itself).
      const args = await httpServerArgs("binary");
      const rest: string[] = [];
      for (let i = 0; i < args.length; i++) {
        if (args[i] === "--http" || args[i] === "--root") i++;
        else rest.push(args[i] === GUIDE_TOKEN_FILE ? tokenFile : args[i]);
      }
      assert.deepEqual(rest, ["--token-file", tokenFile]);
      const server = await HttpServerProcess.start(rest, "127.0.0.1", { root: home });
      try {
        const token = (await Deno.readTextFile(tokenFile)).trim();
        assert.equal(server.token, token);
        assert.equal((await post(server.url, {}, initializeBody())).status, 401, "a token is needed");
        for (const { f, snippet } of await clientSnippets()) {
          if (!("url" in snippet)) continue;
          const where = `install.md:${f.line}`;
          const url = new URL(new URL(snippet.url).pathname, server.origin).href;
          const headers = Object.fromEntries(
            Object.entries(snippet.headers).map(([k, v]) => [k, v.replace(TOKEN_PLACEHOLDER, token)]),
          );
          const init = await post(url, headers, initializeBody());
          assert.equal(init.status, 200, `${where}: ${JSON.stringify(init.json)}`);
          const session = init.headers.get("mcp-session-id");
          assert.ok(session !== null, where);
          const list = await post(url, {
            ...headers,
            "mcp-session-id": session,
            "mcp-protocol-version": init.json.result.protocolVersion,
          }, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
          assert.equal(list.status, 200, where);
          const names = (list.json.result.tools as Wire[]).map((t) => t.name);
          assert.ok(names.includes("bxp_simulate") && names.includes("bxp_docs"), `${where}: ${names}`);
          await (await fetch(url, { method: "DELETE", headers: { ...headers, "mcp-session-id": session } }))
            .body?.cancel();
        }
      } finally {
        await server.dispose();
      }
    });
  },
});

Deno.test("install.md: the checkout form of bxp-cli converts from another working directory", async () => {
  const f = fences(await Deno.readTextFile(GUIDE)).find((b) => b.flags.has("checkout-cli"));
  assert.ok(f, "the guide shows bxp-cli run through deno task");
  const root = await makeProject();
  try {
    const argv = words(f.body.trim()).map((w) =>
      w === GUIDE_DENO_JSON
        ? DENO_JSON
        : w.startsWith(`${GUIDE_PROJECT}/`)
        ? join(root, w.slice(GUIDE_PROJECT.length + 1))
        : w
    );
    assert.deepEqual(argv.slice(0, 5), ["deno", "task", "--config", DENO_JSON, "bxp-cli"]);
    await withTemp("bxp-install-cli-cwd-", async (cwd) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: argv.slice(1),
        cwd,
        stdout: "piped",
        stderr: "piped",
      })
        .output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    });
    assert.equal(await Deno.readTextFile(join(root, "in.clean.csv")), "name,twice\nADA,2\nBOB,5\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

function withoutInitCwd(env: Record<string, string>): Record<string, string> {
  const { INIT_CWD: _, ...rest } = env;
  return rest;
}

/** `deno task --config <checkout>/deno.json install ARGS` run from `cwd`. */
async function runInstall(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "--config", DENO_JSON, "install", ...args],
    cwd,
    // deno task keeps an INIT_CWD it inherits (this suite may itself run under `deno task test`): drop it, as
    // a shell would not have it.
    clearEnv: true,
    env: { ...withoutInitCwd(Deno.env.toObject()), ...clientEnv(cwd) },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("install.md: the install command is the one the task runs", async () => {
  const line = fences(await Deno.readTextFile(GUIDE)).find((f) =>
    f.lang === "sh" && /\binstall$/m.test(f.body)
  );
  assert.ok(line, "the guide shows deno task install");
  assert.deepEqual(words(line.body.trim()), ["deno", "task", "--config", GUIDE_DENO_JSON, "install"]);
});

Deno.test("deno task install --dry-run prints both deno install commands with the task flags", async () => {
  await withTemp("bxp-install-dry-", async (cwd) => {
    const run = await runInstall(["--dry-run", "--root", "inst", "--name-suffix", "-dev"], cwd);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split("\n");
    const options = { repo: REPO, root: join(cwd, "inst"), suffix: "-dev", force: false };
    assert.deepEqual(lines.map(words), [
      ["deno", ...installArgs(denoJsonText, "bxp-cli", options)],
      ["deno", ...installArgs(denoJsonText, "bxp-mcp", options)],
    ]);
    assert.ok(lines[1].includes(" --name bxp-mcp-dev "), lines[1]);
    // Nothing was installed.
    await assert.rejects(Deno.stat(join(cwd, "inst")), Deno.errors.NotFound);
  });
});

Deno.test("deno task install refuses bad flags with a clear message", async () => {
  await withTemp("bxp-install-bad-", async (cwd) => {
    for (
      const [args, why] of [
        [["--name-suffix=/x"], /--name-suffix '\/x' may hold only letters/],
        [["--root="], /--root needs a folder/],
        [["--bogus"], /Unknown option '--bogus' \(see --help\)/],
      ] as const
    ) {
      const run = await runInstall([...args, "--dry-run"], cwd);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, why);
      assert.ok(!run.stderr.includes("    at "), run.stderr);
    }
    const help = await runInstall(["--help"], cwd);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--name-suffix SUFFIX/);
  });
});

/** The permission flags in a POSIX launcher's `exec deno run ... <module>` line. */
function launcherFlags(text: string): string[] {
  const exec = text.split("\n").find((l) => l.startsWith("exec "));
  assert.ok(exec, text);
  return words(exec).filter((w) => w.startsWith("--") && !w.startsWith("--config"));
}

Deno.test({
  name: "deno task install: launchers that run from anywhere, with exactly the task flags",
  ignore: Deno.build.os === "windows", // the .cmd launchers need cmd.exe; the POSIX ones are checked here
  fn: async () => {
    await withTemp("bxp-install-", async (cwd) => {
      // A relative --root is taken from the folder the task was run in, not the checkout.
      const run = await runInstall(["--root", "inst"], cwd);
      assert.equal(run.code, 0, run.stderr);
      const bin = join(cwd, "inst", "bin");
      for (const entry of Object.keys(ENTRY_MODULES) as EntryPoint[]) {
        const text = await Deno.readTextFile(join(bin, entry));
        assert.deepEqual(launcherFlags(text).sort(), [...entryPointFlags(denoJsonText, entry)].sort(), entry);
        assert.ok(text.includes(new URL(ENTRY_MODULES[entry], REPO_ROOT).href), text);
      }
      await withTemp("bxp-install-elsewhere-", async (elsewhere) => {
        const cli = await new Deno.Command(join(bin, "bxp-cli"), {
          args: ["--version"],
          cwd: elsewhere,
          env: clientEnv(elsewhere),
          stdout: "piped",
          stderr: "piped",
        }).output();
        const expected = await runBxpCli(["--version"]);
        assert.equal(cli.code, 0, new TextDecoder().decode(cli.stderr));
        assert.equal(new TextDecoder().decode(cli.stdout), expected.text);
        // The guide's check after installing: both commands answer --version.
        const check = fences(await Deno.readTextFile(GUIDE)).find((f) => f.flags.has("installed"));
        assert.ok(check, "the guide shows how to check the install");
        for (const line of check.body.trim().split("\n")) {
          const [name, ...args] = words(line);
          const out = await new Deno.Command(join(bin, name), {
            args,
            cwd: elsewhere,
            env: clientEnv(elsewhere),
            stdout: "piped",
            stderr: "piped",
          }).output();
          assert.equal(out.code, 0, `${line}: ${new TextDecoder().decode(out.stderr)}`);
          assert.match(new TextDecoder().decode(out.stdout), new RegExp(`^${name} \\d+\\.\\d+\\.\\d+`), line);
        }

        const root = await makeProject();
        try {
          const client = new StdioClient(
            join(bin, "bxp-mcp"),
            ["--root", root],
            elsewhere,
            clientEnv(elsewhere),
          );
          try {
            await exerciseServer(client);
          } finally {
            assert.equal((await client.close()).code, 0, client.stderr);
          }
        } finally {
          await Deno.remove(root, { recursive: true });
        }
      });

      // Installing again is refused before either launcher is touched, unless --force.
      const before = await Deno.readTextFile(join(bin, "bxp-mcp"));
      await Deno.remove(join(bin, "bxp-cli"));
      const again = await runInstall(["--root", "inst"], cwd);
      assert.equal(again.code, 1, again.stderr);
      assert.match(again.stderr, /already installed: .*bxp-mcp; pass --force/);
      await assert.rejects(Deno.stat(join(bin, "bxp-cli")), Deno.errors.NotFound);
      const forced = await runInstall(["--root", "inst", "--force"], cwd);
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(await Deno.readTextFile(join(bin, "bxp-mcp")), before);
      assert.ok((await Deno.stat(join(bin, "bxp-cli"))).isFile);
    });
  },
});
