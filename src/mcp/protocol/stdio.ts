/**
 * The MCP stdio transport: newline-delimited JSON-RPC over a byte input stream and a byte output stream.
 * Streams are parameters, so this file stays free of `Deno.*`; the adapter passes `Deno.stdin.readable`
 * and `Deno.stdout.writable`, and routes `log` to stderr.
 *
 * @module
 */

import { ErrorCode, errorResponse } from "./jsonrpc.ts";
import { LineSplitter, MAX_LINE_BYTES } from "./line_splitter.ts";
import { SerialWriter } from "./serial_writer.ts";
import type { McpServer } from "./server.ts";

/** How long, by default, calls still running at end of input may finish before they are aborted. */
export const DEFAULT_EOF_GRACE_MS = 250;

/** Inputs of {@link serveStdio}. */
export interface StdioOptions {
  /** The server core answering each message. */
  server: McpServer;
  /** Client-to-server bytes (stdin). Read until end of input. */
  stdin: ReadableStream<Uint8Array>;
  /** Server-to-client bytes (stdout): protocol messages only. Locked while serving, never closed. */
  stdout: WritableStream<Uint8Array>;
  /** Diagnostics sink (stderr in the adapter). */
  log?: (message: string) => void;
  /** Longest accepted line in bytes; defaults to {@link MAX_LINE_BYTES} (16 MiB). */
  maxLineBytes?: number;
  /**
   * Milliseconds that calls still running at end of input may take to finish (their answers are still
   * written) before they are aborted and their answers suppressed. Defaults to
   * {@link DEFAULT_EOF_GRACE_MS}; a client that pipes a file of requests and closes stdin at once wants
   * this long enough for its slowest tool.
   */
  eofGraceMs?: number;
}

/**
 * Serve one MCP session over stdio until the input ends. Lines are handled concurrently (a slow tool does
 * not delay `ping`) and answered in completion order through one serialized writer. An over-long line is
 * skipped without buffering it and answered with `-32600` (id null); an unterminated final line is
 * discarded. At end of input, running calls get `eofGraceMs` to finish, then are aborted; the promise
 * resolves once output is flushed.
 *
 * @example
 * ```ts
 * await serveStdio({ server, stdin: Deno.stdin.readable, stdout: Deno.stdout.writable, log: console.error });
 * ```
 */
export async function serveStdio(options: StdioOptions): Promise<void> {
  const { server, stdin, stdout } = options;
  const log = options.log ?? (() => {});
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const out = new SerialWriter(stdout, log);
  const send = (json: string) => out.writeLine(json);
  const splitter = new LineSplitter(maxLineBytes);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const running = new Set<Promise<void>>();

  const dispatch = (bytes: Uint8Array) => {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      send(
        errorResponse(null, ErrorCode.parseError, "Parse error", { detail: "message is not valid UTF-8" }),
      );
      return;
    }
    const handled = server.handleLine(text, send);
    running.add(handled);
    handled.finally(() => running.delete(handled));
  };

  const reader = stdin.getReader();
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        log(`stdin read failed, ending the session: ${error instanceof Error ? error.message : error}`);
        break;
      }
      if (chunk.done) break;
      for (const event of splitter.push(chunk.value)) {
        if (event.kind === "line") {
          dispatch(event.bytes);
        } else {
          log(`refused a message longer than ${event.limit} bytes`);
          send(
            errorResponse(
              null,
              ErrorCode.invalidRequest,
              `Invalid request: message exceeds ${event.limit} bytes`,
              {
                limit: event.limit,
              },
            ),
          );
        }
      }
    }
  } finally {
    reader.releaseLock();
    if (splitter.end()) log("discarded an unterminated final line at end of input");
    await settleWithin([...running], options.eofGraceMs ?? DEFAULT_EOF_GRACE_MS);
    server.cancelAll("stdin closed");
    // Cancelled calls settle at once (their handlers are left behind), so this wait is short.
    await Promise.all([...running]);
    await out.flush();
    out.release();
  }
}

/** Wait for `work` to settle, but never longer than `ms`. */
async function settleWithin(work: Promise<unknown>[], ms: number): Promise<void> {
  if (work.length === 0 || ms <= 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  try {
    await Promise.race([Promise.allSettled(work), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
