import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { serveStdio } from "../../../src/mcp/protocol/mod.ts";
import {
  fakeStdin,
  fakeStdout,
  makeTestServer,
  request,
  toolCall,
  waitUntil,
  type Wire,
} from "./_test_tools.ts";

/** Parse stdout strictly: each chunk is exactly one JSON-RPC message terminated by one newline. */
function parseStdout(chunks: Uint8Array[]): Wire[] {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  return chunks.map((chunk) => {
    const text = decoder.decode(chunk);
    assert.ok(text.endsWith("\n"), "every message ends with a newline");
    assert.equal(text.indexOf("\n"), text.length - 1, "one message per write, no interleaving");
    assert.ok(!text.endsWith("\r\n"), "bare LF on output");
    const message = JSON.parse(text);
    assert.equal(message.jsonrpc, "2.0");
    const isResponse = "id" in message && (("result" in message) !== ("error" in message));
    const isNotification = !("id" in message) && typeof message.method === "string";
    assert.ok(isResponse || isNotification, `not a JSON-RPC message: ${text}`);
    return message;
  });
}

function session(options: { eofGraceMs?: number } = {}) {
  const logs: string[] = [];
  const { server, seen } = makeTestServer((message) => logs.push(`server: ${message}`));
  const stdin = fakeStdin();
  const stdout = fakeStdout();
  const done = serveStdio({
    server,
    stdin: stdin.readable,
    stdout: stdout.writable,
    log: (message) => logs.push(message),
    ...options,
  });
  return { server, seen, stdin, stdout, done, logs, messages: () => parseStdout(stdout.chunks) };
}

Deno.test("a full scripted session over stdio: smoke-contract answers and pure stdout", async () => {
  const s = session();
  const lines = [
    request(1, "initialize", { capabilities: {} }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    request(2, "tools/list"),
    toolCall(3, "json_echo", { expr: "1 + 2" }),
    request(9, "initialize", { protocolVersion: "2025-06-18", capabilities: {} }),
    toolCall(10, "stepper", { steps: 4 }, { progressToken: "p10" }),
    toolCall(11, "json_echo", {}),
    toolCall(12, "ndjson_text", { text: '{"t":"final","value":"3"}' }),
    JSON.stringify({ jsonrpc: "2.0", method: "tools/list" }),
    "{ this is not json",
    "[]",
    "",
    JSON.stringify({ jsonrpc: "2.0", id: 100 }),
    request(101, "no/such"),
    JSON.stringify({ jsonrpc: "2.0", method: "no/such" }),
    request(102, "tools/call"),
    request(103, "tools/call", []),
    request(104, "tools/call", {}),
    toolCall(105, "bxp_not_a_tool", {}),
    request(106, "tools/call", { name: "json_echo" }),
    toolCall(107, "json_echo", { expr: 5 }),
    request(108, "resources/list"),
    request(109, "prompts/list"),
    JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }),
    JSON.stringify({ jsonrpc: "2.0", id: 111, result: {} }),
    toolCall(110, "json_echo", { expr: "ok" }),
  ];
  s.stdin.write(lines.join("\n") + "\n");
  s.stdin.close();
  await s.done;
  const messages = s.messages();
  const progress = messages.filter((message) => message.method === "notifications/progress");
  const nullIds = messages.filter((message) => message.id === null);
  const byId: Record<number, Wire> = Object.fromEntries(
    messages.filter((message) => "id" in message && message.id !== null).map((
      message,
    ) => [message.id, message]),
  );
  assert.deepEqual(nullIds.map((message) => message.error.code), [-32700, -32600, -32600]);
  assert.deepEqual(Object.keys(byId).map(Number).sort((a, b) => a - b), [
    1,
    2,
    3,
    9,
    10,
    11,
    12,
    100,
    101,
    102,
    103,
    104,
    105,
    106,
    107,
    108,
    109,
    110,
  ]);
  assert.equal(byId[1].result.protocolVersion, "2025-11-25");
  assert.equal(byId[9].result.protocolVersion, "2025-06-18");
  assert.equal(byId[2].result.tools.length, 8);
  assert.deepEqual(byId[3].result.structuredContent, { ok: true, value: "1 + 2" });
  assert.equal(progress.length, 4);
  assert.ok(progress.every((note) => note.params.progressToken === "p10"));
  assert.equal(progress.at(-1)?.params.progress, progress.at(-1)?.params.total);
  assert.ok(messages.indexOf(progress[3]) < messages.indexOf(byId[10]), "progress precedes the result");
  assert.equal(byId[11].result.isError, true);
  assert.equal("structuredContent" in byId[11].result, false);
  assert.equal(byId[12].result.isError, false);
  assert.equal("structuredContent" in byId[12].result, false);
  assert.equal(byId[100].error.code, -32600);
  assert.equal(byId[101].error.code, -32601);
  for (const id of [102, 103, 104, 105]) assert.equal(byId[id].error.code, -32602, String(id));
  for (const id of [106, 107]) assert.equal(byId[id].result.content[0].text, "error: missing 'expr'");
  assert.deepEqual(byId[108].result, { resources: [] });
  assert.deepEqual(byId[109].result, { prompts: [] });
  assert.equal(111 in byId, false);
  assert.deepEqual(byId[110].result.structuredContent, { ok: true, value: "OK" });
});

