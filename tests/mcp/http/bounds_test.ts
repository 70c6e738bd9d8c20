/**
 * The "Security, round three" fixes of the real `bxp-mcp --http` on 127.0.0.1: no root from a client
 * (`--http` needs `--root`), a bearer token on loopback by default, request bodies bounded before and
 * while they are read (48 half-sent bodies no longer pin hundreds of MiB; a stalled one times out), a
 * client holding every session with pings alone no longer keeps new sessions out, odd `Host` values are
 * 400 (not 500), and session ids stay out of the log.
 */
import assert from "node:assert/strict";
import { entryArgs } from "../../_support/processes.ts";
import { HttpServerProcess, initializeBody, openSession, POST_HEADERS } from "./_support.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };
const encoder = new TextEncoder();

/** Resident memory of `pid` in KiB (Linux: /proc/PID/status). */
async function rssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]);
}

async function ping(server: HttpServerProcess, session: string, id = 1) {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...server.auth, "mcp-session-id": session },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
  });
  return { status: response.status, text: await response.text() };
}

/** Send raw bytes on a fresh connection and read the answer (until close or `ms`). */
async function raw(port: number, text: string, ms = 10_000): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(encoder.encode(text));
    let out = "";
    const buf = new Uint8Array(16 * 1024);
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      out += new TextDecoder().decode(buf.subarray(0, n));
    }
    return out;
  } finally {
    conn.close();
  }
}

Deno.test({
  name: "--http refuses to start without --root: a client's MCP root is never a folder of this machine",
  ...opts,
  async fn() {
    const out = await new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-mcp", ["--http", "127.0.0.1:0"]),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2);
    const text = new TextDecoder().decode(out.stderr);
    assert.match(text, /--http needs --root DIR/);
    assert.doesNotMatch(text, /\n\s+at /, "a clear message, no stack trace");
  },
});

Deno.test({
  name: "loopback needs the bearer token by default: generated into a 0600 file, never logged itself",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      assert.ok(
        server.token !== null && /^[0-9a-f]{64}$/.test(server.token),
        "a 256-bit token was generated",
      );
      const file = /bearer token written to (\S+) /.exec(server.stderr)![1];
      if (Deno.build.os !== "windows") {
        assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
        assert.equal((await Deno.stat(file.slice(0, file.lastIndexOf("/")))).mode! & 0o777, 0o700);
      }
      assert.ok(!server.stderr.includes(server.token), "the token is not in the log");
      const without = await fetch(server.url, {
        method: "POST",
        headers: POST_HEADERS,
        body: initializeBody(),
      });
      await without.body?.cancel();
      assert.equal(without.status, 401, "a local account without the token is refused");
      const wrong = await fetch(server.url, {
        method: "POST",
        headers: { ...POST_HEADERS, authorization: `Bearer ${"0".repeat(64)}` },
        body: initializeBody(),
      });
      await wrong.body?.cancel();
      assert.equal(wrong.status, 401);
      const session = await openSession(server.url, server.auth);
      assert.equal((await ping(server, session)).status, 200);
      assert.ok(!server.stderr.includes(session), "the session id (a credential) is not in the log");
      assert.match(server.stderr, /session [0-9a-f]{8} started/, "a short hash names it instead");
    } finally {
      await server.dispose();
    }
    const open = await HttpServerProcess.start(["--no-auth-on-loopback"]);
    try {
      assert.equal(open.token, null);
      assert.match(open.stderr, /warning: --no-auth-on-loopback/);
      const session = await openSession(open.url);
      assert.equal((await ping(open, session)).status, 200, "opted out: served without a token");
    } finally {
      await open.dispose();
    }
  },
});

