/**
 * An HTTP/1.1 server over a TCP listener, for the Streamable HTTP transport: it hands each request to a
 * fetch-style handler, as `Deno.serve` does, and adds the bounds `Deno.serve` does not offer. Without them
 * a client opening connections and sending headers a byte at a time held each connection (and its header
 * buffer) for as long as it liked, and nothing capped how many it held.
 *
 * - **Connections:** at most `maxConnections` open at once; one more is answered `503` and closed at once.
 * - **Headers:** a request's head (request line and headers) must arrive within `headerTimeoutMs` of its
 *   first byte (of the connection's opening, for the first request), else the connection is closed, and
 *   fit in `maxHeaderBytes`, else it is answered `431` and closed.
 * - **Idle keep-alive:** a connection with no request for `idleTimeoutMs` is closed.
 * - **Stalled readers:** a response write the peer does not take within `writeStallMs` (a client that
 *   stopped reading a stream) closes the connection, and the request's signal aborts.
 * - **Smuggling:** a request with both `Content-Length` and `Transfer-Encoding`, a transfer coding other
 *   than `chunked`, conflicting lengths or folded headers is refused with `400` and the connection closed.
 *
 * Bodies arrive as a stream the handler pulls (`Expect: 100-continue` is answered when it first pulls, so
 * a handler that refuses first never receives the body); responses are written chunked as their bodies
 * produce bytes. The request's signal aborts when the peer goes away. HTTP/2 and TLS are not spoken: put
 * a reverse proxy in front for those.
 *
 * It listens on a free loopback port here and answers one request from `fetch`
 * (tests/mcp/protocol/http_listener_test.ts drives the edge cases through raw sockets):
 *
 * @example
 * ```ts
 * import { serveHttp1 } from "./http_listener.ts";
 * import assert from "node:assert/strict";
 * const handler = (request: Request) => new Response(`hi ${request.method}`);
 * const server = serveHttp1({ hostname: "127.0.0.1", port: 0 }, handler);
 * const client = Deno.createHttpClient({});
 * try {
 *   const response = await fetch(`http://127.0.0.1:${server.addr.port}/`, { client });
 *   assert.equal(response.status, 200);
 *   assert.equal(await response.text(), "hi GET");
 * } finally {
 *   client.close();
 *   await server.shutdown();
 * }
 * ```
 * @module
 */

import { concatBytes } from "../../util/bytes.ts";

/** Default most connections open at once. */
export const DEFAULT_MAX_CONNECTIONS = 512;

/** Default time a request's head may take to arrive, from its first byte. */
export const DEFAULT_HEADER_TIMEOUT_MS = 10_000;

/** Default time a kept-alive connection may wait for its next request. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 120_000;

/** Longest chunk-size line (extensions included), and most bytes of trailer fields, of a chunked body. */
const MAX_CHUNK_LINE = 4096;

/** Most bytes of a chunked body handed to the handler in one piece. */
const BODY_PIECE_BYTES = 64 * 1024;

/** Bytes asked of the socket per read. */
const READ_BYTES = 16 * 1024;

/** Default time a peer may leave one response write untaken. */
export const DEFAULT_WRITE_STALL_MS = 30_000;

/** Default largest request head. */
export const DEFAULT_MAX_HEADER_BYTES = 64 * 1024;

/** How long a connection must have waited for a request before it may make room at the cap. */
const EVICTABLE_AFTER_MS = 1_000;

/** The shortest time between two log lines of one kind. */
const NOTE_EVERY_MS = 10_000;

/** How long {@link Http1Server.shutdown} lets answers in flight finish before it closes their connections. */
const SHUTDOWN_GRACE_MS = 3_000;

/** How long, and how many bytes, an unread body is discarded for after its answer before closing. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 4 * 1024 * 1024;

/** Where and how {@link serveHttp1} listens. */
export interface Http1Options {
  hostname: string;
  port: number;
  maxConnections?: number;
  headerTimeoutMs?: number;
  idleTimeoutMs?: number;
  writeStallMs?: number;
  maxHeaderBytes?: number;
  /** Called once listening, with the bound address. */
  onListen?(addr: Deno.NetAddr): void;
  /** Called when a handler throws; its answer is sent (default: a bare 500). */
  onError?(error: unknown): Response;
  /** How long a connection must have waited for a request before it may make room at the cap (1 s). */
  evictAfterMs?: number;
  /** Called with a one-line note when a bound refuses or closes a connection (for the server's log). */
  onRefuse?(note: string): void;
}