Deno.test("a slow tool does not block ping; answers come in completion order", async () => {
  const s = session();
  s.stdin.write(toolCall("slow", "sleep", { ms: 150 }) + "\n" + request("ping", "ping") + "\n");
  await waitUntil(() => s.stdout.chunks.length >= 1);
  assert.deepEqual(s.messages().map((message) => message.id), ["ping"]);
  await waitUntil(() => s.stdout.chunks.length >= 2);
  assert.deepEqual(s.messages().map((message) => message.id), ["ping", "slow"]);
  s.stdin.close();
  await s.done;
});

Deno.test("notifications/cancelled over stdio aborts the call and suppresses its response", async () => {
  const s = session();
  s.stdin.write(toolCall(20, "hang", {}) + "\n");
  await waitUntil(() => s.seen.startedIds.length === 1);
  s.stdin.write(
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 20 } }) + "\n",
  );
  await waitUntil(() => s.seen.abortedIds.length === 1);
  s.stdin.write(request(21, "ping") + "\n");
  s.stdin.close();
  await s.done;
  assert.deepEqual(s.seen.abortedIds, [20]);
  assert.deepEqual(s.messages().map((message) => message.id), [21]);
});

Deno.test("end of input with a hanging tool aborts it and resolves promptly", async () => {
  const s = session();
  s.stdin.write(toolCall(30, "hang", {}) + "\n" + toolCall(31, "sleep", { ms: 60_000 }) + "\n");
  await waitUntil(() => s.seen.startedIds.length === 1);
  const started = Date.now();
  s.stdin.close();
  await s.done;
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 1000, `took ${elapsed} ms`);
  assert.deepEqual([...s.seen.abortedIds].sort(), [30, 31]);
  assert.deepEqual(s.messages(), [], "aborted calls get no response");
  assert.equal(s.server.inFlightCount, 0);
});

Deno.test("calls still running at end of input may finish within the grace period", async () => {
  const s = session({ eofGraceMs: 500 });
  s.stdin.write(toolCall(40, "sleep", { ms: 30 }) + "\n" + toolCall(41, "json_echo", { expr: "x" }) + "\n");
  s.stdin.close();
  await s.done;
  assert.deepEqual(s.messages().map((message) => message.id).sort(), [40, 41]);
  assert.deepEqual(s.seen.abortedIds, []);
});

Deno.test("with no grace, end of input aborts even a short call", async () => {
  const s = session({ eofGraceMs: 0 });
  s.stdin.write(toolCall(42, "sleep", { ms: 200 }) + "\n");
  s.stdin.close();
  await s.done;
  assert.deepEqual(s.seen.abortedIds, [42]);
  assert.deepEqual(s.messages(), []);
});

