/**
 * Server-to-client requests (ids, results, errors, timeouts, session end), the client's MCP roots built
 * on them, the answer budget, and the stdio session's flow control: backpressure, an early stop, and the
 * close hooks that end a session.
 */
import assert from "node:assert/strict";
import { ClientRoots, McpServer, PeerRequestError, serveStdio } from "../../../src/mcp/protocol/mod.ts";
import { readRoots } from "../../../src/mcp/protocol/roots.ts";
import { utf8Length } from "../../../src/util/utf8.ts";
import { collector, fakeStdin, request, toolCall, waitUntil, type Wire } from "./_test_tools.ts";

/** A server whose server-initiated output is captured. */
function wired(options: { maxAnswerBytes?: number; answerTooLargeHint?: string } = {}) {
  const server = new McpServer({ name: "t", version: "1", ...options });
  const out = collector();
  server.setOutput(out.send);
  return { server, out };
}

const initialize = (capabilities: Record<string, unknown>) => request(1, "initialize", { capabilities });
const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
const answer = (id: unknown, result: unknown) => JSON.stringify({ jsonrpc: "2.0", id, result });

Deno.test("a request to the client resolves with its result; unknown responses are dropped unanswered", async () => {
  const { server, out } = wired();
  const pending = server.request("roots/list", { a: 1 }, 5_000);
  const sent = out.messages()[0];
  assert.deepEqual(sent, { jsonrpc: "2.0", id: "srv-1", method: "roots/list", params: { a: 1 } });
  const replies = collector();
  await server.handleLine(answer("srv-999", {}), replies.send);
  await server.handleLine(answer("srv-1", { roots: [] }), replies.send);
  assert.deepEqual(await pending, { roots: [] });
  await server.handleLine(answer("srv-1", { again: true }), replies.send);
  assert.deepEqual(replies.lines, [], "responses are never answered");
});

Deno.test("a request to the client fails on an error answer, a timeout, the session's end, or no output", async () => {
  const { server, out } = wired();
  const refused = server.request("roots/list", undefined, 5_000);
  await server.handleLine(
    JSON.stringify({ jsonrpc: "2.0", id: out.messages()[0].id, error: { code: -32601, message: "no" } }),
    () => {},
  );
  await assert.rejects(
    refused,
    (error) => error instanceof PeerRequestError && error.reason === "error" && error.code === -32601,
  );
  await assert.rejects(
    server.request("slow", undefined, 20),
    (error) => error instanceof PeerRequestError && error.reason === "timeout",
  );
  const open = server.request("never", undefined, 60_000);
  await server.close("test over");
  await assert.rejects(open, (error) => error instanceof PeerRequestError && error.reason === "closed");
  await assert.rejects(
    server.request("late"),
    (error) => error instanceof PeerRequestError && error.reason === "closed",
  );
  const silent = new McpServer({ name: "t", version: "1" });
  await assert.rejects(
    silent.request("x"),
    (error) => error instanceof PeerRequestError && error.reason === "no_output",
  );
});

Deno.test("client roots: asked after initialized, re-asked on list_changed, and waited for by current()", async () => {
  const { server, out } = wired();
  const roots = new ClientRoots(server, { timeoutMs: 5_000 });
  await server.handleLine(initialize({ roots: { listChanged: true } }), () => {});
  assert.equal(out.lines.length, 0, "no request before notifications/initialized");
  const early = roots.current(); // asked before the handshake completed: waits for it
  await server.handleLine(initialized, () => {});
  const first = out.messages().at(-1)!;
  assert.equal(first.method, "roots/list");
  await server.handleLine(answer(first.id, { roots: [{ uri: "file:///p", name: "P", extra: 1 }] }), () => {});
  assert.deepEqual(await early, { kind: "roots", roots: [{ uri: "file:///p", name: "P" }] });

  await server.handleLine(
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }),
    () => {},
  );
  const second = out.messages().at(-1)!;
  assert.notEqual(second.id, first.id);
  const during = roots.current(); // waits for the pending answer
  await server.handleLine(answer(second.id, { roots: [] }), () => {});
  assert.deepEqual(await during, { kind: "roots", roots: [] });
});

