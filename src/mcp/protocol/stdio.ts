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
import { createOutputLock } from "../../util/output_lock.ts";
import { settleWithin } from "./settle.ts";
import type { Transport, TransportServer } from "./transport.ts";

/** How long, by default, calls still running at end of input may finish before they are aborted. */
export const DEFAULT_EOF_GRACE_MS = 250;

/**
 * Default bound on answer bytes waiting for a client that does not read: above it no further request is
 * taken from stdin until the queue has drained to half of it.
 */
export const DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/**
 * Default bound on messages being handled at once; reading waits for one to finish above it. High enough
 * that a `notifications/cancelled` (read in order, like every line) is rarely stuck behind it.
 */
export const DEFAULT_MAX_CONCURRENT = 256;

/**
 * Default bound on the bytes of the messages being handled at once (their arguments stay in memory while
 * they run): reading waits above it, though one message is always let through.
 */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 64 * 1024 * 1024;

/** How long, at the end of a session, handled messages and queued answers may take to settle. */
export const SHUTDOWN_GRACE_MS = 5_000;

/**
 * A byte source read straight into a buffer (`Deno.stdin` is one): the adapter's fast path, which skips
 * the ReadableStream machinery on every message.
 */
export interface ByteReader {
  /** Read into `into`; the number of bytes read, or null at end of input. */
  read(into: Uint8Array): Promise<number | null>;
}

/** Size of the buffer a {@link ByteReader} is read into (reused: the line splitter copies what it keeps). */
const READ_BUFFER_BYTES = 64 * 1024;

/** What the read loop pulls chunks from: a stream's reader, or a {@link ByteReader}. */
interface ChunkSource {
  /** The next chunk, or null at end of input (or once stopped). Rejects when reading fails. */
  next(): Promise<Uint8Array | null>;
  /** Stop reading: a pending `next` resolves with null. */
  stop(): void;
  /** Give the input back (a stream's lock). */
  release(): void;
}

function chunkSource(stdin: ReadableStream<Uint8Array> | ByteReader): ChunkSource {
  if ("getReader" in stdin) {
    const reader = stdin.getReader();
    return {
      next: async () => {
        const chunk = await reader.read();
        return chunk.done ? null : chunk.value;
      },
      stop: () => void reader.cancel().catch(() => {}), // a no-op once the input has ended
      release: () => reader.releaseLock(),
    };
  }
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
  let stopped: () => void = () => {};
  const stopping = new Promise<null>((resolve) => stopped = () => resolve(null));
  return {
    next: async () => {
      // A read left pending at a stop is abandoned: the process ends after the session.
      const n = await Promise.race([stdin.read(buffer), stopping]);
      return n === null ? null : buffer.subarray(0, n);
    },
    stop: () => stopped(),
    release: () => {},
  };
}

/** How the session ended. */
export type SessionEnd = "eof" | "aborted" | "read_error";

/** Inputs of {@link serveStdio}. */
export interface StdioOptions {
  /** The server core answering each message (an `McpServer`), connected to this transport while it serves. */
  server: TransportServer;
  /** Client-to-server bytes (stdin), as a stream or a {@link ByteReader}. Read until end of input. */
  stdin: ReadableStream<Uint8Array> | ByteReader;
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
  /**
   * Ends the session early (e.g. a signal): reading stops, running calls are aborted at once without
   * answers, and the promise resolves once the server is closed.
   */
  signal?: AbortSignal;
  /** Answer bytes allowed to wait for a slow reader before reading pauses ({@link DEFAULT_MAX_QUEUED_BYTES}). */
  maxQueuedBytes?: number;
  /** Messages handled at once before reading pauses ({@link DEFAULT_MAX_CONCURRENT}). */
  maxConcurrent?: number;
  /** Bytes of messages handled at once before reading pauses ({@link DEFAULT_MAX_IN_FLIGHT_BYTES}). */
  maxInFlightBytes?: number;
  /**
   * Set only when `stdout` is the process's own stdout: tool answers of at most this many bytes (newline
   * included; the output's largest atomic write) may then be written by other threads directly (see
   * `DirectAnswer` in `server.ts`), each holding the output lock this transport creates and its own
   * writer holds for every line it writes (see `output_lock.ts`). Off by default: an in-memory stream has
   * no other writer.
   */
  directAnswerBytes?: number;
}

