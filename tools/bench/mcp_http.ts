/**
 * bxp-mcp over Streamable HTTP under load, from clients' seats: 32 concurrent sessions each making 500
 * `bxp_eval` calls one after another, 8 concurrent `bxp_simulate` calls, one client alone (the figure to
 * read next to the stdio round trip), and the server's resident memory while 10,000 sessions are opened
 * and closed (it must come back flat). The clients are plain `fetch` (no SDK), so the figures are the
 * server's and the loopback's. Run alone with `deno run -A tools/bench/mcp_http.ts [--quick]`.
 * @module
 */

import { median, quantile } from "./measure.ts";

/** Latency figures of one load shape. */
export interface HttpLoad {
  label: string;
  clients: number;
  callsPerClient: number;
  p50Ms: number;
  p99Ms: number;
  /** Calls answered per second over the whole shape's wall time. */
  callsPerSecond: number;
}

/** What the HTTP part found. */
export type McpHttpResult =
  | { ready: false; reason: string }
  | {
    ready: true;
    loads: HttpLoad[];
    sessions: { opened: number; rssMiB: { atStart: number; peak: number; atEnd: number; samples: number[] } };
  };

/** How to start the server and how hard to push it. */
export interface McpHttpBenchOptions {
  /** The server's argv without `--http` (`deno run <bxp-mcp flags> main.ts`). */
  argv: string[];
  cwd: string;
  clients: number;
  callsPerClient: number;
  simulations: number;
  sessions: number;
  /** A bxp_eval call's arguments. */
  evalArgs: Record<string, unknown>;
  /** A bxp_simulate call's arguments. */
  simulateArgs: Record<string, unknown>;
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** The `Authorization` header of each running server (by endpoint): bxp-mcp --http needs its token. */
const AUTH = new Map<string, Record<string, string>>();

/** One MCP session over plain fetch. */
class Session {
  #id = "";
  #next = 1;
  constructor(readonly url: string) {}

  async open(): Promise<void> {
    const response = await this.#post({
      jsonrpc: "2.0",
      id: this.#next++,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    });
    this.#id = response.headers.get("mcp-session-id") ?? "";
    await response.text();
    if (this.#id === "") throw new Error(`initialize answered ${response.status} without a session id`);
    (await this.#post({ jsonrpc: "2.0", method: "notifications/initialized" })).body?.cancel();
  }

  /** One tool call; resolves with its wall time in ms. Throws on an error or a tool failure. */
  async call(name: string, args: Record<string, unknown>): Promise<number> {
    const started = performance.now();
    const response = await this.#post({
      jsonrpc: "2.0",
      id: this.#next++,
      method: "tools/call",
      params: { name, arguments: args },
    });
    const text = await response.text();
    const elapsed = performance.now() - started;
    // An event stream (progress first) ends with the answer as its last data line.
    const json = response.headers.get("content-type")?.startsWith("text/event-stream")
      ? text.trim().split("\n").filter((l) => l.startsWith("data: ")).at(-1)?.slice(6) ?? ""
      : text;
    const answer = JSON.parse(json);
    if (answer.error !== undefined || answer.result?.isError) {
      throw new Error(`${name} failed: ${json.slice(0, 300)}`);
    }
    return elapsed;
  }

