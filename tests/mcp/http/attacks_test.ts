/**
 * Attacks on the real `bxp-mcp --http`, loopback only (127.0.0.2 stands for "not localhost"): each is
 * refused with the right status, and the server keeps serving the sessions it has.
 */
import assert from "node:assert/strict";
import { initializeBody, openSession, POST_HEADERS } from "./_support.ts";
import { HttpServerProcess } from "./_support.ts";
import { entryArgs } from "../../_support/processes.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };

/** POST `body` (default: a ping) and return status, headers and text. */
async function post(url: string, headers: Record<string, string>, body?: BodyInit) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: body ?? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The session still answers a ping. */
async function stillServes(url: string, session: string, extra: Record<string, string> = {}) {
  const answer = await post(url, { "mcp-session-id": session, ...extra });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(JSON.parse(answer.text), { jsonrpc: "2.0", id: 1, result: {} });
}

Deno.test({
  name: "a foreign Origin or Host (DNS rebinding) is refused with 403; same-origin and no Origin are served",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const auth = server.auth;
      const session = await openSession(server.url, auth);
      const foreign = await post(server.url, {
        ...auth,
        "mcp-session-id": session,
        origin: "http://evil.example.com",
      });
      assert.equal(foreign.status, 403);
      assert.match(foreign.text, /Origin not allowed/);
      assert.equal(foreign.headers.get("access-control-allow-origin"), null, "no CORS without --cors-origin");
      const opened = await post(
        server.url,
        { ...auth, origin: "https://evil.example.com" },
        initializeBody(),
      );
      assert.equal(opened.status, 403, "a foreign page cannot open a session either");
      // fetch() cannot forge Host, so this goes through a raw socket.
      const port = Number(new URL(server.url).port);
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      const body = initializeBody();
      await conn.write(new TextEncoder().encode(
        `POST /mcp HTTP/1.1\r\nHost: evil.example.com:${port}\r\ncontent-type: application/json\r\n` +
          `authorization: Bearer ${server.token}\r\n` +
          `accept: application/json, text/event-stream\r\ncontent-length: ${body.length}\r\n` +
          `connection: close\r\n\r\n${body}`,
      ));
      const raw = new TextDecoder().decode(
        (await Array.fromAsync(conn.readable)).reduce(
          (a, b) => new Uint8Array([...a, ...b]),
          new Uint8Array(),
        ),
      );
      assert.match(raw, /^HTTP\/1\.1 403/, raw.slice(0, 200));
      await stillServes(server.url, session, { ...auth, origin: server.origin });
      await stillServes(server.url, session, auth);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "--cors-origin answers preflight and CORS headers for that one origin only",
  ...opts,
  async fn() {
    const app = "https://app.example.com";
    const server = await HttpServerProcess.start(["--cors-origin", app]);
    try {
      const preflight = await fetch(server.url, {
        method: "OPTIONS",
        headers: { origin: app, "access-control-request-method": "POST" },
      });
      await preflight.body?.cancel();
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get("access-control-allow-origin"), app);
      assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Mcp-Session-Id/);
      const opened = await post(server.url, { ...server.auth, origin: app }, initializeBody());
      assert.equal(opened.status, 200);
      assert.equal(opened.headers.get("access-control-allow-origin"), app);
      assert.match(opened.headers.get("access-control-expose-headers") ?? "", /Mcp-Session-Id/);
      const other = await post(
        server.url,
        { ...server.auth, origin: "https://other.example.com" },
        initializeBody(),
      );
      assert.equal(other.status, 403);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "a non-loopback bind refuses to start without a token, and needs the bearer token on every request",
  ignore: Deno.build.os !== "linux", // 127.0.0.2 is routed to lo on Linux only
  ...opts,
  async fn() {
    const refused = await new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-mcp", ["--http", "127.0.0.2:0", "--root", Deno.cwd()]),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(refused.code, 2);
    assert.match(
      new TextDecoder().decode(refused.stderr),
      /refusing to listen on 127\.0\.0\.2 without a token/,
    );

    const dir = await Deno.makeTempDir({ prefix: "bxp-token-" });
    const token = "t0k3n-" + crypto.randomUUID();
    await Deno.writeTextFile(`${dir}/token`, `${token}\n`);
    const short = `${dir}/short`;
    await Deno.writeTextFile(short, "abc");
    await Deno.chmod(short, 0o644);
    const tooShort = await new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-mcp", ["--http", "127.0.0.2:0", "--root", Deno.cwd(), "--token-file", short]),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(tooShort.code, 2);
    assert.match(new TextDecoder().decode(tooShort.stderr), /shorter than 16 characters/);
    assert.match(new TextDecoder().decode(tooShort.stderr), /readable by other users \(mode 644\)/);

    await Deno.chmod(`${dir}/token`, 0o600);
    const server = await HttpServerProcess.start(["--token-file", `${dir}/token`], "127.0.0.2");
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.2:\d+\/mcp$/);
      assert.doesNotMatch(server.stderr, /readable by other users/, "a 0600 token file raises no warning");
      const missing = await post(server.url, {}, initializeBody());
      assert.equal(missing.status, 401);
      assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer /);
      const wrong = await post(server.url, { authorization: `Bearer ${token}x` }, initializeBody());
      assert.equal(wrong.status, 401);
      assert.match(wrong.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
      const prefix = await post(
        server.url,
        { authorization: `Bearer ${token.slice(0, -1)}` },
        initializeBody(),
      );
      assert.equal(prefix.status, 401);
      const auth = { authorization: `Bearer ${token}` };
      const session = await openSession(server.url, auth);
      const stolen = await post(server.url, { "mcp-session-id": session });
      assert.equal(stolen.status, 401, "a session id without the token is refused");
      await stillServes(server.url, session, auth);
      const health = await fetch(new URL("/healthz", server.url));
      assert.equal(health.status, 200, "load balancers need no token");
      assert.deepEqual(await health.json(), { status: "ok" });
    } finally {
      await server.dispose();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "oversized bodies get 413 (declared or streamed) and malformed requests 400/404/406/415",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const session = await openSession(server.url, server.auth);
      const big = 17 * 1024 * 1024;
      const declared = await post(server.url, { ...server.auth, "mcp-session-id": session }, "x".repeat(big));
      assert.equal(declared.status, 413);
      let sent = 0;
      const chunk = new Uint8Array(1024 * 1024).fill(0x20);
      const streamed = await fetch(server.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...server.auth, "mcp-session-id": session },
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent >= big) return controller.close();
            sent += chunk.length;
            controller.enqueue(chunk);
          },
        }),
        // @ts-ignore: Deno needs duplex for a streamed request body
        duplex: "half",
      });
      await streamed.body?.cancel();
      assert.equal(streamed.status, 413, "a chunked body is cut off at the cap");

      const noSession = await post(server.url, server.auth);
      assert.equal(noSession.status, 400);
      const unknown = await post(server.url, { ...server.auth, "mcp-session-id": crypto.randomUUID() });
      assert.equal(unknown.status, 404, "another (unknown) session id is refused");
      const badVersion = await post(server.url, {
        ...server.auth,
        "mcp-session-id": session,
        "mcp-protocol-version": "1999-01-01",
      });
      assert.equal(badVersion.status, 400);
      assert.match(badVersion.text, /MCP-Protocol-Version/);
      const text = await post(server.url, {
        ...server.auth,
        "mcp-session-id": session,
        "content-type": "text/plain",
      });
      assert.equal(text.status, 415);
      const parse = await post(server.url, { ...server.auth, "mcp-session-id": session }, "{not json");
      assert.equal(parse.status, 400);
      assert.equal(JSON.parse(parse.text).error.code, -32700);
      const noMethod = await post(
        server.url,
        { ...server.auth, "mcp-session-id": session },
        '{"jsonrpc":"2.0","id":5}',
      );
      assert.equal(noMethod.status, 200, "a malformed request with an id is answered, not swallowed");
      assert.equal(JSON.parse(noMethod.text).error.code, -32600);
      assert.equal(JSON.parse(noMethod.text).id, 5);
      const note = await post(
        server.url,
        { ...server.auth, "mcp-session-id": session },
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      );
      assert.deepEqual([note.status, note.text], [202, ""]);
      const reinit = await post(server.url, { ...server.auth, "mcp-session-id": session }, initializeBody());
      assert.equal(reinit.status, 400);
      const get = await fetch(server.url, {
        headers: { ...server.auth, "mcp-session-id": session, accept: "application/json" },
      });
      await get.body?.cancel();
      assert.equal(get.status, 406);
      const elsewhere = await fetch(new URL("/other", server.url));
      await elsewhere.body?.cancel();
      assert.equal(elsewhere.status, 404);
      await stillServes(server.url, session, server.auth);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "a flood of sessions gets 429 with Retry-After at --max-sessions; existing sessions go on",
  ...opts,
  async fn() {
    const server = await HttpServerProcess.start(["--max-sessions", "3"]);
    try {
      const sessions = [];
      for (let i = 0; i < 3; i++) sessions.push(await openSession(server.url, server.auth));
      for (let i = 0; i < 5; i++) {
        const flood = await post(server.url, server.auth, initializeBody());
        assert.equal(flood.status, 429);
        assert.match(flood.headers.get("retry-after") ?? "", /^\d+$/);
      }
      for (const session of sessions) await stillServes(server.url, session, server.auth);
      const health = await fetch(new URL("/healthz", server.url));
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const ended = await fetch(server.url, {
        method: "DELETE",
        headers: { ...server.auth, "mcp-session-id": sessions[0] },
      });
      await ended.body?.cancel();
      assert.equal(ended.status, 204);
      await openSession(server.url, server.auth); // room again
    } finally {
      await server.dispose();
    }
  },
});