Deno.test({
  name: "odd Host values answer 400, never 500; the server goes on",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const port = Number(new URL(server.url).port);
      const body = initializeBody();
      for (const host of ["a b", "[", "@", ":::", "127.0.0.1:99999", "localhost:abc", "%", "[::1", "x/y"]) {
        const answer = await raw(
          port,
          `POST /mcp HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
            `accept: application/json, text/event-stream\r\nauthorization: Bearer ${server.token}\r\n` +
            `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
        );
        assert.match(answer, /^HTTP\/1\.1 400 /, `Host: ${host} -> ${answer.slice(0, 80)}`);
      }
      assert.doesNotMatch(server.stderr, /internal error/);
      const session = await openSession(server.url, server.auth);
      assert.equal((await ping(server, session)).status, 200);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "48 half-sent 16 MiB bodies stay within the shared body budget (RSS), then time out (408)",
  ignore: Deno.build.os !== "linux", // RSS from /proc
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start(["--body-timeout", "3"]);
    const conns: Deno.TcpConn[] = [];
    try {
      const session = await openSession(server.url, server.auth);
      const port = Number(new URL(server.url).port);
      const before = await rssKiB(server.pid);
      const declared = 16 * 1024 * 1024 - 64;
      const chunk = new Uint8Array(1024 * 1024).fill(0x20);
      const sendPart = async (conn: Deno.TcpConn) => {
        await conn.write(encoder.encode(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
            `accept: application/json, text/event-stream\r\nauthorization: Bearer ${server.token}\r\n` +
            `mcp-session-id: ${session}\r\ncontent-length: ${declared}\r\n\r\n`,
        ));
        // 15 of the 16 MiB, then stall; a connection the server stops reading stops taking bytes.
        for (let i = 0; i < 15; i++) {
          const wrote = await Promise.race([
            conn.write(chunk).then(() => true, () => false),
            new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000)),
          ]);
          if (!wrote) return;
        }
      };
      for (let i = 0; i < 48; i++) conns.push(await Deno.connect({ hostname: "127.0.0.1", port }));
      await Promise.all(conns.map(sendPart));
      const during = await rssKiB(server.pid);
      // The budget holds 64 MiB of bodies; before it, all 48 bodies were buffered (+775 MiB measured).
      assert.ok(
        during - before < 200 * 1024,
        `RSS grew ${Math.round((during - before) / 1024)} MiB with 48 half-sent bodies`,
      );
      // Refused at once (503) or timed out (408): every connection gets its answer, none is left hanging.
      const answers = await Promise.all(conns.map(async (conn) => {
        const buf = new Uint8Array(512);
        const n = await Promise.race([
          conn.read(buf).catch(() => null),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000)),
        ]);
        return n === null ? "" : new TextDecoder().decode(buf.subarray(0, n));
      }));
      const statuses = answers.map((a) => /^HTTP\/1\.1 (\d+)/.exec(a)?.[1] ?? "none");
      assert.ok(statuses.every((s) => s === "503" || s === "408"), statuses.join(","));
      assert.ok(statuses.includes("408"), "the bodies admitted to the budget timed out");
      assert.ok(statuses.includes("503"), "bodies beyond the budget were refused before being read");
      assert.equal((await ping(server, session)).status, 200, "the server goes on");
    } finally {
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await server.dispose();
    }
  },
});

Deno.test({
  name: "a client holding every session with pings alone is evicted: a new initialize gets in",
  ...opts,
  async fn() {
    // The idle timeout (4 s) also bounds how long a session must have been unused to make room.
    const server = await HttpServerProcess.start(["--max-sessions", "3", "--idle-timeout", "4"]);
    let pinging = true;
    try {
      const held = [];
      for (let i = 0; i < 3; i++) held.push(await openSession(server.url, server.auth));
      const pinger = (async () => {
        while (pinging) {
          for (const session of held) await ping(server, session);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      })();
      const first = await fetch(server.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...server.auth },
        body: initializeBody(),
      });
      await first.body?.cancel();
      assert.equal(first.status, 429, "at the cap a fresh flood is refused");
      let opened = false;
      const deadline = Date.now() + 30_000;
      while (!opened && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const again = await fetch(server.url, {
          method: "POST",
          headers: { ...POST_HEADERS, ...server.auth },
          body: initializeBody(),
        });
        await again.body?.cancel();
        opened = again.status === 200;
      }
      pinging = false;
      await pinger.catch(() => {});
      assert.ok(opened, `pings kept every new session out:\n${server.stderr}`);
      assert.match(server.stderr, /ended \(the session cap was reached and it was unused longest\)/);
    } finally {
      pinging = false;
      await server.dispose();
    }
  },
});

Deno.test({
  name: "an unread GET stream and a flood of roots/list_changed queue nothing (no roots asked over HTTP)",
  ignore: Deno.build.os !== "linux", // RSS from /proc
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...server.auth },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: { roots: { listChanged: true } },
            clientInfo: { name: "t", version: "1" },
          },
        }),
      });
      await response.body?.cancel();
      const session = response.headers.get("mcp-session-id")!;
      const headers = { ...POST_HEADERS, ...server.auth, "mcp-session-id": session };
      const stream = await fetch(server.url, {
        headers: { ...server.auth, "mcp-session-id": session, accept: "text/event-stream" },
      });
      assert.equal(stream.status, 200); // opened, never read
      const note = (method: string) =>
        fetch(server.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method }) })
          .then((r) => r.body?.cancel());
      await note("notifications/initialized");
      const before = await rssKiB(server.pid);
      const deadline = Date.now() + 60_000;
      let sent = 0;
      for (; sent < 4_000 && Date.now() < deadline; sent += 20) {
        await Promise.all(Array.from({ length: 20 }, () => note("notifications/roots/list_changed")));
      }
      const after = await rssKiB(server.pid);
      assert.ok(after - before < 64 * 1024, `RSS grew ${Math.round((after - before) / 1024)} MiB`);
      assert.doesNotMatch(
        server.stderr,
        /roots\/list(?!_changed)|client.s root/,
        `never asked for roots:\n${server.stderr}`,
      );
      assert.equal((await ping(server, session)).status, 200);
      await stream.body?.cancel();
    } finally {
      await server.dispose();
    }
  },
});
