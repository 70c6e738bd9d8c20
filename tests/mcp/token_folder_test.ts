/**
 * The generated bearer token's folder (`$TMPDIR/bxp-mcp-token-<pid>-<random>`, 0700, holding `token` and
 * `pid`, 0600) lives as long as the bxp-mcp that made it: removed on SIGTERM and when the server cannot
 * listen, and swept by the next `--http` start when a killed bxp-mcp left it, while every folder that is not
 * exactly such a leftover (live pid, unknown file, sub-folder, wrong mode, symlink) stays untouched.
 * Real processes, each with a private TMPDIR.
 */
import assert from "node:assert/strict";
import { entryArgs } from "../_support/processes.ts";

const LISTENING = /listening on (http:\/\/\S+\/mcp)/;
const TOKEN_FILE = /bearer token written to (\S+) \(mode 0600\)/;
const POSIX = Deno.build.os !== "windows";

/** A spawned `bxp-mcp --http 127.0.0.1:PORT --root ROOT` with TMPDIR `tmpDir`, its stderr collected. */
class Server {
  readonly child: Deno.ChildProcess;
  readonly #log = { text: "" };
  readonly #done: Promise<void>;

  constructor(tmpDir: string, root: string, port = 0) {
    const child = new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-mcp", ["--http", `127.0.0.1:${port}`, "--root", root]),
      env: { TMPDIR: tmpDir },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    this.child = child;
    const log = this.#log;
    this.#done = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) log.text += decoder.decode(chunk, { stream: true });
    })();
  }

  get stderr(): string {
    return this.#log.text;
  }

  /** Wait (up to 60 s) until stderr matches `pattern`; the match. */
  async waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const match = pattern.exec(this.stderr);
      if (match !== null) return match;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; stderr:\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The exit code, once stderr has ended. */
  async exit(): Promise<number> {
    const { code } = await this.child.status;
    await this.#done;
    return code;
  }

  /** Send `signal` and wait for the exit code. */
  async stop(signal: Deno.Signal = "SIGTERM"): Promise<number> {
    try {
      this.child.kill(signal);
    } catch {
      // already gone
    }
    return await this.exit();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Poll (up to 30 s) until `check` holds. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A fresh private TMPDIR and a project root beside it (removed by the returned function). */
async function workspace(): Promise<{ tmpDir: string; root: string; dispose: () => Promise<void> }> {
  const outer = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-token-folder-test-" }));
  const tmpDir = `${outer}/tmp`;
  const root = `${outer}/project`;
  await Deno.mkdir(tmpDir);
  await Deno.mkdir(root);
  return { tmpDir, root, dispose: () => Deno.remove(outer, { recursive: true }).catch(() => {}) };
}

async function tokenFolders(tmpDir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(tmpDir)) {
    if (entry.name.startsWith("bxp-mcp-token-")) names.push(entry.name);
  }
  return names.sort();
}

/** The pid of a process that has ended (a `true` that ran and was reaped). */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true", { stdin: "null", stdout: "null", stderr: "null" }).spawn();
  await child.status;
  return child.pid;
}

/** Make a folder shaped like a token folder: mode 0700, `pid` holding `pid`, `token`, and `extra` files. */
async function plantFolder(dir: string, pid: number, extra: string[] = [], mode = 0o700): Promise<void> {
  await Deno.mkdir(dir);
  await Deno.chmod(dir, 0o700);
  await Deno.writeTextFile(`${dir}/pid`, `${pid}\n`, { mode: 0o600 });
  await Deno.writeTextFile(`${dir}/token`, `${"ab".repeat(32)}\n`, { mode: 0o600 });
  for (const name of extra) await Deno.writeTextFile(`${dir}/${name}`, "x\n", { mode: 0o600 });
  await Deno.chmod(dir, mode);
}

Deno.test({
  name: "bxp-mcp --http: the generated token's folder (0700, token 0600) is removed on SIGTERM",
  ignore: !POSIX,
  async fn() {
    const { tmpDir, root, dispose } = await workspace();
    const server = new Server(tmpDir, root);
    try {
      await server.waitFor(LISTENING);
      const file = (await server.waitFor(TOKEN_FILE))[1];
      const dir = file.slice(0, file.lastIndexOf("/"));
      assert.equal(dir.slice(0, dir.lastIndexOf("/")), tmpDir, "the folder is in the server's TMPDIR");
      assert.match(dir.slice(dir.lastIndexOf("/") + 1), new RegExp(`^bxp-mcp-token-${server.child.pid}-`));
      assert.equal((await Deno.lstat(dir)).mode! & 0o777, 0o700);
      assert.equal((await Deno.lstat(file)).mode! & 0o777, 0o600);
      assert.equal((await Deno.lstat(`${dir}/pid`)).mode! & 0o777, 0o600);
      assert.equal((await Deno.readTextFile(`${dir}/pid`)).trim(), String(server.child.pid));
      assert.match((await Deno.readTextFile(file)).trim(), /^[0-9a-f]{64}$/);
      assert.equal(await server.stop("SIGTERM"), 0, server.stderr);
      await eventually(async () => !await exists(dir), "the token folder to be removed");
      assert.deepEqual(await tokenFolders(tmpDir), [], server.stderr);
    } finally {
      await server.stop("SIGKILL").catch(() => {});
      await dispose();
    }
  },
});

