/**
 * An MCP stdio client transport over a `Deno.Command` child, for the official SDK `Client`. Unlike the SDK's
 * own stdio transport (which signals the server a few seconds after closing its input), closing this one
 * only ends the server's stdin and then waits: the smoke test wants to see that the server exits by itself,
 * and with which status.
 *
 * Not run as a test: it spawns a real bxp-mcp process.
 *
 * @example
 * ```ts ignore
 * const transport = new ChildTransport({ command: "/opt/bxp/bxp-mcp", args: ["--root", "/p"] });
 * await new Client({ name: "smoke", version: "1" }).connect(transport);
 * ```
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How to start the server. */
export interface ChildSpec {
  command: string;
  args: string[];
  /** Variables set on top of the inherited environment. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A stdio transport whose `close()` ends stdin and waits for the child's own exit. */
export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Lines of stdout that were not JSON-RPC messages (the protocol allows none). */
  readonly strayLines: string[] = [];
  readonly #spec: ChildSpec;
  #child: Deno.ChildProcess | null = null;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #stderr = "";
  #reading: Promise<void> = Promise.resolve();
  #stderrReading: Promise<void> = Promise.resolve();
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  /** Set when stdout or stderr stayed open after the server exited (another process holds them). */
  heldOpen = false;

  /** Prepare; the child starts in `start()` (called by `Client.connect`). */
  constructor(spec: ChildSpec) {
    this.#spec = spec;
  }

  /** The child's process id (after start). */
  get pid(): number {
    if (this.#child === null) throw new Error("the server is not started");
    return this.#child.pid;
  }

  /** Everything the server wrote on stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Spawn the server. */
  start(): Promise<void> {
    this.#child = new Deno.Command(this.#spec.command, {
      args: this.#spec.args,
      env: this.#spec.env,
      cwd: this.#spec.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#readStdout(this.#reader(this.#child.stdout));
    this.#stderrReading = this.#readStderr(this.#reader(this.#child.stderr));
    return Promise.resolve();
  }

  #reader(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      },
    };
  }

  async #readStdout(stream: AsyncIterable<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      pending += decoder.decode(chunk, { stream: true });
      for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let message: JSONRPCMessage;
        try {
          message = deserializeMessage(line);
        } catch {
          this.strayLines.push(line);
          continue;
        }
        this.onmessage?.(message);
      }
    }
    if (pending !== "") this.strayLines.push(pending);
  }

  async #readStderr(stream: AsyncIterable<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) this.#stderr += decoder.decode(chunk, { stream: true });
  }

  /** Write one message as one line. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#writer === null) throw new Error("the server is not started");
    await this.#writer.write(new TextEncoder().encode(serializeMessage(message)));
  }

  /** End the server's stdin (idempotent). */
  async close(): Promise<void> {
    const writer = this.#writer;
    this.#writer = null;
    if (writer !== null) await writer.close().catch(() => {});
  }

  /**
   * Close stdin and wait for the server to exit by itself; after `graceMs` without an exit it is killed and
   * the answer says so (a watchdog so a hung server fails the smoke instead of hanging it).
   */
  async closeAndWait(graceMs: number): Promise<{ status: Deno.CommandStatus; killed: boolean }> {
    if (this.#child === null) throw new Error("the server is not started");
    const child = this.#child;
    await this.close();
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, graceMs);
    const status = await child.status;
    clearTimeout(timer);
    // A process that inherited the server's stdout or stderr keeps them open after its exit: stop reading
    // (after a moment for the last bytes) rather than wait for it, and say so.
    const drained = Promise.all([this.#reading, this.#stderrReading]).then(() => true, () => true);
    let wait: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((done) => wait = setTimeout(() => done(false), 5_000));
    const closed = await Promise.race([drained, late]);
    clearTimeout(wait);
    if (!closed) {
      this.heldOpen = true;
      for (const reader of this.#readers) await reader.cancel().catch(() => {});
    }
    this.onclose?.();
    return { status, killed };
  }
}
