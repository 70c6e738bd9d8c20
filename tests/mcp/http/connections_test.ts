/**
 * Connection-level bounds of the real `bxp-mcp --http` on 127.0.0.1, attacked from another process the
 * way a slow-loris runs: many connections, each sending its headers a byte at a time and never finishing.
 * The server cuts each one at `--header-timeout`, answers connections past `--max-connections` with 503
 * at once (it stays responsive during the attack), and serves a real client normally once it ends.
 */
import assert from "node:assert/strict";
import { HttpServerProcess, initializeBody, POST_HEADERS } from "./_support.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };

/** A real client's `initialize` (id `id`) gets 200. */
async function assertServes(server: HttpServerProcess, id: number): Promise<void> {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...server.auth },
    body: initializeBody(id),
  });
  assert.equal(response.status, 200);
  await response.body?.cancel();
}

/** The slow-loris, as its own process: `n` connections trickling one header byte every `everyMs`. */
const ATTACKER = `
const [port, n, everyMs, seconds] = Deno.args.map(Number);
const enc = new TextEncoder();
let cut = 0, refused = 0;
const until = Date.now() + seconds * 1000;
async function one() {
  while (Date.now() < until) {
    let conn;
    try { conn = await Deno.connect({ hostname: "127.0.0.1", port }); } catch { await new Promise((r) => setTimeout(r, 50)); continue; }
    const reading = (async () => {
      const buf = new Uint8Array(512);
      const got = await conn.read(buf).catch(() => null);
      return got === null ? "closed" : new TextDecoder().decode(buf.subarray(0, got));
    })();
    let outcome = null;
    reading.then((v) => outcome = v);
    await conn.write(enc.encode("POST /mcp HTTP/1.1\\r\\nhost: 127.0.0.1\\r\\n")).catch(() => {});
    while (outcome === null && Date.now() < until) {
      await conn.write(enc.encode("x")).catch(() => {});
      await new Promise((r) => setTimeout(r, everyMs));
    }
    if (outcome !== null && outcome.startsWith("HTTP/1.1 503")) refused++;
    else if (outcome !== null) cut++;
    try { conn.close(); } catch {}
  }
}
await Promise.all(Array.from({ length: n }, one));
console.log(JSON.stringify({ cut, refused }));
`;

Deno.test({
  name: "a slow-loris from another process is cut at --header-timeout and capped at --max-connections",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start(["--max-connections", "16", "--header-timeout", "1"]);
    try {
      const port = Number(new URL(server.url).port);
      const script = await Deno.makeTempFile({ suffix: ".ts" });
      await Deno.writeTextFile(script, ATTACKER);
      const attacker = new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-net=127.0.0.1", script, String(port), "48", "200", "8"],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      // While the attack runs the server stays responsive: every attempt of a real client ends quickly,
      // served (200) or refused at the cap (503, or the connection closed at once). Whether one gets a
      // place depends on how fast the attacker takes the freed ones back, so it is not asserted.
      await new Promise((r) => setTimeout(r, 2_000));
      for (let i = 0; i < 10; i++) {
        const began = Date.now();
        const response = await fetch(server.url, {
          method: "POST",
          headers: { ...POST_HEADERS, ...server.auth },
          body: initializeBody(),
          signal: AbortSignal.timeout(20_000),
        }).catch((error) => error);
        if (response instanceof Response) {
          assert.ok([200, 503].includes(response.status), `status ${response.status}`);
          await response.body?.cancel();
        } else assert.notEqual(response?.name, "TimeoutError", "an attempt hung during the attack");
        assert.ok(Date.now() - began < 20_000);
        await new Promise((r) => setTimeout(r, 100));
      }
      const out = await attacker.output();
      await Deno.remove(script);
      const { cut, refused } = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.ok(cut > 0, `the server cut slow heads (cut ${cut})`);
      // Past the cap, a new connection is refused (503) or takes the place of the one waiting longest.
      assert.match(
        server.stderr,
        /refused a connection: 16 open \(--max-connections\)|closed the connection waiting longest/,
      );
      assert.ok(refused > 0 || /waiting longest/.test(server.stderr), `refused ${refused}`);
      assert.match(server.stderr, /request head not complete within 1000 ms|waiting longest/);
      // After the attack: served normally.
      await assertServes(server, 2);
      assert.equal(await server.stop(), 0);
    } finally {
      await server.dispose();
    }
  },
});

/** A body of 1-byte chunks, as fast as the socket takes it, for `seconds`. */
const TINY_CHUNKS = `
const [port, seconds] = Deno.args.slice(0, 2).map(Number);
const token = Deno.args[2];
const conn = await Deno.connect({ hostname: "127.0.0.1", port });
await conn.write(new TextEncoder().encode(
  "POST /mcp HTTP/1.1\\r\\nhost: 127.0.0.1\\r\\nauthorization: Bearer " + token + "\\r\\ncontent-type: application/json\\r\\n" +
  "accept: application/json, text/event-stream\\r\\ntransfer-encoding: chunked\\r\\n\\r\\n"));
const block = new TextEncoder().encode("1\\r\\n \\r\\n".repeat(4000));
const until = Date.now() + seconds * 1000;
let sent = 0;
while (Date.now() < until) {
  try { sent += await conn.write(block); } catch { break; }
}
console.log(sent);
`;

async function rssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

Deno.test({
  name: "a body of endless 1-byte chunks from another process does not grow the server's memory",
  ...opts,
  ignore: Deno.build.os !== "linux",
  async fn() {
    const server = await HttpServerProcess.start(["--body-timeout", "10"]);
    try {
      const port = Number(new URL(server.url).port);
      const script = await Deno.makeTempFile({ suffix: ".ts" });
      await Deno.writeTextFile(script, TINY_CHUNKS);
      const before = await rssMiB(server.pid);
      const attacker = new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-net=127.0.0.1", script, String(port), "8", server.token ?? ""],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      let peak = before;
      const sampling = (async () => {
        for (let i = 0; i < 90; i++) {
          peak = Math.max(peak, await rssMiB(server.pid).catch(() => peak));
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const out = await attacker.output();
      await sampling;
      await Deno.remove(script);
      const sent = Number(new TextDecoder().decode(out.stdout));
      // Before the fix each body byte cost about 750 bytes of RSS: 3.2 GiB in 30 s.
      assert.ok(
        peak - before < 150,
        `RSS ${before.toFixed(0)} -> ${peak.toFixed(0)} MiB after ${sent} bytes`,
      );
      await assertServes(server, 3);
    } finally {
      await server.dispose();
    }
  },
});