Deno.test("client roots: no capability means no question; bad or missing answers are 'unavailable'", async () => {
  const plain = wired();
  const none = new ClientRoots(plain.server, { timeoutMs: 5_000 });
  await plain.server.handleLine(initialize({}), () => {});
  await plain.server.handleLine(initialized, () => {});
  assert.deepEqual(await none.current(), { kind: "unsupported" });
  assert.equal(plain.out.lines.length, 0);

  const slow = wired();
  const silent = new ClientRoots(slow.server, { timeoutMs: 30 });
  await slow.server.handleLine(initialize({ roots: {} }), () => {});
  await slow.server.handleLine(initialized, () => {});
  assert.equal((await silent.current()).kind, "unavailable");

  const uninitialized = new ClientRoots(wired().server, { timeoutMs: 20 });
  assert.deepEqual(await uninitialized.current(), { kind: "unsupported" });

  assert.equal(readRoots({ roots: [{ uri: 5 }] }).kind, "unavailable");
  assert.equal(readRoots({ roots: "x" }).kind, "unavailable");
  assert.equal(readRoots(null).kind, "unavailable");
  assert.equal(
    readRoots({ roots: Array.from({ length: 300 }, () => ({ uri: "file:///x" })) }).kind,
    "unavailable",
  );
});

Deno.test("a tool answer over the byte budget becomes a tool failure naming its size and the hint", async () => {
  const { server } = wired({ maxAnswerBytes: 4096, answerTooLargeHint: "ask for less" });
  server.addTool({
    name: "big",
    description: "A big answer.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: (args) => ({ text: "é".repeat(Number(args?.n ?? 0)) }),
  });
  const out = collector();
  await server.handleLine(toolCall(1, "big", { n: 1000 }), out.send);
  await server.handleLine(toolCall(2, "big", { n: 3000 }), out.send);
  const [small, big] = out.messages() as Wire[];
  assert.equal(small.result.isError, false);
  assert.equal(big.result.isError, true);
  assert.match(
    big.result.content[0].text,
    /^error: the answer was 60\d\d bytes, over this server's limit of 4096 bytes for one message; ask for less$/,
  );
  assert.ok(out.lines.every((line) => utf8Length(line) <= 4096));
  assert.equal(utf8Length("aé€😀"), 1 + 2 + 3 + 4);
});

/** A stdout that takes nothing until `open()` is called. */
function gatedStdout() {
  const chunks: Uint8Array[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const writable = new WritableStream<Uint8Array>({
    async write(chunk) {
      await gate;
      chunks.push(chunk.slice());
    },
  }, { highWaterMark: 1 });
  return { writable, chunks, open };
}

Deno.test("backpressure: while answers wait for a client that does not read, no more requests are taken", async () => {
  const server = new McpServer({ name: "t", version: "1" });
  let calls = 0;
  server.addTool({
    name: "kib",
    description: "Ten KiB of text.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: () => {
      calls++;
      return { text: "x".repeat(10 * 1024) };
    },
  });
  const stdin = fakeStdin();
  const stdout = gatedStdout();
  const logs: string[] = [];
  const done = serveStdio({
    server,
    stdin: stdin.readable,
    stdout: stdout.writable,
    log: (m) => logs.push(m),
    maxQueuedBytes: 32 * 1024,
  });
  stdin.write(Array.from({ length: 200 }, (_, i) => toolCall(i + 1, "kib") + "\n").join(""));
  stdin.close();
  await waitUntil(() => logs.some((m) => m.includes("reading paused")));
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.ok(calls < 10, `only a few requests were taken while the client did not read (${calls})`);
  stdout.open();
  await done;
  assert.equal(calls, 200);
  assert.equal(stdout.chunks.length, 200, "every answer was written once reading resumed");
});

Deno.test("backpressure: no more than maxConcurrent messages are handled at once", async () => {
  const server = new McpServer({ name: "t", version: "1" });
  let running = 0;
  let peak = 0;
  server.addTool({
    name: "wait",
    description: "Waits a little.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: async () => {
      peak = Math.max(peak, ++running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running--;
      return { text: "ok" };
    },
  });
  const stdin = fakeStdin();
  const chunks: Uint8Array[] = [];
  const done = serveStdio({
    server,
    stdin: stdin.readable,
    stdout: new WritableStream({ write: (c) => void chunks.push(c) }),
    maxConcurrent: 3,
    eofGraceMs: 60_000,
  });
  stdin.write(Array.from({ length: 30 }, (_, i) => toolCall(i + 1, "wait") + "\n").join(""));
  stdin.close();
  await done;
  assert.equal(chunks.length, 30);
  assert.ok(peak <= 3, `peak concurrency ${peak}`);
});