/** What a handler learns about the connection. */
export interface Http1Info {
  remoteAddr: Deno.NetAddr;
}

/** A running server. */
export interface Http1Server {
  /** The bound address. */
  readonly addr: Deno.NetAddr;
  /** Stop accepting, close idle connections, let requests in flight finish, then close them. */
  shutdown(): Promise<void>;
}

/** A request the peer sent wrongly: answered with `status` and the connection closed. */
class BadRequest extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const REASONS: Record<number, string> = {
  200: "OK",
  202: "Accepted",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

/**
 * Listen on `options.hostname:port` and answer each request with `handler`. Throws as `Deno.listen` does
 * when the address cannot be bound.
 */
export function serveHttp1(
  options: Http1Options,
  handler: (request: Request, info: Http1Info) => Response | Promise<Response>,
): Http1Server {
  const limits = {
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    headerTimeoutMs: options.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    writeStallMs: options.writeStallMs ?? DEFAULT_WRITE_STALL_MS,
    maxHeaderBytes: options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
  };
  const listener = Deno.listen({ hostname: options.hostname, port: options.port, transport: "tcp" });
  const addr = listener.addr as Deno.NetAddr;
  options.onListen?.(addr);
  const open = new Set<Connection>();
  let stopping = false;
  const note = rateLimited((text) => options.onRefuse?.(text));
  const onError = options.onError ??
    (() => new Response("Internal Server Error", { status: 500 }));

  const accepting = (async () => {
    for (;;) {
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept() as Deno.TcpConn;
      } catch {
        if (stopping) return;
        // A transient accept failure (too many open files): wait a little rather than spin.
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (!stopping && open.size >= limits.maxConnections) {
        // At the cap, a connection that has waited longest for a request makes room: holding a place
        // with an idle keep-alive or a head that never ends costs the holder nothing, so it must not
        // keep everyone else out. Connections whose requests are being answered are never cut.
        const victim = longestWaiting(open, Date.now() - (options.evictAfterMs ?? EVICTABLE_AFTER_MS));
        if (victim !== null) {
          victim.closeNow();
          open.delete(victim);
          note(`closed the connection waiting longest for a request: ${limits.maxConnections} open`);
        }
      }
      if (stopping || open.size >= limits.maxConnections) {
        if (!stopping) note(`refused a connection: ${limits.maxConnections} open (--max-connections)`);
        refuse(conn, stopping ? "shutting down" : "too many connections");
        continue;
      }
      const connection = new Connection(conn, limits, handler, onError, note, () => stopping);
      open.add(connection);
      connection.done.then(() => open.delete(connection));
    }
  })();

  let finished: Promise<void> | null = null;
  return {
    addr,
    shutdown() {
      if (finished !== null) return finished;
      stopping = true;
      try {
        listener.close();
      } catch { /* already closed */ }
      finished = (async () => {
        await accepting;
        for (const connection of open) connection.closeIfIdle();
        // Answers in flight finish; one still running after the grace (a stream nobody ended) is cut.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, SHUTDOWN_GRACE_MS));
        await Promise.race([Promise.all([...open].map((c) => c.done)), grace]);
        clearTimeout(timer);
        for (const connection of open) connection.closeNow();
        await Promise.all([...open].map((c) => c.done));
      })();
      return finished;
    },
  };
}

/** The open connection waiting for a request head since before `before`, longest first; null if none. */
function longestWaiting(open: Set<Connection>, before: number): Connection | null {
  let best: Connection | null = null;
  for (const c of open) {
    if (c.idle && c.waitingSince < before && (best === null || c.waitingSince < best.waitingSince)) best = c;
  }
  return best;
}

/**
 * A log that says each kind of line at most once per {@link NOTE_EVERY_MS}, then how many it held back: a
 * flood of connections must not become a flood of log lines.
 */
function rateLimited(log: (text: string) => void): (text: string) => void {
  const kinds = new Map<string, { at: number; held: number }>();
  return (text) => {
    const now = Date.now();
    const kind = kinds.get(text);
    if (kind !== undefined && now - kind.at < NOTE_EVERY_MS) {
      kind.held++;
      return;
    }
    const held = kind?.held ?? 0;
    kinds.set(text, { at: now, held: 0 });
    log(held > 0 ? `${text} (and ${held} more like it in the last ${NOTE_EVERY_MS / 1000} s)` : text);
  };
}

/** Answer 503 to a connection over the cap and close it, without reading and without waiting long. */
function refuse(conn: Deno.Conn, why: string): void {
  const body = `Service Unavailable: ${why}\n`;
  const head = `HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n` +
    `content-length: ${body.length}\r\nretry-after: 1\r\nconnection: close\r\n\r\n`;
  const timer = setTimeout(() => close(conn), 1000);
  conn.write(encoder.encode(head + body)).catch(() => {}).finally(() => {
    clearTimeout(timer);
    close(conn);
  });
}

function close(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

type Limits = {
  maxConnections: number;
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  writeStallMs: number;
  maxHeaderBytes: number;
};

/** One client connection: reads requests one after another and writes their answers. */
class Connection {
  readonly done: Promise<void>;
  #conn: Deno.TcpConn;
  #limits: Limits;
  /** Bytes read and not yet consumed: `#store[#start, #end)`, grown by doubling (never one copy per read). */
  #store = new Uint8Array(READ_BYTES);
  #start = 0;
  #end = 0;
  /** Where the search for the head's end resumes: bytes before it were searched already. */
  #headScan = 0;
  /** When this connection began waiting for a request head (for eviction at the connection cap). */
  waitingSince = Date.now();
  #reading: Promise<boolean> | null = null;
  #eof = false;
  #closed = false;
  #idle = true;
  #watching = false;
  #peerGone = new AbortController();
  #note: (text: string) => void;

  constructor(
    conn: Deno.TcpConn,
    limits: Limits,
    handler: (request: Request, info: Http1Info) => Response | Promise<Response>,
    onError: (error: unknown) => Response,
    note: (text: string) => void,
    stopping: () => boolean,
  ) {
    this.#conn = conn;
    this.#limits = limits;
    this.#note = note;
    try {
      conn.setNoDelay(true);
    } catch { /* not a TCP socket we can tune */ }
    this.done = this.#serve(handler, onError, stopping).catch(() => {}).finally(() => this.#close());
  }

  /** Close now, whatever is in flight. */
  closeNow(): void {
    this.#close();
  }

  /** Whether it waits for (or is reading) a request head: no request of it is being answered. */
  get idle(): boolean {
    return this.#idle && !this.#closed;
  }

  /** Close now if no request is being answered (at shutdown). */
  closeIfIdle(): void {
    if (this.#idle) this.#close();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#peerGone.abort(new Error("connection closed"));
    close(this.#conn);
  }

  async #serve(
    handler: (request: Request, info: Http1Info) => Response | Promise<Response>,
    onError: (error: unknown) => Response,
    stopping: () => boolean,
  ): Promise<void> {
    let first = true;
    while (!this.#closed && !stopping()) {
      this.#idle = true;
      this.waitingSince = Date.now();
      let head: Head | null;
      try {
        head = await this.#readHead(first);
      } catch (error) {
        if (error instanceof BadRequest) {
          this.#note(`closed a connection: ${error.message}`);
          await this.#writeSimple(error.status, error.message);
        }
        return;
      }
      if (head === null) return;
      first = false;
      this.#idle = false;
      const peer = new AbortController();
      const onGone = () => peer.abort(new Error("the client went away"));
      this.#peerGone.signal.addEventListener("abort", onGone, { once: true });
      const body = new RequestBody(this, head);
      let request: Request;
      try {
        request = buildRequest(head, body, peer.signal, this.#conn.localAddr as Deno.NetAddr);
      } catch (error) {
        this.#peerGone.signal.removeEventListener("abort", onGone);
        await this.#writeSimple(400, error instanceof Error ? error.message : "bad request");
        return;
      }
      // While the request is answered, notice a peer that hangs up (a cancelled call, a stream's reader
      // leaving); a body still to come starts the watch when it ends.
      if (body.finished) this.watchForHangUp();
      let response: Response;
      try {
        response = await handler(request, { remoteAddr: this.#conn.remoteAddr as Deno.NetAddr });
      } catch (error) {
        response = onError(error);
      }
      // A body framed wrongly is the client's fault whatever the handler made of it: 400, and close.
      if (body.failed !== null) {
        await response.body?.cancel().catch(() => {});
        this.#peerGone.signal.removeEventListener("abort", onGone);
        this.#note(`closed a connection: ${body.failed.message}`);
        await this.#writeSimple(body.failed.status, body.failed.message);
        return;
      }
      // A body the handler left unread cannot be skipped safely: the connection ends after this answer.
      const keepAlive = head.keepAlive && body.finished && !stopping();
      const wrote = await this.#writeResponse(head, response, keepAlive, peer.signal);
      this.#peerGone.signal.removeEventListener("abort", onGone);
      if (wrote && !body.finished) await this.#lingerClose();
      if (!wrote || !keepAlive) return;
    }
  }

  // --- reading ---

  /** Wait for more bytes; false at end of stream. Only one read is outstanding at a time. */
  fill(): Promise<boolean> {
    if (this.#eof || this.#closed) return Promise.resolve(false);
    if (this.#reading !== null) return this.#reading;
    this.#reading = (async () => {
      this.#roomToRead();
      let n: number | null;
      try {
        n = await this.#conn.read(this.#store.subarray(this.#end));
      } catch {
        n = null;
      }
      this.#reading = null;
      if (n === null) {
        this.#eof = true;
        this.#peerGone.abort(new Error("the client went away"));
        return false;
      }
      this.#end += n;
      return true;
    })();
    return this.#reading;
  }

  /** Make room for one read at the end of the store: move the unread bytes to its front, or grow it. */
  #roomToRead(): void {
    if (this.#store.length - this.#end >= READ_BYTES) return;
    const unread = this.#end - this.#start;
    const store = unread + READ_BYTES <= this.#store.length
      ? this.#store
      : new Uint8Array(Math.max(this.#store.length * 2, unread + READ_BYTES));
    if (store === this.#store) store.copyWithin(0, this.#start, this.#end);
    else store.set(this.#store.subarray(this.#start, this.#end));
    this.#store = store;
    this.#start = 0;
    this.#end = unread;
  }

  /** Take up to `max` buffered bytes (a view: copy it before the next read). */
  take(max: number): Uint8Array {
    const out = this.buffered.subarray(0, max);
    this.consume(out.length);
    return out;
  }

  /** The unread bytes (a view, valid until the next read). */
  get buffered(): Uint8Array {
    return this.#store.subarray(this.#start, this.#end);
  }

  consume(n: number): void {
    this.#start += n;
    // Back to the front when all is read, unless a read is landing at #end right now.
    if (this.#start === this.#end && this.#reading === null) this.#start = this.#end = 0;
    this.#headScan = Math.max(0, this.#headScan - n);
  }

  /** Keep one read outstanding while a request is answered, so a hang-up aborts the request's signal. */
  watchForHangUp(): void {
    if (this.#watching) return;
    this.#watching = true;
    const watch = () => {
      // Bounded: past a head's worth of bytes waiting (pipelined requests), reading waits for the reader.
      if (this.#closed || this.#eof || this.#end - this.#start > this.#limits.maxHeaderBytes) {
        this.#watching = false;
        return;
      }
      this.fill().then((more) => {
        if (more) watch();
        else this.#watching = false;
      });
    };
    watch();
  }

  /** Read one request head under the time and size bounds; null when the peer closed between requests. */
  async #readHead(first: boolean): Promise<Head | null> {
    const limits = this.#limits;
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        this.#close();
      }, ms);
    };
    // Before any byte of this request: the first request counts its head time from the connection's
    // opening; later ones wait up to the keep-alive time for a first byte.
    arm(first ? limits.headerTimeoutMs : limits.idleTimeoutMs);
    let started = first;
    try {
      for (;;) {
        // Tolerate blank lines before a request line (RFC 9112 section 2.2).
        while (
          this.#start < this.#end && (this.#store[this.#start] === 13 || this.#store[this.#start] === 10)
        ) {
          this.consume(1);
        }
        if (this.#start < this.#end && !started) {
          started = true;
          arm(limits.headerTimeoutMs);
        }
        // Resume where the last search stopped: a head trickled byte by byte is searched once, not once
        // per byte (a head of 60,000 CRs searched whole on every read cost a core).
        const buffered = this.buffered;
        const end = indexOfHeadEnd(buffered, this.#headScan);
        this.#headScan = end >= 0 ? 0 : Math.max(0, buffered.length - 3);
        if (end > limits.maxHeaderBytes) {
          throw new BadRequest(431, `request head over ${limits.maxHeaderBytes} bytes`);
        }
        if (end >= 0) {
          const head = parseHead(buffered.subarray(0, end));
          this.consume(end + 4);
          this.#headScan = 0;
          return head;
        }
        if (buffered.length > limits.maxHeaderBytes) {
          throw new BadRequest(431, `request head over ${limits.maxHeaderBytes} bytes`);
        }
        if (!(await this.fill())) {
          if (timedOut && started) {
            this.#note(`closed a connection: request head not complete within ${limits.headerTimeoutMs} ms`);
          }
          if (this.#start < this.#end && !timedOut) throw new BadRequest(400, "request head cut short");
          return null;
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * End a connection whose peer may still be sending a body: stop writing, discard what arrives for a
   * moment, then close. Closing with unread bytes would reset the connection, and the peer could lose the
   * answer just written (a 413, say) before reading it.
   */
  async #lingerClose(): Promise<void> {
    try {
      await this.#conn.closeWrite();
    } catch {
      return;
    }
    const timer = setTimeout(() => this.#close(), LINGER_MS);
    let discarded = 0;
    while (discarded < LINGER_BYTES && (await this.fill())) discarded += this.take(LINGER_BYTES).length;
    clearTimeout(timer);
    this.#close();
  }

  // --- writing ---

  /** Write all of `bytes`, or give up (closing the connection) when the peer takes none for too long. */
  async write(bytes: Uint8Array): Promise<boolean> {
    let offset = 0;
    while (offset < bytes.length) {
      if (this.#closed) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // Each write gets its own clock: progress, however slow, is not a stall.
      const stalled = new Promise<"stalled">((resolve) => {
        timer = setTimeout(() => resolve("stalled"), this.#limits.writeStallMs);
      });
      const wrote = await Promise.race([this.#conn.write(bytes.subarray(offset)).catch(() => -1), stalled]);
      clearTimeout(timer);
      if (wrote === "stalled") {
        this.#note(`closed a connection: the client took no bytes for ${this.#limits.writeStallMs} ms`);
        this.#close();
        return false;
      }
      if (wrote < 0) {
        this.#close();
        return false;
      }
      offset += wrote;
    }
    return true;
  }

  async #writeSimple(status: number, message: string): Promise<void> {
    const body = `${REASONS[status] ?? "Error"}: ${message}\n`;
    const bytes = encoder.encode(body);
    await this.write(encoder.encode(
      `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
        `content-length: ${bytes.length}\r\nconnection: close\r\n\r\n`,
    ));
    await this.write(bytes);
  }

  async #writeResponse(
    head: Head,
    response: Response,
    keepAlive: boolean,
    signal: AbortSignal,
  ): Promise<boolean> {
    const status = response.status;
    const bodyless = head.method === "HEAD" || status === 204 || status === 304 || status < 200;
    const lines = [
      `HTTP/1.1 ${status} ${response.statusText || REASONS[status] || "Unknown"}`,
      `date: ${new Date().toUTCString()}`,
    ];
    let length: string | null = null;
    for (const [name, value] of response.headers) {
      if (name === "set-cookie") continue;
      if (name === "connection" || name === "transfer-encoding" || name === "keep-alive") continue;
      if (name === "content-length") {
        length = value;
        continue;
      }
      lines.push(`${name}: ${value}`);
    }
    for (const cookie of response.headers.getSetCookie()) lines.push(`set-cookie: ${cookie}`);
    const reader = response.body?.getReader() ?? null;
    const streamed = reader !== null && !bodyless;
    // HTTP/1.0 knows no chunks: its answer runs to the connection's end (keepAlive is false for it).
    const chunked = streamed && !head.http10;
    if (bodyless) {
      if (length !== null && head.method === "HEAD") lines.push(`content-length: ${length}`);
    } else if (chunked) lines.push("transfer-encoding: chunked");
    else if (!streamed) lines.push("content-length: 0");
    lines.push(
      keepAlive
        ? `keep-alive: timeout=${Math.floor(this.#limits.idleTimeoutMs / 1000)}`
        : "connection: close",
    );
    if (!(await this.write(encoder.encode(lines.join("\r\n") + "\r\n\r\n")))) {
      await reader?.cancel().catch(() => {});
      return false;
    }
    if (reader === null) return true;
    if (!streamed) {
      await reader.cancel().catch(() => {});
      return true;
    }
    const onAbort = () => reader.cancel(signal.reason).catch(() => {});
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch {
          // The body failed midway: the framing cannot say so, so the connection closes without the end.
          this.#close();
          return false;
        }
        if (next.done) break;
        const chunk = next.value;
        if (chunk.length === 0) continue;
        if (!(await this.write(chunked ? frameChunk(chunk) : chunk))) {
          await reader.cancel().catch(() => {});
          return false;
        }
      }
      return chunked ? await this.write(encoder.encode("0\r\n\r\n")) : true;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Answer `100 Continue` (once), for a peer that waits for it before sending the body. */
  async sendContinue(): Promise<void> {
    await this.write(encoder.encode("HTTP/1.1 100 Continue\r\n\r\n"));
  }
}

/** A parsed request head. */
interface Head {
  method: string;
  target: string;
  headers: Headers;
  keepAlive: boolean;
  /** An HTTP/1.0 request: its answer is not chunked, and the connection ends after it. */
  http10: boolean;
  /** Body framing: a byte count, chunked, or none. */
  length: number | "chunked";
  expectContinue: boolean;
}

function indexOfHeadEnd(bytes: Uint8Array, from: number): number {
  for (let i = bytes.indexOf(13, from); i >= 0 && i + 3 < bytes.length; i = bytes.indexOf(13, i + 1)) {
    if (bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

/** Parse a request head (without its final blank line), refusing what could be read two ways. */
function parseHead(bytes: Uint8Array): Head {
  const text = latin1.decode(bytes);
  const lines = text.split("\r\n");
  const requestLine = lines[0].split(" ");
  if (requestLine.length !== 3) throw new BadRequest(400, "malformed request line");
  const [method, target, version] = requestLine;
  if (!TOKEN.test(method)) throw new BadRequest(400, "malformed method");
  if (version !== "HTTP/1.1" && version !== "HTTP/1.0") {
    throw new BadRequest(version.startsWith("HTTP/") ? 505 : 400, "unsupported HTTP version");
  }
  // deno-lint-ignore no-control-regex -- control characters are what this refuses
  if (target === "" || /[\x00-\x20\x7f]/.test(target)) throw new BadRequest(400, "malformed request target");
  const headers = new Headers();
  const lengths: string[] = [];
  let hosts = 0;
  let transferEncoding: string | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith(" ") || line.startsWith("\t")) throw new BadRequest(400, "folded header line");
    const colon = line.indexOf(":");
    if (colon <= 0) throw new BadRequest(400, "malformed header line");
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) throw new BadRequest(400, "malformed header name");
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    // deno-lint-ignore no-control-regex -- control characters are what this refuses
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) throw new BadRequest(400, "control character in a header");
    const lower = name.toLowerCase();
    if (lower === "host") hosts++;
    if (lower === "content-length") lengths.push(...value.split(",").map((v) => v.trim()));
    if (lower === "transfer-encoding") {
      transferEncoding = transferEncoding === null ? value : `${transferEncoding}, ${value}`;
    }
    try {
      headers.append(name, value);
    } catch {
      throw new BadRequest(400, "malformed header value");
    }
  }
  let length: number | "chunked" = 0;
  if (transferEncoding !== null) {
    if (lengths.length > 0) throw new BadRequest(400, "both Content-Length and Transfer-Encoding");
    if (transferEncoding.trim().toLowerCase() !== "chunked") {
      throw new BadRequest(501, "transfer coding other than chunked");
    }
    length = "chunked";
  } else if (lengths.length > 0) {
    if (!lengths.every((v) => /^[0-9]{1,15}$/.test(v)) || new Set(lengths.map(Number)).size !== 1) {
      throw new BadRequest(400, "malformed or conflicting Content-Length");
    }
    length = Number(lengths[0]);
  }
  const connection = (headers.get("connection") ?? "").toLowerCase().split(",").map((v) => v.trim());
  // HTTP/1.0 keep-alive is not offered: its answers are delimited by the connection's end.
  const keepAlive = version === "HTTP/1.1" && !connection.includes("close");
  if (version === "HTTP/1.1" && hosts !== 1) {
    throw new BadRequest(400, hosts === 0 ? "no Host header" : "more than one Host header");
  }
  const expectContinue = (headers.get("expect") ?? "").toLowerCase() === "100-continue";
  return { method, target, headers, keepAlive, http10: version === "HTTP/1.0", length, expectContinue };
}

/** The fetch `Request` of a head; the URL's host is the Host header's when it forms one (else a stand-in). */
function buildRequest(head: Head, body: RequestBody, signal: AbortSignal, local: Deno.NetAddr): Request {
  const host = head.headers.get("host") ?? "";
  let url: URL;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(head.target)) url = new URL(head.target);
  else {
    if (!head.target.startsWith("/") && head.target !== "*") {
      throw new BadRequest(400, "malformed request target");
    }
    const path = head.target === "*" ? "/" : head.target;
    try {
      url = new URL(`http://${host}${path}`);
      if (host === "" || url.host.toLowerCase() !== host.toLowerCase()) throw new Error("odd host");
    } catch {
      // The handler judges the Host header itself; the URL only needs to parse.
      const stand = local.hostname.includes(":") ? `[${local.hostname}]` : local.hostname;
      url = new URL(`http://${stand}:${local.port}${path}`);
    }
  }
  const hasBody = head.length === "chunked" || head.length > 0;
  return new Request(url, {
    method: head.method,
    headers: head.headers,
    body: hasBody && head.method !== "GET" && head.method !== "HEAD" ? body.stream : undefined,
    signal,
    // @ts-ignore: Deno's Request takes `duplex` for streamed bodies, as fetch does.
    duplex: "half",
  });
}

/** A request's body as a stream the handler pulls from the connection. */
class RequestBody {
  readonly stream: ReadableStream<Uint8Array>;
  #connection: Connection;
  #head: Head;
  #left: number;
  #chunkLeft = 0;
  #state: "data" | "size" | "trailer" | "done" = "data";
  #continued = false;
  #trailerBytes = 0;
  /** The framing error the body stopped at, if any. */
  failed: BadRequest | null = null;

  constructor(connection: Connection, head: Head) {
    this.#connection = connection;
    this.#head = head;
    this.#left = head.length === "chunked" ? 0 : head.length;
    if (head.length === "chunked") this.#state = "size";
    else if (head.length === 0) this.#state = "done";
    this.stream = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const chunk = await this.next();
          if (chunk === null) controller.close();
          else controller.enqueue(chunk);
        } catch (error) {
          controller.error(error);
        }
      },
    }, { highWaterMark: 0 });
  }

  /** Whether the whole body has been read. */
  get finished(): boolean {
    return this.#state === "done";
  }

  /** The next piece of the body, or null at its end; throws when the peer cuts it short or frames it wrongly. */
  async next(): Promise<Uint8Array | null> {
    try {
      return await this.#next();
    } catch (error) {
      if (error instanceof BadRequest) this.failed = error;
      throw error;
    }
  }

  async #next(): Promise<Uint8Array | null> {
    if (this.#head.expectContinue && !this.#continued && this.#state !== "done") {
      this.#continued = true;
      await this.#connection.sendContinue();
    }
    const c = this.#connection;
    for (;;) {
      if (this.#state === "done") return null;
      if (this.#state === "data" && this.#head.length !== "chunked") {
        if (this.#left === 0) {
          this.#done();
          return null;
        }
        if (c.buffered.length === 0 && !(await c.fill())) throw new Error("request body cut short");
        const out = c.take(this.#left);
        this.#left -= out.length;
        if (this.#left === 0) this.#done();
        return out.slice();
      }
      return await this.#nextChunked();
    }
  }

  /**
   * The next piece of a chunked body: every chunk already received, joined (up to {@link BODY_PIECE_BYTES}),
   * so a body of a million 1-byte chunks is not a million pieces for the handler to hold.
   */
  async #nextChunked(): Promise<Uint8Array | null> {
    const c = this.#connection;
    const parts: Uint8Array[] = [];
    let got = 0;
    // Wait for bytes only while nothing is gathered yet; else answer what is here.
    const more = async () => {
      if (got > 0) return false;
      if (!(await c.fill())) throw new Error("request body cut short");
      return true;
    };
    while (this.#state !== "done" && got < BODY_PIECE_BYTES) {
      if (this.#state === "data") {
        if (this.#chunkLeft > 0) {
          if (c.buffered.length === 0) {
            if (await more()) continue;
            break;
          }
          const out = c.take(Math.min(this.#chunkLeft, BODY_PIECE_BYTES - got));
          this.#chunkLeft -= out.length;
          parts.push(out.slice());
          got += out.length;
          continue;
        }
        // The CRLF after a chunk's data.
        if (c.buffered.length < 2) {
          if (await more()) continue;
          break;
        }
        if (c.buffered[0] !== 13 || c.buffered[1] !== 10) throw new BadRequest(400, "malformed chunk");
        c.consume(2);
        this.#state = "size";
        continue;
      }
      // A size line or a trailer line.
      const line = this.#line();
      if (line === null) {
        if (c.buffered.length > MAX_CHUNK_LINE) throw new BadRequest(400, "chunk line too long");
        if (await more()) continue;
        break;
      }
      if (this.#state === "size") {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/.exec(line);
        if (size === null) throw new BadRequest(400, "malformed chunk size");
        const n = parseInt(size[1], 16);
        if (n === 0) this.#state = "trailer";
        else {
          this.#chunkLeft = n;
          this.#state = "data";
        }
      } else if (line === "") this.#done();
      else if ((this.#trailerBytes += line.length + 2) > MAX_CHUNK_LINE) {
        throw new BadRequest(400, "trailer fields too long");
      }
    }
    if (got === 0) return null;
    return parts.length === 1 ? parts[0] : concatBytes(parts);
  }

  #done(): void {
    this.#state = "done";
    this.#connection.watchForHangUp();
  }

  /** One CRLF-ended line from the buffer, or null when it has not all arrived. */
  #line(): string | null {
    const bytes = this.#connection.buffered;
    const at = bytes.indexOf(10);
    if (at < 0) return null;
    if (at > MAX_CHUNK_LINE) throw new BadRequest(400, "chunk line too long");
    if (at === 0 || bytes[at - 1] !== 13) throw new BadRequest(400, "malformed chunk line");
    const line = latin1.decode(bytes.subarray(0, at - 1));
    this.#connection.consume(at + 1);
    return line;
  }
}

/** One chunk of a chunked answer: its size in hex, CRLF, the bytes, CRLF. */
function frameChunk(chunk: Uint8Array): Uint8Array {
  const size = encoder.encode(`${chunk.length.toString(16)}\r\n`);
  const framed = new Uint8Array(size.length + chunk.length + 2);
  framed.set(size, 0);
  framed.set(chunk, size.length);
  framed.set([13, 10], size.length + chunk.length);
  return framed;
}
