/**
 * bxp-mcp from a client's seat: cold start (spawn to the `initialize` answer) and each tool's first call
 * over several fresh processes, the round-trip latency of stateless tool calls over stdio against one
 * long-lived server, measured call by call (send one request, wait for its answer) as an agent in a tight
 * loop would, and the same `ping` against a minimal Deno echo server (the platform's floor).
 * @module
 */

import { median, quantile } from "./measure.ts";

/** One request's latency figures. */
export interface ToolLatency {
  /** The tool name, or the bare method (`ping`) for the protocol floor. */
  tool: string;
  calls: number;
  medianMs: number;
  p99Ms: number;
}

/** What the MCP part found. */
export type McpResult =
  | { ready: false; reason: string }
  | {
    ready: true;
    coldStartMs: number[];
    /** Each tool's first call in a fresh session (after `initialize`), one sample per cold start. */
    firstCalls: ToolLatency[];
    tools: ToolLatency[];
    /** `ping` against {@link McpBenchOptions.floorArgv}; null when not asked for or when it failed. */
    floor: ToolLatency | null;
  };

/** A request to make many times: a tool call, or a bare method such as `ping` (no tool, the floor). */
export type ToolCall = { name: string; arguments: Record<string, unknown> } | { method: string };

/** How to run the server and how hard to push it. */
export interface McpBenchOptions {
  /** The server's argv (`deno run <bxp-mcp flags> main.ts`). */
  argv: string[];
  /** A minimal stdio server answering `ping` (see `stdio_echo.ts`), timed like the tools; optional. */
  floorArgv?: string[];
  cwd: string;
  coldStarts: number;
  warmupCalls: number;
  measuredCalls: number;
  calls: ToolCall[];
  /** Give up on a server that has not answered after this long. */
  answerTimeoutMs: number;
}

const PROTOCOL_VERSION = "2025-06-18";

