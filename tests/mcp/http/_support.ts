/**
 * The real bxp-mcp serving `--http` for tests: spawned with the bxp-mcp task's flags on a free loopback
 * port (`--http HOST:0`; the address is read from its "listening on" log line), a private TMPDIR, and
 * stderr collected for pid and log checks.
 *
 * @module
 */

import { entryArgs } from "../../_support/processes.ts";

const LISTENING = /listening on (http:\/\/\S+\/mcp)/;

/** A running `bxp-mcp --http`. */
export class HttpServerProcess {
  /** The endpoint, e.g. `http://127.0.0.1:40123/mcp`. */
  readonly url: string;
  /** The private temp folder given as TMPDIR (simulation workspaces live under it). */
  readonly tmpDir: string;
  readonly #child: Deno.ChildProcess;
  readonly #log: { text: string };
  readonly #stderrDone: Promise<void>;

  private constructor(
    url: string,
    tmpDir: string,
    child: Deno.ChildProcess,
    log: { text: string },
    done: Promise<void>,
  ) {
    this.url = url;
    this.tmpDir = tmpDir;
    this.#child = child;
    this.#log = log;
    this.#stderrDone = done;
  }

  /** Start `bxp-mcp --http <host>:0 ...args` and wait until it listens. */
  static async start(args: string[] = [], host = "127.0.0.1"): Promise<HttpServerProcess> {
    const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-http-" });
    const child = new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-mcp", ["--http", `${host}:0`, ...args]),
      env: { TMPDIR: tmpDir },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const log = { text: "" };
    let listening: (url: string | null) => void = () => {};
    const found = new Promise<string | null>((resolve) => listening = resolve);
    const done = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) {
        log.text += decoder.decode(chunk, { stream: true });
        const match = LISTENING.exec(log.text);
        if (match !== null) listening(match[1]);
      }
      listening(null);
    })();
    const url = await found;
    if (url === null) {
      await child.status;
      throw new Error(`bxp-mcp --http did not start:\n${log.text}`);
    }
    return new HttpServerProcess(url, tmpDir, child, log, done);
  }

  /** Everything written to stderr so far. */
  get stderr(): string {
    return this.#log.text;
  }

  /** The origin, e.g. `http://127.0.0.1:40123`. */
  get origin(): string {
    return new URL(this.url).origin;
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Wait (polling, at most `timeoutMs`) until `check` holds; throws naming `what` otherwise. */
  async waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!await check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Send `signal` and wait for the exit code. */
  async stop(signal: Deno.Signal = "SIGTERM"): Promise<number> {
    try {
      this.#child.kill(signal);
    } catch {
      // already gone
    }
    const { code } = await this.#child.status;
    await this.#stderrDone;
    return code;
  }

  /** Stop the server (if running) and remove its temp folder. */
  async dispose(): Promise<void> {
    await this.stop("SIGKILL").catch(() => {});
    await Deno.remove(this.tmpDir, { recursive: true }).catch(() => {});
  }
}

export { SLOW_CONFIG, SLOW_CSV } from "../_support/server_process.ts";

/** The pids of bxp-cli children the server has logged as running. */
export function cliPids(stderr: string): number[] {
  return [...stderr.matchAll(/bxp-cli pid (\d+) running/g)].map((m) => Number(m[1]));
}

/** Headers of a well-formed POST to the endpoint. */
export const POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** An `initialize` request body. */
export function initializeBody(id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
}

/** Open a session by hand; returns its id. */
export async function openSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: initializeBody(),
  });
  await response.body?.cancel();
  const id = response.headers.get("mcp-session-id");
  if (response.status !== 200 || id === null) throw new Error(`initialize answered ${response.status}`);
  return id;
}

/** Files and folders under `dir` (recursively), as relative paths; [] when it does not exist. */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string, prefix: string) => {
    let entries: Deno.DirEntry[] = [];
    try {
      entries = await Array.fromAsync(Deno.readDir(at));
    } catch {
      return;
    }
    for (const entry of entries) {
      out.push(prefix + entry.name);
      if (entry.isDirectory) await walk(`${at}/${entry.name}`, `${prefix}${entry.name}/`);
    }
  };
  await walk(dir, "");
  return out;
}
