/**
 * The Streamable HTTP handler in process (no socket): Request in, Response out, with a protocol-layer
 * test server per session. Covers what the process tests cannot see directly: server-to-client requests
 * on the GET stream (also when asked before the stream opened), one GET stream per session, shutdown
 * (503, every session's close hooks run), and the helpers.
 */
import assert from "node:assert/strict";
import { McpServer } from "../../../src/mcp/protocol/mod.ts";
import {
  constantTimeEqual,
  createHttpHandler,
  type HttpOptions,
  isLoopbackHost,
  isWellFormedHost,
} from "../../../src/mcp/protocol/http.ts";

const URL_ = "http://127.0.0.1:8931/mcp";
const HEADERS = {
  host: "127.0.0.1:8931",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function setup(extra: Partial<HttpOptions> = {}) {
  const servers: McpServer[] = [];
  const closed: string[] = [];
  const logs: string[] = [];
  const handler = createHttpHandler({
    log: (line) => void logs.push(line),
    ...extra,
    createSession: () => {
      const server = new McpServer({ name: "t", version: "1" });
      server.onClose(() => void closed.push(`server ${servers.indexOf(server)}`));
      servers.push(server);
      return server;
    },
    loopback: true,
    token: null,
  });
  const post = (body: unknown, session?: string) =>
    handler.handle(
      new Request(URL_, {
        method: "POST",
        headers: session === undefined ? HEADERS : { ...HEADERS, "mcp-session-id": session },
        body: JSON.stringify(body),
      }),
    );
  const open = async () => {
    const response = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: { roots: {} }, clientInfo: { name: "c" } },
    });
    assert.equal(response.status, 200);
    assert.equal((await response.json()).result.protocolVersion, "2025-06-18");
    return response.headers.get("mcp-session-id")!;
  };
  const get = (session: string) =>
    handler.handle(
      new Request(URL_, { headers: { ...HEADERS, accept: "text/event-stream", "mcp-session-id": session } }),
    );
  return { handler, servers, closed, logs, post, open, get };
}

/** The next `data:` payload of an event stream, parsed. */
async function nextEvent(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Record<string, unknown>> {
  let text = "";
  for (;;) {
    const match = /data: (.*)\n\n/.exec(text);
    if (match !== null) return JSON.parse(match[1]);
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended: ${text}`);
    text += new TextDecoder().decode(value);
  }
}

Deno.test("server requests go out on the GET stream, also those asked before it opened", async () => {
  const { handler, servers, open, get, post } = setup();
  const session = await open();
  // Asked before any stream: kept, then delivered when the client opens its GET stream.
  const early = servers[0].request("roots/list", undefined, 10_000);
  const stream = await get(session);
  assert.equal(stream.status, 200);
  assert.equal(stream.headers.get("content-type"), "text/event-stream");
  const reader = stream.body!.getReader();
  const asked = await nextEvent(reader);
  assert.equal(asked.method, "roots/list");
  const answered = await post({ jsonrpc: "2.0", id: asked.id, result: { roots: [] } }, session);
  assert.equal(answered.status, 202);
  assert.deepEqual(await early, { roots: [] });

  const second = await get(session);
  assert.equal(second.status, 409, "one GET stream per session");
  await second.body?.cancel();
  const later = servers[0].request("roots/list", undefined, 10_000);
  const again = await nextEvent(reader);
  await post({ jsonrpc: "2.0", id: again.id, result: { roots: [{ uri: "file:///p" }] } }, session);
  assert.deepEqual(await later, { roots: [{ uri: "file:///p" }] });
  await reader.cancel();
  await handler.shutdown(0);
});

Deno.test("shutdown ends every session (close hooks run) and answers 503 from then on", async () => {
  const { handler, closed, open, post } = setup();
  const a = await open();
  await open();
  assert.equal(handler.sessionCount, 2);
  await handler.shutdown(100);
  assert.deepEqual(closed.sort(), ["server 0", "server 1"]);
  assert.equal(handler.sessionCount, 0);
  const late = await post({ jsonrpc: "2.0", id: 2, method: "ping" }, a);
  assert.equal(late.status, 503);
  assert.ok(late.headers.get("retry-after"));
  await late.body?.cancel();
  const health = await handler.handle(new Request("http://127.0.0.1:8931/healthz"));
  assert.equal(health.status, 503);
  assert.deepEqual(await health.json(), { status: "stopping" });
});

Deno.test("Host checks, constant-time token compare and no CORS headers by default", async () => {
  assert.ok(isLoopbackHost("localhost"));
  assert.ok(isLoopbackHost("[::1]:80"));
  assert.ok(isLoopbackHost("127.0.0.1:8931"));
  assert.ok(!isLoopbackHost("127.0.0.2:8931"));
  assert.ok(!isLoopbackHost("localhost.evil.example"));
  assert.ok(!isLoopbackHost(null));
  assert.ok(constantTimeEqual("0123456789abcdef", "0123456789abcdef"));
  assert.ok(!constantTimeEqual("0123456789abcdeg", "0123456789abcdef"));
  assert.ok(!constantTimeEqual("0123456789abcdef0", "0123456789abcdef"));
  assert.ok(!constantTimeEqual("", "0123456789abcdef"));
  const { handler, open } = setup();
  await open();
  const opened = await handler.handle(
    new Request(URL_, { method: "OPTIONS", headers: { host: HEADERS.host, origin: "https://a.example" } }),
  );
  assert.equal(opened.status, 403, "a foreign origin is refused before anything else");
  assert.equal(opened.headers.get("access-control-allow-origin"), null);
  await opened.body?.cancel();
  await handler.shutdown(0);
});

Deno.test("a GET stream the client does not read is dropped once its queue passes the cap", async () => {
  const { handler, servers, logs, open, get } = setup({ maxStreamQueueBytes: 16 * 1024 });
  const session = await open();
  const stream = await get(session);
  assert.equal(stream.status, 200);
  // The client never reads: every server request (0.5 KiB each here) would otherwise stay queued.
  const asks: Promise<unknown>[] = [];
  for (let i = 0; i < 200; i++) {
    asks.push(servers[0].request("roots/list", { pad: "x".repeat(512) }, 60_000).catch(() => null));
  }
  assert.ok(logs.some((l) => /dropped a GET stream nobody read/.test(l)), logs.join("\n"));
  await assert.rejects(() => stream.body!.getReader().read(), /does not read/);
  const next = await get(session);
  assert.equal(next.status, 200, "the session may open a new stream (the dropped one no longer counts)");
  const reader = next.body!.getReader();
  const first = await nextEvent(reader);
  assert.equal(first.method, "roots/list", "messages kept meanwhile go out on it, as far as it reads");
  await reader.cancel();
  await handler.shutdown(0);
  await Promise.all(asks);
});

Deno.test("isWellFormedHost takes host[:port] and bracketed IPv6 only", () => {
  for (const ok of ["localhost", "127.0.0.1:8931", "[::1]:1", "app.example.com", "a-b.c:65535"]) {
    assert.ok(isWellFormedHost(ok), ok);
  }
  for (const bad of ["", "a b", "[", "@", ":::", "x/y", "h:99999", "h:abc", "%", "[::1", "h:1:2", "a\tb"]) {
    assert.ok(!isWellFormedHost(bad), bad);
  }
});
