// The HTTP/1.1 listener under the Streamable HTTP transport, driven through real sockets: plain requests
// and keep-alive, streamed bodies both ways, and the bounds that Deno.serve lacked (connection cap,
// slow heads, oversize heads, stalled readers, smuggling-shaped framing).

import assert from "node:assert/strict";
import { serveHttp1 } from "../../../src/mcp/protocol/http_listener.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Echo handler: method, path and body back; `/stream` answers a stream of `n` chunks. */
function echo(request: Request): Response | Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === "/stream") {
    const n = Number(url.searchParams.get("n") ?? "3");
    let i = 0;
    return new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i === n) controller.close();
          else controller.enqueue(encoder.encode(`data: ${i++}\n\n`));
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  }
  if (url.pathname === "/refuse") return new Response("too big", { status: 413 });
  return request.text().then((body) =>
    new Response(`${request.method} ${url.pathname} ${request.headers.get("x-n") ?? ""} ${body}`, {
      headers: { "x-echo": "1" },
    })
  );
}

/** Read a raw connection until it closes (or `ms` pass), returning what arrived. */
async function readAll(conn: Deno.Conn, ms = 30_000): Promise<string> {
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  const timer = setTimeout(() => conn.close(), ms);
  try {
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed by the timer */ }
  }
  return chunks.map((c) => decoder.decode(c)).join("");
}

async function withServer(
  options: Partial<Parameters<typeof serveHttp1>[0]>,
  body: (port: number, notes: string[]) => Promise<void>,
): Promise<void> {
  const notes: string[] = [];
  const server = serveHttp1(
    { hostname: "127.0.0.1", port: 0, onRefuse: (n) => notes.push(n), ...options },
    echo,
  );
  try {
    await body(server.addr.port, notes);
  } finally {
    await server.shutdown();
  }
}

Deno.test("fetch requests, keep-alive, a streamed answer and a streamed body go through", async () => {
  await withServer({}, async (port) => {
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`http://127.0.0.1:${port}/a?x=1`, {
        method: "POST",
        headers: { "x-n": String(i) },
        body: `hello ${i}`,
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("x-echo"), "1");
      assert.equal(await r.text(), `POST /a ${i} hello ${i}`);
    }
    const s = await fetch(`http://127.0.0.1:${port}/stream?n=4`);
    assert.equal(await s.text(), "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n");
    const big = "x".repeat(3 * 1024 * 1024);
    const streamed = await fetch(`http://127.0.0.1:${port}/b`, {
      method: "PUT",
      body: new Blob([big]).stream(),
    });
    assert.equal((await streamed.text()).length, "PUT /b  ".length + big.length);
  });
});

Deno.test("raw framing: chunked bodies, 100-continue, HEAD, pipelined requests", async () => {
  await withServer({}, async (port) => {
    let conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode(
      "POST /c HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\n\r\n" +
        "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n" +
        "GET /d HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n",
    ));
    let text = await readAll(conn);
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(text.includes("POST /c  hello world"), text);
    assert.ok(text.includes("GET /d  "), text);
    assert.ok(text.includes("connection: close"), text);

    conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode(
      "POST /e HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 3\r\nexpect: 100-continue\r\nconnection: close\r\n\r\n",
    ));
    const first = new Uint8Array(1024);
    const n = await conn.read(first);
    assert.equal(decoder.decode(first.subarray(0, n ?? 0)), "HTTP/1.1 100 Continue\r\n\r\n");
    await conn.write(encoder.encode("abc"));
    text = await readAll(conn);
    assert.ok(text.includes("POST /e  abc"), text);

    conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode("HEAD /stream HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"));
    text = await readAll(conn);
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(text.endsWith("\r\n\r\n"), "no body after a HEAD answer");
  });
});