Deno.test("a 17 MiB line is refused without being answered as a request, and the next line is answered", async () => {
  const s = session();
  const encoder = new TextEncoder();
  s.stdin.write(encoder.encode('{"jsonrpc":"2.0","id":50,"method":"ping","params":{"pad":"'));
  const mebibyte = new Uint8Array(1024 * 1024).fill(0x61);
  for (let i = 0; i < 17; i++) s.stdin.write(mebibyte);
  s.stdin.write(encoder.encode('"}}\n' + request(51, "ping") + "\n"));
  s.stdin.close();
  await s.done;
  const messages = s.messages();
  assert.equal(messages.length, 2);
  assert.equal(messages[0].id, null);
  assert.ok([-32600, -32700].includes(messages[0].error.code));
  assert.match(messages[0].error.message, /exceeds 16777216 bytes/);
  assert.deepEqual(messages[1], { jsonrpc: "2.0", id: 51, result: {} });
  assert.ok(s.logs.some((line) => line.includes("longer than 16777216")));
});

Deno.test("a line just under the cap is still served", async () => {
  const s = session({ eofGraceMs: 2000 });
  const head = '{"jsonrpc":"2.0","id":52,"method":"ping","params":{"pad":"';
  const tail = '"}}';
  const pad = "b".repeat(16 * 1024 * 1024 - head.length - tail.length);
  s.stdin.write(head + pad + tail + "\n");
  s.stdin.close();
  await s.done;
  assert.deepEqual(s.messages(), [{ jsonrpc: "2.0", id: 52, result: {} }]);
});

Deno.test("an unterminated final line is discarded, not answered", async () => {
  const s = session();
  s.stdin.write(request(60, "ping") + "\n" + request(61, "ping"));
  s.stdin.close();
  await s.done;
  assert.deepEqual(s.messages().map((message) => message.id), [60]);
  assert.ok(s.logs.some((line) => line.includes("unterminated")));
});

Deno.test("CRLF input is accepted, split lines are reassembled, and output uses bare LF", async () => {
  const s = session();
  const text = request(70, "ping") + "\r\n" + toolCall(71, "json_echo", { expr: "é😀" }) + "\r\n";
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += 7) s.stdin.write(bytes.subarray(i, i + 7));
  s.stdin.close();
  await s.done;
  const messages = s.messages();
  assert.deepEqual(messages.map((message) => message.id), [70, 71]);
  assert.deepEqual(messages[1].result.structuredContent, { ok: true, value: "É😀" });
});

Deno.test("invalid UTF-8 is a parse error with a null id and the session continues", async () => {
  const s = session();
  s.stdin.write(Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d, 0x0a));
  s.stdin.write(request(80, "ping") + "\n");
  s.stdin.close();
  await s.done;
  const messages = s.messages();
  assert.equal(messages.length, 2);
  assert.equal(messages[0].id, null);
  assert.equal(messages[0].error.code, -32700);
  assert.equal(messages[1].id, 80);
});

Deno.test("concurrent calls with progress never interleave on stdout", async () => {
  const s = session();
  const calls = Array.from(
    { length: 20 },
    (_, i) => toolCall(100 + i, "stepper", { steps: 5 }, { progressToken: `t${i}` }),
  );
  s.stdin.write(calls.join("\n") + "\n");
  s.stdin.close();
  await s.done;
  const messages = s.messages();
  assert.equal(messages.length, 20 * 6);
  for (let i = 0; i < 20; i++) {
    const own = messages.filter((message) =>
      message.id === 100 + i || message.params?.progressToken === `t${i}`
    );
    assert.deepEqual(own.map((message) => message.params?.progress ?? "result"), [1, 2, 3, 4, 5, "result"]);
  }
});