  async close(): Promise<void> {
    const response = await fetch(this.url, {
      method: "DELETE",
      headers: { ...AUTH.get(this.url), "mcp-session-id": this.#id },
    });
    await response.body?.cancel();
  }

  #post(message: unknown): Promise<Response> {
    const headers: Record<string, string> = { ...HEADERS, ...AUTH.get(this.url) };
    if (this.#id !== "") headers["mcp-session-id"] = this.#id;
    return fetch(this.url, { method: "POST", headers, body: JSON.stringify(message) });
  }
}

/** Resident set size of `pid` in MiB (Linux), or NaN. */
async function rssMiB(pid: number): Promise<number> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

async function load(
  url: string,
  label: string,
  clients: number,
  calls: number,
  call: (s: Session) => Promise<number>,
): Promise<HttpLoad> {
  const sessions = await Promise.all(Array.from({ length: clients }, async () => {
    const s = new Session(url);
    await s.open();
    return s;
  }));
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(sessions.map(async (s) => {
    for (let i = 0; i < calls; i++) latencies.push(await call(s));
  }));
  const wall = (performance.now() - started) / 1000;
  await Promise.all(sessions.map((s) => s.close()));
  latencies.sort((a, b) => a - b);
  return {
    label,
    clients,
    callsPerClient: calls,
    p50Ms: median(latencies),
    p99Ms: quantile(latencies, 0.99),
    callsPerSecond: latencies.length / wall,
  };
}

/** Start `bxp-mcp --http 127.0.0.1:0` and run the loads against it. */
export async function benchMcpHttp(options: McpHttpBenchOptions): Promise<McpHttpResult> {
  const tmp = await Deno.makeTempDir({ prefix: "bxp-bench-http-" });
  const [program, ...args] = options.argv;
  // --http needs a fixed root (the loads send inline configs, so an empty folder will do); the bearer
  // token the server generates is read from the file its log names.
  await Deno.mkdir(`${tmp}/project`);
  const child = new Deno.Command(program, {
    args: [...args, "--http", "127.0.0.1:0", "--root", `${tmp}/project`],
    cwd: options.cwd,
    env: { TMPDIR: tmp },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const url = await new Promise<string | null>((resolve) => {
    (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) {
        log += decoder.decode(chunk, { stream: true });
        const match = /listening on (http:\/\/\S+\/mcp)/.exec(log);
        if (match !== null) resolve(match[1]);
      }
      resolve(null);
    })();
  });
  try {
    if (url === null) {
      return { ready: false, reason: `bxp-mcp --http did not start: ${log.trim().slice(-300)}` };
    }
    const tokenFile = /bearer token written to (\S+) \(mode 0600\)/.exec(log)?.[1];
    if (tokenFile !== undefined) {
      AUTH.set(url, { authorization: `Bearer ${(await Deno.readTextFile(tokenFile)).trim()}` });
    }
    const loads: HttpLoad[] = [];
    const evalCall = (s: Session) => s.call("bxp_eval", options.evalArgs);
    loads.push(await load(url, "bxp_eval, 1 client (warm-up)", 1, 100, evalCall));
    loads.push(await load(url, "bxp_eval, 1 client", 1, options.callsPerClient, evalCall));
    loads.push(
      await load(
        url,
        `bxp_eval, ${options.clients} clients`,
        options.clients,
        options.callsPerClient,
        evalCall,
      ),
    );
    loads.push(
      await load(
        url,
        `bxp_simulate, ${options.simulations} clients`,
        options.simulations,
        1,
        (s) => s.call("bxp_simulate", options.simulateArgs),
      ),
    );
    const samples = [await rssMiB(child.pid)];
    const every = Math.max(1, Math.floor(options.sessions / 10));
    for (let i = 1; i <= options.sessions; i++) {
      const s = new Session(url);
      await s.open();
      await s.close();
      if (i % every === 0) samples.push(await rssMiB(child.pid));
    }
    return {
      ready: true,
      loads: loads.slice(1),
      sessions: {
        opened: options.sessions,
        rssMiB: { atStart: samples[0], peak: Math.max(...samples), atEnd: samples.at(-1)!, samples },
      },
    };
  } catch (error) {
    return { ready: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
    if (url !== null) AUTH.delete(url);
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/** The Markdown section of the report. */
export function renderMcpHttpSection(result: McpHttpResult): string[] {
  if (!result.ready) return ["### bxp-mcp over Streamable HTTP", "", `not measured: ${result.reason}`, ""];
  const f = (n: number) => n.toFixed(2);
  const { rssMiB, opened } = result.sessions;
  return [
    "### bxp-mcp over Streamable HTTP",
    "",
    "| load | clients × calls | p50 ms | p99 ms | calls/s |",
    "| ---- | --------------- | ------ | ------ | ------- |",
    ...result.loads.map((l) =>
      `| ${l.label} | ${l.clients} × ${l.callsPerClient} | ${f(l.p50Ms)} | ${f(l.p99Ms)} | ${
        l.callsPerSecond.toFixed(0)
      } |`
    ),
    "",
    `Resident memory while ${opened} sessions were opened (initialize) and closed (DELETE) one after ` +
    `another: ${f(rssMiB.atStart)} MiB before, peak ${f(rssMiB.peak)} MiB, ${f(rssMiB.atEnd)} MiB after ` +
    `(samples: ${rssMiB.samples.map((s) => s.toFixed(0)).join(", ")}).`,
    "",
  ];
}

/**
 * The whole HTTP part as `deno task bench` runs it: the real bxp-mcp from `root` with the task's flags,
 * 32 clients × 500 calls and 10,000 sessions (`quick`: 8 × 100 and 1,000).
 */
export async function runMcpHttpBench(
  options: { root: string; denoJson: string; quick: boolean; progress?: (message: string) => void },
): Promise<McpHttpResult> {
  const { ENTRY_MODULES, entryPointFlags } = await import("../../src/distribution/mod.ts");
  const root = options.root.endsWith("/") ? options.root : `${options.root}/`;
  options.progress?.("bxp-mcp over Streamable HTTP: concurrent clients and 10,000 sessions");
  const headers = ["id", "name", "date", "amount"];
  return await benchMcpHttp({
    argv: [
      Deno.execPath(),
      "run",
      ...entryPointFlags(options.denoJson, "bxp-mcp"),
      `${root}${ENTRY_MODULES["bxp-mcp"]}`,
    ],
    cwd: root,
    clients: options.quick ? 8 : 32,
    callsPerClient: options.quick ? 100 : 500,
    simulations: 8,
    sessions: options.quick ? 1_000 : 10_000,
    evalArgs: {
      expr: "DATE_CONVERT([date], 'DD.MM.YYYY', 'YYYY-MM-DD')",
      headers,
      fields: ["17", "name17", "18.06.2024", "884.10"],
    },
    simulateArgs: await demoSimulateArgs(`${root}samples/demo/`),
  });
}

if (import.meta.main) {
  const root = new URL("../../", import.meta.url).pathname;
  const result = await runMcpHttpBench({
    root,
    denoJson: await Deno.readTextFile(`${root}deno.json`),
    quick: Deno.args.includes("--quick"),
    progress: (message) => console.error(message),
  });
  console.log(renderMcpHttpSection(result).join("\n"));
}

/** bxp_simulate arguments from the bundled demo (its config, first template, and statement CSV). */
export async function demoSimulateArgs(demoDir: string): Promise<Record<string, unknown>> {
  const config = await Deno.readTextFile(`${demoDir}bxp-cli.json`);
  const template = /conversion_templates"?\s*:\s*\{\s*"?([A-Za-z0-9_]+)/.exec(config)?.[1] ?? "";
  const csv = await Deno.readTextFile(`${demoDir}data/statement_2024-01-01_2024-12-31.csv`);
  return { config, template, csv };
}