Deno.test("ambiguous framing is refused with 400 and the connection closes", async () => {
  await withServer({}, async (port) => {
    const cases = [
      "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\nabc",
      "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\nabcd",
      "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: -1\r\n\r\n",
      "GET / HTTP/1.1\r\nhost: x\r\n folded: yes\r\n\r\n",
      "GET /\x01 HTTP/1.1\r\nhost: x\r\n\r\n",
      "GET / HTTP/1.1 extra\r\nhost: x\r\n\r\n",
    ];
    for (const raw of cases) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(encoder.encode(raw));
      const text = await readAll(conn);
      assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n/, JSON.stringify(raw));
      assert.ok(!text.includes("x-echo"), "the handler never saw it");
    }
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode("POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: gzip\r\n\r\n"));
    assert.match(await readAll(conn), /^HTTP\/1\.1 501 /);
  });
});

Deno.test("a head that arrives too slowly is cut off; an oversize one gets 431", async () => {
  await withServer({ headerTimeoutMs: 300, maxHeaderBytes: 4096 }, async (port, notes) => {
    // A slow-loris: one header byte at a time, well inside any per-byte timeout, never finishing.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode("GET / HTTP/1.1\r\nhost: x\r\n"));
    const started = Date.now();
    let closed = false;
    for (let i = 0; i < 400 && !closed; i++) {
      closed = await conn.write(encoder.encode("a")).then(() => false, () => true);
      await new Promise((r) => setTimeout(r, 50));
      if (!closed) {
        const probe = await Promise.race([
          conn.read(new Uint8Array(64)).then((n) => n === null, () => true),
          new Promise<false>((r) => setTimeout(() => r(false), 1)),
        ]);
        closed = probe;
      }
    }
    try {
      conn.close();
    } catch { /* closed */ }
    assert.ok(closed, "the server closed the slow connection");
    assert.ok(Date.now() - started < 20_000);
    assert.ok(notes.some((n) => n.includes("not complete within 300 ms")), notes.join("\n"));

    const big = await Deno.connect({ hostname: "127.0.0.1", port });
    await big.write(encoder.encode(`GET / HTTP/1.1\r\nhost: x\r\nx-pad: ${"p".repeat(8000)}\r\n\r\n`))
      .catch(() => {});
    assert.match(await readAll(big), /^HTTP\/1\.1 431 /);
  });
});

Deno.test("connections over the cap are answered 503; closing one frees its place", async () => {
  // No eviction here (a place is made only for connections idle a minute): the cap itself is tested.
  await withServer(
    { maxConnections: 3, headerTimeoutMs: 60_000, evictAfterMs: 60_000 },
    async (port, notes) => {
      const held = await Promise.all([0, 1, 2].map(() => Deno.connect({ hostname: "127.0.0.1", port })));
      // The server has accepted the three once it answers on one of them.
      await held[0].write(encoder.encode("GET /x HTTP/1.1\r\nhost: x\r\n\r\n"));
      const n = await held[0].read(new Uint8Array(4096));
      assert.ok(n !== null && n > 0);
      const extra = await Deno.connect({ hostname: "127.0.0.1", port });
      assert.match(await readAll(extra), /^HTTP\/1\.1 503 Service Unavailable\r\n/);
      assert.ok(notes.some((n) => n.includes("3 open")), notes.join("\n"));
      held[1].close();
      // Its place frees once the server sees the close; retry for a while on a busy machine.
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        const again = await Deno.connect({ hostname: "127.0.0.1", port });
        await again.write(encoder.encode("GET /y HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"))
          .catch(() => {});
        status = Number((await readAll(again)).slice(9, 12));
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 200);
      held[0].close();
      held[2].close();
    },
  );
});

Deno.test("a client that stops reading a stream is dropped, and the stream's source is cancelled", async () => {
  let cancelled = false;
  const server = serveHttp1({ hostname: "127.0.0.1", port: 0, writeStallMs: 500 }, () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new Uint8Array(256 * 1024));
        },
        cancel() {
          cancelled = true;
        },
      }),
    ));
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    await conn.write(encoder.encode("GET / HTTP/1.1\r\nhost: x\r\n\r\n"));
    // Never read: the kernel buffers fill, the server's write stalls, and it gives up.
    for (let i = 0; i < 300 && !cancelled; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(cancelled, "the answer's stream was cancelled");
    conn.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("a request's signal aborts when the client hangs up mid-answer", async () => {
  let aborted: () => void = () => {};
  const seen = new Promise<void>((resolve) => aborted = resolve);
  const server = serveHttp1({ hostname: "127.0.0.1", port: 0 }, async (request) => {
    request.signal.addEventListener("abort", () => aborted());
    // As the MCP handler does: the body first, then the (long) work.
    await request.text();
    return await new Promise<Response>((resolve) =>
      request.signal.addEventListener("abort", () => resolve(new Response("late")))
    );
  });
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    await conn.write(encoder.encode("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"));
    await new Promise((r) => setTimeout(r, 100));
    conn.close();
    await seen;
  } finally {
    await server.shutdown();
  }
});