/**
 * Serve one MCP session over stdio until the input ends. Lines are handled concurrently (a slow tool does
 * not delay `ping`) and answered in completion order through one serialized writer. An over-long line is
 * skipped without buffering it and answered with `-32600` (id null); an unterminated final line is
 * discarded. At end of input, running calls get `eofGraceMs` to finish, then the server is closed
 * ({@link McpServer.close}: remaining calls aborted, close hooks run); the promise resolves once output
 * is flushed. Backpressure: while more than `maxQueuedBytes` of answers wait for the client, or
 * `maxConcurrent` messages (or `maxInFlightBytes` of them) are being handled, no further line is taken
 * from the input.
 *
 * The adapter passes `Deno.stdin.readable` and `Deno.stdout.writable`; here two in-memory streams stand in
 * for them:
 *
 * @example
 * ```ts
 * import { McpServer } from "./server.ts";
 * import { serveStdio } from "./stdio.ts";
 * import assert from "node:assert/strict";
 * const server = new McpServer({ name: "demo", version: "1.0.0" });
 * const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
 * const stdin = ReadableStream.from([new TextEncoder().encode(ping)]);
 * const out: string[] = [];
 * const decoder = new TextDecoder();
 * const stdout = new WritableStream<Uint8Array>({ write: (bytes) => void out.push(decoder.decode(bytes)) });
 * assert.equal(await serveStdio({ server, stdin, stdout, log: console.error }), "eof");
 * assert.deepEqual(out, ['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
 * ```
 */
export async function serveStdio(options: StdioOptions): Promise<SessionEnd> {
  const { server, stdin, stdout, signal } = options;
  const log = options.log ?? (() => {});
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const maxQueued = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  const maxConcurrent = Math.max(1, options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT);
  const maxInFlightBytes = options.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES;
  const directBytes = options.directAnswerBytes ?? null;
  const outputLock = directBytes === null ? null : createOutputLock();
  const out = new SerialWriter(stdout, log, outputLock);
  const send = (json: string) => out.writeLine(json);
  // Answers and server-initiated messages share the one writer: stdio has a single output.
  const transport: Transport = {
    send,
    directAnswers: directBytes === null || outputLock === null
      ? null
      : { maxLineBytes: directBytes, outputLock },
  };
  server.connect(transport);
  const splitter = new LineSplitter(maxLineBytes);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const running = new Set<Promise<void>>();
  let runningBytes = 0;

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
    runningBytes += bytes.length;
    handled.finally(() => {
      running.delete(handled);
      runningBytes -= bytes.length;
    });
  };

  /** Wait while the client is behind on reading answers or too much is being handled. */
  const backpressure = async (nextBytes: number) => {
    if (out.queuedBytes > maxQueued) {
      log(`${out.queuedBytes} answer bytes wait for the client; reading paused`);
      await Promise.race([out.drainedTo(maxQueued / 2), aborted]);
    }
    const busy = () =>
      running.size >= maxConcurrent || (running.size > 0 && runningBytes + nextBytes > maxInFlightBytes);
    while (busy() && !signal?.aborted) await Promise.race([...running, aborted]);
  };

  const source = chunkSource(stdin);
  let stopReading: () => void = () => {};
  const aborted = new Promise<void>((resolve) => stopReading = resolve);
  const onAbort = () => {
    stopReading();
    source.stop();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let end: SessionEnd = "eof";
  try {
    reading: while (!signal?.aborted) {
      let chunk: Uint8Array | null;
      try {
        chunk = await source.next();
      } catch (error) {
        if (signal?.aborted) break;
        log(`stdin read failed, ending the session: ${error instanceof Error ? error.message : error}`);
        end = "read_error";
        break;
      }
      if (chunk === null) break;
      for (const event of splitter.push(chunk)) {
        await backpressure(event.kind === "line" ? event.bytes.length : 0);
        if (signal?.aborted) break reading;
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
    source.release();
    if (signal?.aborted) end = "aborted";
    if (splitter.end() && end === "eof") log("discarded an unterminated final line at end of input");
    if (end === "eof") {
      // A signal during the grace ends it early.
      await Promise.race([settleWithin([...running], options.eofGraceMs ?? DEFAULT_EOF_GRACE_MS), aborted]);
    }
    if (signal?.aborted) end = "aborted";
    await server.close(end === "aborted" ? "session ended" : "stdin closed");
    // Cancelled calls settle at once (their handlers were waited for by close()), so this wait is short.
    await settleWithin([...running], SHUTDOWN_GRACE_MS);
    server.connect(null);
    // A client that stopped reading must not keep the process alive; an ended session waits briefly.
    await settleWithin([out.flush()], end === "aborted" ? 1_000 : SHUTDOWN_GRACE_MS);
    out.release();
    // Removed only now: a stop during the end-of-input grace must still cut it short.
    signal?.removeEventListener("abort", onAbort);
  }
  return end;
}