Deno.test({
  name: "bxp-mcp --http: the token's folder is removed when the server cannot listen",
  ignore: !POSIX,
  async fn() {
    const { tmpDir, root, dispose } = await workspace();
    const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const server = new Server(tmpDir, root, (busy.addr as Deno.NetAddr).port);
    try {
      const code = await server.exit();
      assert.notEqual(code, 0, server.stderr);
      assert.match(server.stderr, TOKEN_FILE, "the token was written before the listen failed");
      assert.match(server.stderr, /cannot listen/);
      assert.deepEqual(await tokenFolders(tmpDir), [], server.stderr);
    } finally {
      busy.close();
      await server.stop("SIGKILL").catch(() => {});
      await dispose();
    }
  },
});

Deno.test({
  name: "bxp-mcp --http: a start sweeps only the token folders killed servers left, nothing else",
  ignore: !POSIX, // liveness is probed with signal 0: on Windows nothing is swept
  async fn() {
    const { tmpDir, root, dispose } = await workspace();
    const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-token-folder-target-" }));
    const servers: Server[] = [];
    try {
      // A real leftover: a server killed with SIGKILL keeps its folder.
      const killed = new Server(tmpDir, root);
      servers.push(killed);
      await killed.waitFor(LISTENING);
      const killedFile = (await killed.waitFor(TOKEN_FILE))[1];
      const killedDir = killedFile.slice(0, killedFile.lastIndexOf("/"));
      await killed.stop("SIGKILL");
      assert.ok(await exists(killedFile), "SIGKILL leaves the folder behind");

      const dead = await deadPid();
      const stale = `${tmpDir}/bxp-mcp-token-${dead}-stale1`;
      await plantFolder(stale, dead);
      const live = `${tmpDir}/bxp-mcp-token-${Deno.pid}-live01`;
      await plantFolder(live, Deno.pid);
      const extra = `${tmpDir}/bxp-mcp-token-${dead}-extra1`;
      await plantFolder(extra, dead, ["notes.txt"]);
      const sub = `${tmpDir}/bxp-mcp-token-${dead}-subdir`;
      await plantFolder(sub, dead);
      await Deno.mkdir(`${sub}/inner`);
      const open = `${tmpDir}/bxp-mcp-token-${dead}-mode755`;
      await plantFolder(open, dead, [], 0o755);
      const wrongPid = `${tmpDir}/bxp-mcp-token-${dead}-other1`;
      await plantFolder(wrongPid, Deno.pid);
      const noPid = `${tmpDir}/bxp-mcp-token-${dead}-nopid1`;
      await plantFolder(noPid, dead);
      await Deno.remove(`${noPid}/pid`);
      const legacy = `${tmpDir}/bxp-mcp-token-a1b2c3`;
      await plantFolder(legacy, dead);
      // Symlinks to a folder that itself looks stale: never followed, neither the link nor its target.
      const target = `${outside}/bxp-mcp-token-${dead}-target`;
      await plantFolder(target, dead);
      await Deno.symlink(target, `${tmpDir}/bxp-mcp-token-link`);
      await Deno.symlink(target, `${tmpDir}/bxp-mcp-token-${dead}-link01`);

      const server = new Server(tmpDir, root);
      servers.push(server);
      await server.waitFor(LISTENING);
      const ownFile = (await server.waitFor(TOKEN_FILE))[1];
      const ownDir = ownFile.slice(0, ownFile.lastIndexOf("/"));
      assert.equal(await server.stop("SIGTERM"), 0, server.stderr);
      await eventually(async () => !await exists(ownDir), "the server's own token folder to be removed");

      assert.ok(!await exists(killedDir), `the killed server's folder is swept\n${server.stderr}`);
      assert.ok(!await exists(stale), `the planted stale folder is swept\n${server.stderr}`);
      const kept = [live, extra, sub, open, wrongPid, noPid, legacy];
      for (const dir of kept) assert.ok(await exists(dir), `${dir} is left alone`);
      assert.deepEqual(await Array.fromAsync(Deno.readDir(extra), (e) => e.name).then((n) => n.sort()), [
        "notes.txt",
        "pid",
        "token",
      ]);
      assert.ok((await Deno.lstat(`${sub}/inner`)).isDirectory);
      for (const link of ["bxp-mcp-token-link", `bxp-mcp-token-${dead}-link01`]) {
        assert.ok((await Deno.lstat(`${tmpDir}/${link}`)).isSymlink, `${link} is left alone`);
      }
      assert.deepEqual(await Array.fromAsync(Deno.readDir(target), (e) => e.name).then((n) => n.sort()), [
        "pid",
        "token",
      ]);
      assert.deepEqual(
        await tokenFolders(tmpDir),
        [
          ...kept.map((dir) => dir.slice(tmpDir.length + 1)),
          "bxp-mcp-token-link",
          `bxp-mcp-token-${dead}-link01`,
        ].sort(),
      );
      const removedLines = server.stderr.split("\n").filter((line) => line.includes("removed $TMPDIR/"));
      assert.equal(removedLines.length, 2, server.stderr);
    } finally {
      for (const server of servers) await server.stop("SIGKILL").catch(() => {});
      await dispose();
      await Deno.remove(outside, { recursive: true }).catch(() => {});
    }
  },
});