Deno.test("an early stop ends the session at once: calls aborted without answers, close hooks run", async () => {
  const server = new McpServer({ name: "t", version: "1" });
  const events: string[] = [];
  server.addTool({
    name: "forever",
    description: "Runs until aborted, then cleans up.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: (_args, call) =>
      new Promise((_resolve, reject) => {
        events.push("started");
        call.signal.addEventListener("abort", () => {
          // Cleanup that takes a moment (like reaping a killed child) before the handler settles.
          setTimeout(() => {
            events.push("cleaned up");
            reject(call.signal.reason);
          }, 20);
        });
      }),
  });
  server.onClose(() => void events.push("close hook"));
  const stdin = fakeStdin();
  const chunks: Uint8Array[] = [];
  const stop = new AbortController();
  const done = serveStdio({
    server,
    stdin: stdin.readable,
    stdout: new WritableStream({ write: (c) => void chunks.push(c) }),
    signal: stop.signal,
    eofGraceMs: 60_000,
  });
  stdin.write(toolCall(1, "forever") + "\n");
  await waitUntil(() => events.includes("started"));
  stop.abort();
  assert.equal(await done, "aborted");
  assert.deepEqual(
    events,
    ["started", "cleaned up", "close hook"],
    "hooks run after the handlers wound down",
  );
  assert.equal(chunks.length, 0, "the aborted call is not answered");
});

Deno.test("a stop during the end-of-input grace cuts the grace short", async () => {
  const server = new McpServer({ name: "t", version: "1" });
  let aborted = false;
  server.addTool({
    name: "forever",
    description: "Runs until aborted.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: (_args, call) =>
      new Promise((_resolve, reject) =>
        call.signal.addEventListener("abort", () => {
          aborted = true;
          reject(call.signal.reason);
        })
      ),
  });
  const stdin = fakeStdin();
  const stop = new AbortController();
  const done = serveStdio({
    server,
    stdin: stdin.readable,
    stdout: new WritableStream(),
    signal: stop.signal,
    eofGraceMs: 3_600_000,
  });
  stdin.write(toolCall(1, "forever") + "\n");
  stdin.close();
  await waitUntil(() => server.inFlightCount === 1);
  stop.abort();
  assert.equal(await done, "aborted");
  assert.ok(aborted);
});

Deno.test("client roots: a question that timed out is asked again by the next caller", async () => {
  const { server, out } = wired();
  const roots = new ClientRoots(server, { timeoutMs: 30 });
  await server.handleLine(initialize({ roots: {} }), () => {});
  await server.handleLine(initialized, () => {});
  assert.equal((await roots.current()).kind, "unavailable");
  assert.equal(out.lines.length, 1);
  const again = roots.current();
  await waitUntil(() => out.lines.length === 2);
  const second = out.messages()[1];
  assert.equal(second.method, "roots/list");
  await server.handleLine(answer(second.id, { roots: [{ uri: "file:///q" }] }), () => {});
  assert.deepEqual(await again, { kind: "roots", roots: [{ uri: "file:///q" }] });
  assert.deepEqual(await roots.current(), { kind: "roots", roots: [{ uri: "file:///q" }] });
  assert.equal(out.lines.length, 2, "an answered question is not asked again");
});

Deno.test("backpressure: the bytes of the messages being handled are bounded too (one always passes)", async () => {
  const server = new McpServer({ name: "t", version: "1" });
  let running = 0;
  let peak = 0;
  server.addTool({
    name: "hold",
    description: "Holds its (large) argument for a moment.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: async () => {
      peak = Math.max(peak, ++running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running--;
      return { text: "ok" };
    },
  });
  const stdin = fakeStdin();
  const chunks: Uint8Array[] = [];
  const done = serveStdio({
    server,
    stdin: stdin.readable,
    stdout: new WritableStream({ write: (c) => void chunks.push(c) }),
    maxInFlightBytes: 25_000,
    eofGraceMs: 60_000,
  });
  // Each line is about 10 kB: at most two fit the bound; a single 40 kB line still passes alone.
  const line = (id: number, size: number) => toolCall(id, "hold", { pad: "x".repeat(size) }) + "\n";
  stdin.write(Array.from({ length: 20 }, (_, i) => line(i + 1, 10_000)).join("") + line(99, 40_000));
  stdin.close();
  await done;
  assert.equal(chunks.length, 21);
  assert.ok(peak <= 2, `peak concurrency ${peak}`);
});
