/**
 * docs/guide/install.md and `deno task install`, run for real:
 *
 * 1. the checkout form of the guide (`deno task --config .../deno.json bxp-mcp --root ...`), started from a
 *    working directory that is not the checkout, answers `initialize`, `tools/list` and a `bxp_simulate`;
 * 2. `deno task install --root DIR` leaves launchers that run: `bxp-cli --version`, and a `bxp-mcp` that answers
 *    from another working directory and simulates through the checkout's bxp-cli; an existing install is
 *    refused without `--force`; the launchers carry exactly the task's permission flags;
 * 3. every client snippet of the guide parses and names the same command line as the others of its form;
 * 4. the guide's bxp-cli checkout line converts, and its after-install check (`--version`) runs.
 *
 * The guide's placeholder paths are mapped onto the real checkout and fresh temp folders.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ENTRY_MODULES, type EntryPoint, entryPointFlags } from "../../src/distribution/entry_points.ts";
import { installArgs } from "../../tools/install.ts";
import { REPO_ROOT, runBxpCli } from "../_support/processes.ts";
import { ServerProcess, type Wire } from "../mcp/_support/server_process.ts";
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

const CHECKOUT_ARGV = ["deno", "task", "--config", GUIDE_DENO_JSON, "bxp-mcp", "--root", GUIDE_PROJECT];
const BINARY_ARGV = [GUIDE_BINARY, "--root", GUIDE_PROJECT];
const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode"];

/** A client snippet's command line: `command` + `args` of a JSON config, or what follows `--` in a shell line. */
function snippetArgv(f: Fence): string[] {
  const where = `install.md:${f.line}`;
  if (f.lang === "json") {
    const doc = JSON.parse(f.body);
    const vscode = f.attrs.get("client") === "vscode";
    const servers = vscode ? doc.servers : doc.mcpServers;
    assert.ok(servers !== undefined, `${where}: ${vscode ? "servers" : "mcpServers"}`);
    assert.deepEqual(Object.keys(doc), [vscode ? "servers" : "mcpServers"], where);
    const entry = servers.bxp;
    assert.equal(typeof entry?.command, "string", where);
    assert.ok(Array.isArray(entry.args) && entry.args.every((a: unknown) => typeof a === "string"), where);
    if (vscode) assert.equal(entry.type, "stdio", where);
    else assert.equal(entry.type, undefined, where);
    return [entry.command, ...entry.args];
  }
  assert.equal(f.lang, "sh", where);
  const lines = f.body.trim().split("\n");
  assert.equal(lines.length, 1, where);
  const argv = words(lines[0]);
  if (f.attrs.get("client") === "claude-code") {
    assert.deepEqual(argv.slice(0, 5), ["claude", "mcp", "add", "bxp", "--"], where);
    return argv.slice(5);
  }
  return argv;
}

/** The guide's checkout command line, mapped onto this checkout and `root`. */
function checkoutCommand(root: string): { program: string; args: string[] } {
  const argv = CHECKOUT_ARGV.map((w) => w === GUIDE_DENO_JSON ? DENO_JSON : w === GUIDE_PROJECT ? root : w);
  return { program: Deno.execPath(), args: argv.slice(1) };
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

Deno.test("install.md: every client snippet parses and names its form's one command line", async () => {
  const blocks = fences(await Deno.readTextFile(GUIDE)).filter((f) => f.attrs.has("form"));
  const seen = new Set<string>();
  for (const f of blocks) {
    const form = f.attrs.get("form")!;
    const client = f.attrs.get("client");
    assert.ok(form === "binary" || form === "checkout", `install.md:${f.line}: form ${form}`);
    if (client !== undefined) {
      assert.ok(CLIENTS.includes(client), `install.md:${f.line}: client ${client}`);
      assert.ok(!seen.has(`${client}/${form}`), `install.md:${f.line}: ${client} ${form} twice`);
      seen.add(`${client}/${form}`);
    }
    assert.deepEqual(snippetArgv(f), form === "binary" ? BINARY_ARGV : CHECKOUT_ARGV, `install.md:${f.line}`);
  }
  // Each client in both forms, plus the shell line of the checkout form.
  assert.equal(seen.size, CLIENTS.length * 2, [...seen].join(", "));
  assert.ok(blocks.some((f) => !f.attrs.has("client") && f.attrs.get("form") === "checkout"));
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

Deno.test("install.md: the checkout form starts from another working directory and simulates", async () => {
  const root = await makeProject();
  try {
    await withTemp("bxp-install-cwd-", async (cwd) => {
      const { program, args } = checkoutCommand(root);
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