Deno.test("a broken stdout is logged and serving still ends cleanly at end of input", async () => {
  const logs: string[] = [];
  const { server } = makeTestServer();
  const stdin = fakeStdin();
  const stdout = new WritableStream<Uint8Array>({
    write: () => {
      throw new Error("EPIPE");
    },
  });
  const done = serveStdio({ server, stdin: stdin.readable, stdout, log: (message) => logs.push(message) });
  stdin.write(request(1, "ping") + "\n" + request(2, "ping") + "\n");
  stdin.close();
  await done;
  assert.equal(logs.filter((line) => line.includes("EPIPE")).length, 1);
});

Deno.test("a failing stdin ends the session, and both streams are unlocked afterwards", async () => {
  const logs: string[] = [];
  const { server } = makeTestServer();
  let pulls = 0;
  const stdin = new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (pulls++ === 0) controller.enqueue(new TextEncoder().encode(request(1, "ping") + "\n"));
      else controller.error(new Error("read EIO"));
    },
  });
  const out = fakeStdout();
  await serveStdio({ server, stdin, stdout: out.writable, log: (message) => logs.push(message) });
  assert.deepEqual(parseStdout(out.chunks), [{ jsonrpc: "2.0", id: 1, result: {} }]);
  assert.ok(logs.some((line) => line.includes("read EIO")));
  assert.equal(stdin.locked, false);
  assert.equal(out.writable.locked, false);
});

const fixture = new URL("./fixtures/stdio_server.ts", import.meta.url);

Deno.test("a real process over pipes: pure stdout, answers, and a prompt exit on stdin EOF", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", fileURLToPath(fixture)],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = [
    request(1, "initialize", { protocolVersion: "2025-03-26" }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    toolCall(2, "hang", {}),
    toolCall(3, "stepper", { steps: 2 }, { progressToken: 7 }),
    "{ this is not json",
    request(4, "ping"),
  ];
  await writer.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n"));
  await writer.close();
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  const { code, stdout } = await child.output();
  clearTimeout(timer);
  assert.equal(code, 0);
  const text = new TextDecoder().decode(stdout);
  assert.ok(text.endsWith("\n"));
  const messages = text.slice(0, -1).split("\n").map((line) => JSON.parse(line));
  for (const message of messages) assert.equal(message.jsonrpc, "2.0");
  const ids = messages.filter((message) => "id" in message).map((message) => message.id);
  assert.deepEqual(ids.sort(), [1, 3, 4, null]);
  assert.equal(messages.find((message) => message.id === 1).result.protocolVersion, "2025-03-26");
  const progress = messages.filter((message) => message.method === "notifications/progress");
  assert.deepEqual(progress.map((message) => message.params.progressToken), [7, 7]);
});

Deno.test("a ByteReader input (the adapter's Deno.stdin) is served like a stream, lines split across reads", async () => {
  const { server } = makeTestServer();
  const text = `${request(1, "ping")}\n${toolCall(2, "json_echo", { expr: "ab" })}\n`;
  const bytes = new TextEncoder().encode(text);
  // Odd-sized reads cut messages (and a multi-byte boundary would too) anywhere.
  let at = 0;
  const reads: number[] = [];
  const stdin = {
    read(into: Uint8Array): Promise<number | null> {
      if (at >= bytes.length) return Promise.resolve(null);
      const n = Math.min(7, into.length, bytes.length - at);
      into.set(bytes.subarray(at, at + n));
      at += n;
      reads.push(n);
      return Promise.resolve(n);
    },
  };
  const stdout = fakeStdout();
  assert.equal(await serveStdio({ server, stdin, stdout: stdout.writable }), "eof");
  const messages = parseStdout(stdout.chunks);
  assert.deepEqual(messages.map((m) => m.id), [1, 2]);
  assert.deepEqual(messages[1].result.structuredContent, { ok: true, value: "AB" });
  assert.ok(reads.length > 5);
});

Deno.test("a stop while a ByteReader read is pending ends the session without waiting for input", async () => {
  const { server } = makeTestServer();
  const stdin = { read: () => new Promise<number | null>(() => {}) };
  const stop = new AbortController();
  const done = serveStdio({ server, stdin, stdout: fakeStdout().writable, signal: stop.signal });
  stop.abort();
  assert.equal(await done, "aborted");
});