/** FNV-1a of bytes, as hex: what the fuzz handler answers for a body. */
function fnv(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16);
}

/** A tiny seeded generator (mulberry32), so a failing case reruns. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Reads HTTP/1.1 answers off a raw connection, one at a time (the reference parser the fuzz checks against). */
class AnswerReader {
  #buf = new Uint8Array(0);
  constructor(readonly conn: Deno.Conn) {}
  async #more(): Promise<void> {
    const chunk = new Uint8Array(65536);
    const n = await this.conn.read(chunk);
    if (n === null) throw new Error("connection closed early");
    const next = new Uint8Array(this.#buf.length + n);
    next.set(this.#buf);
    next.set(chunk.subarray(0, n), this.#buf.length);
    this.#buf = next;
  }
  async #line(): Promise<string> {
    for (;;) {
      for (let i = 0; i + 1 < this.#buf.length; i++) {
        if (this.#buf[i] === 13 && this.#buf[i + 1] === 10) {
          const line = decoder.decode(this.#buf.subarray(0, i));
          this.#buf = this.#buf.subarray(i + 2);
          return line;
        }
      }
      await this.#more();
    }
  }
  async #bytes(n: number): Promise<Uint8Array> {
    while (this.#buf.length < n) await this.#more();
    const out = this.#buf.slice(0, n);
    this.#buf = this.#buf.subarray(n);
    return out;
  }
  async answer(): Promise<{ status: number; body: string }> {
    const status = Number((await this.#line()).split(" ")[1]);
    const headers = new Map<string, string>();
    for (let line = await this.#line(); line !== ""; line = await this.#line()) {
      const at = line.indexOf(":");
      headers.set(line.slice(0, at).toLowerCase(), line.slice(at + 1).trim());
    }
    let body = "";
    if (headers.get("transfer-encoding") === "chunked") {
      for (;;) {
        const size = parseInt(await this.#line(), 16);
        if (size === 0) {
          await this.#line();
          break;
        }
        body += decoder.decode(await this.#bytes(size));
        await this.#bytes(2);
      }
    } else body = decoder.decode(await this.#bytes(Number(headers.get("content-length") ?? "0")));
    return { status, body };
  }
}

Deno.test("fuzz: pipelined requests in random framing and random fragments all get their own answer", async () => {
  const handler = async (request: Request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    return new Response(`${request.method} ${new URL(request.url).pathname} ${body.length} ${fnv(body)}`);
  };
  const server = serveHttp1({ hostname: "127.0.0.1", port: 0 }, handler);
  try {
    for (let seed = 1; seed <= 40; seed++) {
      const random = rng(seed);
      const count = 1 + Math.floor(random() * 5);
      const parts: Uint8Array[] = [];
      const expected: string[] = [];
      for (let r = 0; r < count; r++) {
        const size = random() < 0.3 ? 0 : Math.floor(random() ** 3 * 200_000);
        const body = new Uint8Array(size);
        for (let i = 0; i < size; i++) body[i] = Math.floor(random() * 256);
        const path = `/p${seed}-${r}`;
        const chunked = size > 0 && random() < 0.5;
        let head = `PUT ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n`;
        if (chunked) {
          head += "transfer-encoding: chunked\r\n\r\n";
          parts.push(encoder.encode(head));
          for (let at = 0; at < size;) {
            const n = Math.min(size - at, random() < 0.3 ? 1 : 1 + Math.floor(random() * 9000));
            parts.push(encoder.encode(`${n.toString(16)}${random() < 0.2 ? ";x=y" : ""}\r\n`));
            parts.push(body.subarray(at, at + n));
            parts.push(encoder.encode("\r\n"));
            at += n;
          }
          parts.push(encoder.encode(random() < 0.2 ? "0\r\nx-trailer: 1\r\n\r\n" : "0\r\n\r\n"));
        } else {
          parts.push(encoder.encode(`${head}content-length: ${size}\r\n\r\n`), body);
        }
        expected.push(`PUT ${path} ${size} ${fnv(body)}`);
      }
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      const answers = new AnswerReader(conn);
      const got = (async () => {
        const out: string[] = [];
        for (let i = 0; i < count; i++) out.push((await answers.answer()).body);
        return out;
      })();
      // Random fragments, some tiny, some with a pause: every split point of the framing gets exercised.
      for (let sent = 0; sent < all.length;) {
        const n = Math.min(
          all.length - sent,
          random() < 0.3 ? 1 + Math.floor(random() * 5) : Math.floor(random() * 30_000) + 1,
        );
        for (let w = 0; w < n;) w += await conn.write(all.subarray(sent + w, sent + n));
        sent += n;
        if (random() < 0.05) await new Promise((r) => setTimeout(r, 2));
      }
      assert.deepEqual(await got, expected, `seed ${seed}`);
      conn.close();
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("a body of a million tiny chunks reaches the handler in few pieces", async () => {
  let pieces = 0;
  let bytes = 0;
  const server = serveHttp1({ hostname: "127.0.0.1", port: 0 }, async (request) => {
    for await (const piece of request.body!) {
      pieces++;
      bytes += piece.length;
    }
    return new Response("ok");
  });
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    const chunks = "1\r\nx\r\n".repeat(100_000);
    await conn.write(encoder.encode("POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n"));
    const data = encoder.encode(chunks + "0\r\n\r\n");
    for (let w = 0; w < data.length;) w += await conn.write(data.subarray(w));
    const answer = await new AnswerReader(conn).answer();
    assert.equal(answer.body, "ok");
    assert.equal(bytes, 100_000);
    // One piece per socket read at most (16 KiB of framing, about 2,700 bytes of data), not one per chunk.
    assert.ok(pieces < 1000, `${pieces} pieces`);
    conn.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("HTTP/1.0 gets an unchunked answer ended by the close; HTTP/1.1 without Host, or an endless chunk line, gets 400", async () => {
  await withServer({}, async (port) => {
    let conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode("GET /stream?n=2 HTTP/1.0\r\nconnection: keep-alive\r\n\r\n"));
    let text = await readAll(conn);
    assert.ok(!text.includes("transfer-encoding"), text);
    assert.ok(text.includes("connection: close"), text);
    assert.ok(text.endsWith("\r\n\r\ndata: 0\n\ndata: 1\n\n"), text);

    conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode("GET / HTTP/1.1\r\n\r\n"));
    assert.match(await readAll(conn), /^HTTP\/1\.1 400 Bad Request\r\n[^]*no Host header/);

    conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode(
      `POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n1;${
        "e".repeat(5000)
      }\r\nx\r\n0\r\n\r\n`,
    ));
    text = await readAll(conn);
    assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n[^]*chunk line too long/);
  });
});

Deno.test("at the cap, the connection waiting longest for a request makes room for a new one", async () => {
  await withServer({ maxConnections: 2, headerTimeoutMs: 60_000 }, async (port, notes) => {
    const idle = await Deno.connect({ hostname: "127.0.0.1", port });
    const idleClosed = readAll(idle, 30_000);
    await new Promise((r) => setTimeout(r, 1_500));
    const second = await Deno.connect({ hostname: "127.0.0.1", port });
    const third = await Deno.connect({ hostname: "127.0.0.1", port });
    await third.write(encoder.encode("GET /x HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"));
    assert.match(await readAll(third), /^HTTP\/1\.1 200 OK/);
    assert.equal(await idleClosed, "", "the idle connection was closed, without an answer");
    assert.ok(notes.some((n) => n.includes("waiting longest")), notes.join("\n"));
    second.close();
  });
});
