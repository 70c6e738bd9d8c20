/**
 * The real bxp-mcp process for tests: spawned with the bxp-mcp task's flags, stdout checked byte for byte
 * (every line must be one JSON-RPC message), stderr collected, and a private temp folder as TMPDIR so
 * simulate workspaces stay inside the test.
 *
 * @module
 */

import assert from "node:assert/strict";
import { entryArgs } from "../../_support/processes.ts";

/** A message as the client sees it. */
// deno-lint-ignore no-explicit-any
export type Wire = Record<string, any>;

/**
 * Assert that `line` (without its newline) is exactly one JSON-RPC 2.0 message: a response with one of
 * result/error, or a notification. Returns it parsed.
 */
export function parseWireLine(line: string): Wire {
  assert.ok(!line.endsWith("\r"), "output lines end with a bare LF");
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    assert.fail(`stdout line is not JSON: ${line.slice(0, 200)}`);
  }
  assert.ok(typeof message === "object" && message !== null && !Array.isArray(message), line.slice(0, 200));
  const m = message as Wire;
  assert.equal(m.jsonrpc, "2.0");
  const isResponse = "id" in m && (("result" in m) !== ("error" in m)) && !("method" in m);
  const isNotification = !("id" in m) && typeof m.method === "string";
  assert.ok(isResponse || isNotification, `not a JSON-RPC message: ${line.slice(0, 200)}`);
  return m;
}

/** A running bxp-mcp. */
export class ServerProcess {
  /** Every stdout message so far, in order. */
  readonly messages: Wire[] = [];
  /** The private temp folder given as TMPDIR. */
  readonly tmpDir: string;
  #stderr = "";
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stdoutDone: Promise<void>;
  readonly #stderrDone: Promise<void>;
  #stdoutError: unknown = null;
  #waiters: (() => void)[] = [];

  private constructor(tmpDir: string, args: string[], env: Record<string, string>) {
    this.tmpDir = tmpDir;
    this.#child = new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-mcp", args),
      env: { ...env, TMPDIR: tmpDir },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#stdoutDone = this.#readStdout();
    this.#stderrDone = this.#readStderr();
  }

  /** Start bxp-mcp with its own temp folder (and `env` added to the inherited environment). */
  static async start(args: string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
    return new ServerProcess(await Deno.makeTempDir({ prefix: "bxp-mcp-test-" }), args, env);
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    let pending = new Uint8Array(0);
    try {
      for await (const chunk of this.#child.stdout) {
        const joined = new Uint8Array(pending.length + chunk.length);
        joined.set(pending);
        joined.set(chunk, pending.length);
        let start = 0;
        for (let nl = joined.indexOf(0x0a); nl !== -1; nl = joined.indexOf(0x0a, start)) {
          this.messages.push(parseWireLine(decoder.decode(joined.subarray(start, nl))));
          start = nl + 1;
        }
        pending = joined.slice(start);
        this.#wake();
      }
      assert.equal(pending.length, 0, "stdout ends with a complete line");
    } catch (error) {
      this.#stdoutError = error;
      this.#wake();
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) {
      this.#stderr += decoder.decode(chunk, { stream: true });
      this.#wake();
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Write one line (a JSON value is serialized first). */
  async send(message: unknown): Promise<void> {
    const line = typeof message === "string" ? message : JSON.stringify(message);
    await this.#writer.write(new TextEncoder().encode(`${line}\n`));
  }

  /** Send a `tools/call` request. */
  call(id: number | string, name: string, args?: unknown, meta?: unknown): Promise<void> {
    const params: Wire = { name };
    if (args !== undefined) params.arguments = args;
    if (meta !== undefined) params._meta = meta;
    return this.send({ jsonrpc: "2.0", id, method: "tools/call", params });
  }

  /** Wait until `test` holds for the output seen so far (stdout or stderr), or fail after `timeoutMs`. */
  async waitUntil(test: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (this.#stdoutError !== null) throw this.#stdoutError;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; stderr:\n${this.#stderr}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        timer = setTimeout(resolve, Math.min(left, 200));
      });
      clearTimeout(timer);
    }
  }

  /** The response to request `id`, waiting for it. */
  async response(id: number | string, timeoutMs = 60_000): Promise<Wire> {
    await this.waitUntil(() => this.messages.some((m) => m.id === id), `the response to ${id}`, timeoutMs);
    return this.messages.find((m) => m.id === id) as Wire;
  }

  /** Close stdin and wait for the exit; returns the exit code. Fails when stdout was not pure. */
  async close(): Promise<number> {
    try {
      await this.#writer.close();
    } catch {
      // already closed
    }
    const status = await this.#child.status;
    await Promise.all([this.#stdoutDone, this.#stderrDone]);
    if (this.#stdoutError !== null) throw this.#stdoutError;
    return status.code;
  }

  /** Kill the process (cleanup after a failed test) and remove the temp folder. */
  async dispose(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.#child.status;
    await Promise.allSettled([this.#stdoutDone, this.#stderrDone]);
    // A just-killed conversion may still be releasing its files; retry briefly.
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await Deno.remove(this.tmpDir, { recursive: true });
        return;
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
}

/** Whether process `pid` still runs (`kill -0`; on Linux a zombie awaiting its reaper counts as gone). */
export async function processAlive(pid: number): Promise<boolean> {
  const { code } = await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).output();
  if (code !== 0) return false;
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no /proc (macOS): kill -0 said it exists
  }
}

/** Text of a tools/call result. */
export function resultText(message: Wire): string {
  assert.ok(message.result, `expected a result: ${JSON.stringify(message).slice(0, 300)}`);
  return message.result.content[0].text;
}

/** Whether process `pid` is gone within `timeoutMs` (polled every 50 ms). */
export async function processGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!await processAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** A template whose every row costs about a millisecond, so 100k rows keep bxp-cli busy for a while. */
export const SLOW_CONFIG = `{
  conversion_templates: {
    slow: {
      data_dir: ".",
      file_pattern_in: ".csv",
      file_pattern_out: ".out",
      input_schema: { $a: "LEN(LPAD([v], 60000, 'xy'))" },
      output_schema: { a: "$a" },
    },
  },
}`;

/** Input for {@link SLOW_CONFIG}. */
export const SLOW_CSV = ["v", ...Array.from({ length: 100_000 }, (_, i) => String(i))].join("\n") + "\n";