/** Newline-delimited JSON messages from a byte stream (bytes are scanned; only whole lines are decoded). */
class MessageReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #pending: Uint8Array = new Uint8Array(0);
  #decoder = new TextDecoder();

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** The next non-empty line parsed as JSON, or null at end of stream. */
  async next(): Promise<Record<string, unknown> | null> {
    for (;;) {
      const newline = this.#pending.indexOf(0x0a);
      if (newline >= 0) {
        const line = this.#decoder.decode(this.#pending.subarray(0, newline)).trim();
        this.#pending = this.#pending.subarray(newline + 1);
        if (line !== "") return JSON.parse(line) as Record<string, unknown>;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) return null;
      if (this.#pending.length === 0) {
        this.#pending = value;
      } else {
        const joined = new Uint8Array(this.#pending.length + value.length);
        joined.set(this.#pending);
        joined.set(value, this.#pending.length);
        this.#pending = joined;
      }
    }
  }

  cancel(): void {
    this.#reader.cancel().catch(() => {});
  }
}

/** One running server and a strictly sequential client for it. */
class McpSession {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: MessageReader;
  #nextId = 1;
  #encoder = new TextEncoder();
  #stderr: Promise<string>;
  #waitingSince: number | null = null;
  #timeoutMs = 0;
  #killedBy: string | null = null;
  #watchdog: ReturnType<typeof setInterval>;

  constructor(argv: string[], cwd: string) {
    this.#child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reader = new MessageReader(this.#child.stdout);
    this.#stderr = new Response(this.#child.stderr).text();
    this.#watchdog = setInterval(() => this.#watch(), 250);
  }

  async notify(method: string, params: Record<string, unknown> = {}): Promise<void> {
    await this.#writer.write(this.#encoder.encode(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n"));
  }

  /**
   * Sends a request and resolves with its answer (messages without our id, e.g. logs, are skipped). No timer
   * per call, so the client adds as little as it can to the latency it measures: a watchdog kills a server
   * that stays silent for `timeoutMs`, which ends the wait with an error.
   */
  async request(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<
    Record<string, unknown>
  > {
    const id = this.#nextId++;
    this.#waitingSince = performance.now();
    this.#timeoutMs = timeoutMs;
    await this.#writer.write(
      this.#encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"),
    );
    try {
      return await this.#answerTo(id, method);
    } catch (err) {
      if (this.#killedBy !== null) throw new Error(this.#killedBy);
      throw err;
    } finally {
      this.#waitingSince = null;
    }
  }

  #watch(): void {
    if (this.#waitingSince === null || performance.now() - this.#waitingSince < this.#timeoutMs) return;
    this.#killedBy = `no answer within ${this.#timeoutMs} ms`;
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }

  async #answerTo(id: number, method: string): Promise<Record<string, unknown>> {
    for (;;) {
      const message = await this.#reader.next();
      if (message === null) throw new Error(`the server closed stdout before answering '${method}'`);
      if (message.id === id) return message;
    }
  }

  /** Closes stdin, waits a moment for a clean exit, then kills; returns what the server logged. */
  async close(): Promise<string> {
    clearInterval(this.#watchdog);
    await this.#writer.close().catch(() => {});
    const exited = await Promise.race([
      this.#child.status.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000)),
    ]);
    if (!exited) {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // exited meanwhile
      }
      await this.#child.status;
    }
    this.#reader.cancel();
    return (await this.#stderr).trim();
  }
}

function initializeParams(): Record<string, unknown> {
  return {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "bxp-bench", version: "1" },
  };
}

function callFailure(answer: Record<string, unknown>): string | null {
  if (answer.error !== undefined) return JSON.stringify(answer.error);
  const result = answer.result as { isError?: boolean; content?: unknown } | undefined;
  if (result === undefined) return "answer without a result";
  if (result.isError === true) return JSON.stringify(result.content).slice(0, 300);
  return null;
}

/** A request's label: the tool name, or the bare method. */
function callLabel(call: ToolCall): string {
  return "method" in call ? call.method : call.name;
}

/** Send `call` once and return the milliseconds to its answer; throws when it failed. */
async function timeCall(session: McpSession, call: ToolCall, timeoutMs: number): Promise<number> {
  const started = performance.now();
  const answer = "method" in call
    ? await session.request(call.method, {}, timeoutMs)
    : await session.request("tools/call", { ...call }, timeoutMs);
  const elapsed = performance.now() - started;
  const failure = callFailure(answer);
  if (failure !== null) throw new Error(`${callLabel(call)} failed: ${failure}`);
  return elapsed;
}

/**
 * One fresh process: the milliseconds from spawn to the `initialize` answer, then those of each tool's
 * first call (what an agent's first use of a tool costs), in `opts.calls` order.
 */
async function coldStart(opts: McpBenchOptions): Promise<{ startMs: number; firstMs: number[] }> {
  const started = performance.now();
  const session = new McpSession(opts.argv, opts.cwd);
  let startMs: number;
  const firstMs: number[] = [];
  try {
    const answer = await session.request("initialize", initializeParams(), opts.answerTimeoutMs);
    startMs = performance.now() - started;
    if (answer.error !== undefined) throw new Error(`initialize failed: ${JSON.stringify(answer.error)}`);
    await session.notify("notifications/initialized");
    for (const call of opts.calls) firstMs.push(await timeCall(session, call, opts.answerTimeoutMs));
  } catch (err) {
    const log = await session.close();
    const said = log.replace(/\s*\n\s*/g, " / ").slice(0, 300);
    throw new Error(`${(err as Error).message}${said ? `; server said: ${said}` : ""}`);
  }
  await session.close();
  return { startMs, firstMs };
}

/** Time `calls` sequentially against one running session: warm-up calls first, then the measured ones. */
async function timeCalls(
  session: McpSession,
  opts: McpBenchOptions,
  calls: ToolCall[],
): Promise<ToolLatency[]> {
  const tools: ToolLatency[] = [];
  for (const call of calls) {
    const samples: number[] = [];
    for (let i = 0; i < opts.warmupCalls + opts.measuredCalls; i++) {
      const elapsed = await timeCall(session, call, opts.answerTimeoutMs);
      if (i >= opts.warmupCalls) samples.push(elapsed);
    }
    tools.push(latency(callLabel(call), samples));
  }
  return tools;
}

function latency(tool: string, samples: number[]): ToolLatency {
  return { tool, calls: samples.length, medianMs: median(samples), p99Ms: quantile(samples, 0.99) };
}

/** `ping` against the floor server, or null when it fails (the floor is context, not a goal). */
async function measureFloor(opts: McpBenchOptions): Promise<ToolLatency | null> {
  if (opts.floorArgv === undefined) return null;
  const session = new McpSession(opts.floorArgv, opts.cwd);
  try {
    const [ping] = await timeCalls(session, opts, [{ method: "ping" }]);
    return ping;
  } catch {
    return null;
  } finally {
    await session.close();
  }
}

/**
 * Measures cold start and tool latency. Never throws: a server that does not start or answer comes back as
 * `{ ready: false, reason }`, so the rest of the bench carries on.
 */
export async function benchMcp(opts: McpBenchOptions): Promise<McpResult> {
  const coldStartMs: number[] = [];
  const firstSamples: number[][] = opts.calls.map(() => []);
  try {
    for (let i = 0; i < opts.coldStarts; i++) {
      const { startMs, firstMs } = await coldStart(opts);
      coldStartMs.push(startMs);
      firstMs.forEach((ms, k) => firstSamples[k].push(ms));
    }
  } catch (err) {
    return { ready: false, reason: (err as Error).message };
  }
  const firstCalls = opts.calls.map((call, k) => latency(callLabel(call), firstSamples[k]));
  const session = new McpSession(opts.argv, opts.cwd);
  let tools: ToolLatency[];
  try {
    await session.request("initialize", initializeParams(), opts.answerTimeoutMs);
    await session.notify("notifications/initialized");
    tools = await timeCalls(session, opts, opts.calls);
  } catch (err) {
    return { ready: false, reason: (err as Error).message };
  } finally {
    await session.close();
  }
  return { ready: true, coldStartMs, firstCalls, tools, floor: await measureFloor(opts) };
}
