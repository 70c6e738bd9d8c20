/**
 * One bxp-mcp session, the side that runs in the session worker (see `server_main.ts` for the main
 * thread that starts it): serve MCP on stdio, or over Streamable HTTP with one bxp server per HTTP
 * session, until the input ends or the main thread asks the session to stop.
 *
 * @module
 */

import { type ByteReader, serveStdio } from "./protocol/mod.ts";
import type { Http1Server } from "./protocol/http_listener.ts";
import { createBxpServer } from "./bxp_server.ts";
import { ProjectRoot } from "./security/paths.ts";
import { netAddress } from "./security/sandbox.ts";
import { denoSimulateHost, type SimulateHost } from "./simulate/mod.ts";
import { logToStderr } from "./stderr_log.ts";
import type { HttpStart, SessionDone, SessionStart, SessionStop } from "./server_main.ts";

/**
 * How long calls still running when stdin closes may take to answer. A client may write all its
 * requests and close stdin at once (bxp's smoke script does), and a simulation must still be answered.
 */
export const EOF_GRACE_MS = 10_000;

/** What one MCP session serves with. */
export interface SessionOptions {
  /** The fixed `--root`, or null to take the client's single MCP root. */
  root: ProjectRoot | null;
  allowWrite: boolean;
  stdin: ReadableStream<Uint8Array> | ByteReader;
  stdout: WritableStream<Uint8Array>;
  log: (message: string) => void;
  simulateHost: SimulateHost;
  /** Ends the session early (a signal forwarded by the main thread). */
  signal?: AbortSignal;
  /**
   * Only when `stdout` is the process's stdout: the largest answer line other threads may write to it
   * directly (see {@link atomicStdoutBytes}).
   */
  directAnswerBytes?: number;
}

/**
 * The largest answer line evaluation workers may write to the process's stdout directly: PIPE_BUF, the
 * largest pipe write POSIX keeps whole (4096 on Linux, 512 on macOS and the BSDs; Windows gets no direct
 * answers). What keeps direct lines from interleaving with the session's own (which may be megabytes,
 * written in several short writes to a slow pipe, a socket or a file) is the output lock both hold for a
 * whole line (see `protocol/output_lock.ts`); the size bound keeps a worker's write short, so it rarely
 * holds that lock for long, and keeps each direct line whole against any other writer of the pipe.
 *
 * @example
 * ```ts
 * import { atomicStdoutBytes } from "./session.ts";
 * import assert from "node:assert/strict";
 * assert.equal(atomicStdoutBytes("linux"), 4096);
 * assert.equal(atomicStdoutBytes("windows"), undefined);
 * ```
 */
export function atomicStdoutBytes(os: string): number | undefined {
  if (os === "linux" || os === "android") return 4096;
  if (os === "windows") return undefined;
  return 512;
}

/**
 * Serve one MCP session until stdin ends or `signal` fires (what the sandbox worker runs; tests call it
 * in-process). Resolves once running calls are answered or cancelled and the simulator has stopped.
 */
export async function serveSession(options: SessionOptions): Promise<void> {
  const server = createBxpServer({
    log: options.log,
    simulateHost: options.simulateHost,
    root: options.root,
    allowWrite: options.allowWrite,
  });
  await serveStdio({
    server,
    stdin: options.stdin,
    stdout: options.stdout,
    log: options.log,
    eofGraceMs: EOF_GRACE_MS,
    signal: options.signal,
    directAnswerBytes: options.directAnswerBytes,
  });
}

/** The worker side: serve the session it is told about, stop it on request, then report its exit code. */
export function workerMain(scope: {
  onmessage: ((event: MessageEvent<SessionStart | SessionStop>) => void) | null;
  postMessage(message: unknown): void;
}): void {
  const stop = new AbortController();
  let started = false;
  scope.onmessage = async (event) => {
    const message = event.data;
    if (message?.kind === "stop") {
      stop.abort(new Error(`stopped by ${message.signal}`));
      if (!started) scope.postMessage({ kind: "done", code: 0 } satisfies SessionDone);
      return;
    }
    if (message?.kind !== "start" || started) return;
    started = true;
    const root = message.root === null ? null : await ProjectRoot.open(message.root);
    if (message.http !== undefined) {
      const code = await serveHttp(message.http, root, message.allowWrite, stop.signal);
      scope.postMessage({ kind: "done", code } satisfies SessionDone);
      return;
    }
    await serveSession({
      root,
      allowWrite: message.allowWrite,
      // Read directly, not through Deno.stdin.readable: a few microseconds less per message.
      stdin: Deno.stdin,
      stdout: Deno.stdout.writable,
      log: logToStderr,
      simulateHost: denoSimulateHost(logToStderr),
      signal: stop.signal,
      directAnswerBytes: atomicStdoutBytes(Deno.build.os),
    });
    scope.postMessage({ kind: "done", code: 0 } satisfies SessionDone);
  };
}

/**
 * Serve MCP over Streamable HTTP until `signal` fires: each session its own bxp server (own simulations,
 * workspaces and children). At the signal new requests get 503, running calls get
 * the HTTP transport's `DEFAULT_SHUTDOWN_GRACE_MS` (5 s) to answer, then every session ends (calls cancelled, children killed,
 * workspaces removed) and the listener closes. Resolves with the exit code (1 when it could not listen).
 */
export async function serveHttp(
  http: HttpStart,
  root: ProjectRoot | null,
  allowWrite: boolean,
  signal: AbortSignal,
): Promise<number> {
  const simulateHost = denoSimulateHost(logToStderr);
  // Loaded here, not at the worker's start: a stdio session never needs the HTTP code.
  const { createHttpHandler, DEFAULT_SHUTDOWN_GRACE_MS, MCP_PATH } = await import("./protocol/http.ts");
  const { serveHttp1 } = await import("./protocol/http_listener.ts");
  const handler = createHttpHandler({
    createSession: () => createBxpServer({ log: logToStderr, simulateHost, root, allowWrite }),
    log: logToStderr,
    loopback: http.loopback,
    token: http.token,
    corsOrigin: http.corsOrigin,
    maxSessions: http.maxSessions ?? undefined,
    idleTimeoutMs: http.idleTimeoutMs ?? undefined,
    maxSessionsPerClient: http.maxSessionsPerClient ?? undefined,
    bodyTimeoutMs: http.bodyTimeoutMs ?? undefined,
  });
  let server: Http1Server;
  try {
    // Our own HTTP/1.1 listener rather than Deno.serve: it caps connections and times out slow heads
    // and stalled readers, which Deno.serve does not offer.
    server = serveHttp1({
      hostname: http.hostname,
      port: http.port,
      maxConnections: http.maxConnections ?? undefined,
      headerTimeoutMs: http.headerTimeoutMs ?? undefined,
      onRefuse: logToStderr,
      onListen: (addr) => {
        const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
        logToStderr(
          `listening on http://${host}:${addr.port}${MCP_PATH} (token: ${
            http.token === null ? "none" : "required"
          })`,
        );
      },
      onError: (error) => {
        logToStderr(`HTTP error: ${error instanceof Error ? error.message : error}`);
        return new Response("Internal Server Error", { status: 500 });
      },
    }, (request, info) => handler.handle(request, info.remoteAddr.hostname));
  } catch (error) {
    logToStderr(
      `cannot listen on ${netAddress(http.hostname, http.port)}: ${
        error instanceof Error ? error.message : error
      }`,
    );
    await handler.shutdown(0);
    return 1;
  }
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await handler.shutdown(DEFAULT_SHUTDOWN_GRACE_MS);
  await server.shutdown();
  return 0;
}
