/**
 * A minimal MCP client over stdio for any command line (an installed launcher, `deno task ...`), as a client
 * application would start it: its own working directory, stdout checked line by line as JSON-RPC.
 *
 * @module
 */

import { parseWireLine, type Wire } from "../mcp/_support/server_process.ts";

/** A server started from an arbitrary command. */
export class StdioClient {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #messages: Wire[] = [];
  readonly #done: Promise<void>;
  #stderr = "";
  #failure: unknown = null;
  #nextId = 0;

  /** Start `program args` in `cwd` with `env` added to this process's environment. */
  constructor(program: string, args: string[], cwd: string, env: Record<string, string>) {
    this.#child = new Deno.Command(program, {
      args,
      cwd,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    })
      .spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#done = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
  }

  async #readStdout(): Promise<void> {
    let pending = "";
    try {
      for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
        pending += chunk;
        for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
          this.#messages.push(parseWireLine(pending.slice(0, nl)));
          pending = pending.slice(nl + 1);
        }
      }
    } catch (error) {
      this.#failure = error;
    }
  }

  async #readStderr(): Promise<void> {
    for await (const chunk of this.#child.stderr.pipeThrough(new TextDecoderStream())) this.#stderr += chunk;
  }

  /** stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Send a request and wait for its response (failing with stderr after `timeoutMs`). */
  async request(method: string, params: unknown = {}, timeoutMs = 120_000): Promise<Wire> {
    const id = ++this.#nextId;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    await this.#writer.write(new TextEncoder().encode(`${line}\n`));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.#failure !== null) throw this.#failure;
      const found = this.#messages.find((m) => m.id === id);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no answer to ${method}; stderr:\n${this.#stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** `initialize` as a client sends it, then the `initialized` notification. */
  async initialize(): Promise<Wire> {
    const answer = await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "install-test", version: "1" },
    });
    await this.#writer.write(
      new TextEncoder().encode(
        `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
      ),
    );
    return answer;
  }

  /** Close stdin (the server's cue to exit) and wait; kills the process if it is still there after that. */
  async close(): Promise<Deno.CommandStatus> {
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }, 30_000);
    try {
      const status = await this.#child.status;
      await this.#done;
      if (this.#failure !== null) throw this.#failure;
      return status;
    } finally {
      clearTimeout(timer);
    }
  }
}
