/**
 * MCP 2026-07-28 over the real `bxp-mcp --http`, by plain `fetch`: sessionless requests, the request
 * metadata headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, its Base64 form) checked against
 * the body with the spec's status codes, request ids scoped to their POST, a closed response stream as
 * the cancellation of its request, and legacy sessions unchanged beside all that.
 */
import assert from "node:assert/strict";
import { processGone } from "../_support/server_process.ts";
import { cliPids, HttpServerProcess, openSession, SLOW_CONFIG } from "./_support.ts";

const MODERN = "2026-07-28";

/** Four times the shared slow input: a run of about a minute, so only a cancel ends it within 20 s. */
const SLOWER_CSV = ["v", ...Array.from({ length: 400_000 }, (_, i) => String(i))].join("\n") + "\n";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** What a POST answered: status, the JSON-RPC message (the last one of an event stream), the headers. */
interface Answer {
  status: number;
  body: Record<string, unknown> | null;
  headers: Headers;
}

/** POST one modern request; `headers` override the metadata headers derived from the body. */
async function post(
  server: HttpServerProcess,
  message: Record<string, unknown>,
  headers: Record<string, string | null> = {},
): Promise<Answer> {
  const params = message.params as Record<string, unknown> | undefined;
  const derived: Record<string, string | null> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": String(message.method),
    ...(typeof params?.name === "string" ? { "mcp-name": params.name } : {}),
    ...(typeof params?.uri === "string" ? { "mcp-name": params.uri } : {}),
    ...server.auth,
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(derived).filter(([, v]) => v !== null)) as Record<
    string,
    string
  >;
  const response = await fetch(server.url, {
    method: "POST",
    headers: sent,
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
  const text = await response.text();
  let body: Record<string, unknown> | null = null;
  if (text !== "") {
    const type = response.headers.get("content-type") ?? "";
    const json = type.includes("text/event-stream")
      ? text.split("\n").filter((l) => l.startsWith("data: ")).at(-1)!.slice(6)
      : text;
    body = JSON.parse(json);
  }
  return { status: response.status, body, headers: response.headers };
}

function errorCode(answer: Answer): unknown {
  return (answer.body?.error as { code?: unknown } | undefined)?.code;
}

Deno.test({
  name: "a modern request needs no session; its headers must match its body (400 -32020), as the spec maps",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const call = {
        id: 1,
        method: "tools/call",
        params: { name: "bxp_eval", arguments: { expr: "1 + 2" }, _meta: META },
      };
      const served = await post(server, call);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get("mcp-session-id"), null);
      const result = served.body?.result as Record<string, unknown>;
      assert.equal(result.resultType, "complete");
      assert.deepEqual(result.structuredContent, { ok: true, value: "3" });

      // Each mirrored header missing, or not the body's value.
      const mismatches: Record<string, string | null>[] = [
        { "mcp-method": null },
        { "mcp-method": "tools/list" },
        { "mcp-name": null },
        { "mcp-name": "bxp_docs" },
        { "mcp-name": "=?base64?not base64?=" },
        { "mcp-protocol-version": "2025-11-25" },
      ];
      for (const headers of mismatches) {
        const refused = await post(server, call, headers);
        assert.equal(refused.status, 400, JSON.stringify(headers));
        assert.equal(errorCode(refused), -32020, JSON.stringify(headers));
        assert.equal(refused.body?.id, 1, "the refusal answers the request's id");
      }
      // Mcp-Name in the Base64 sentinel form is decoded before it is compared.
      const encoded = await post(server, call, { "mcp-name": `=?base64?${btoa("bxp_eval")}?=` });
      assert.equal(encoded.status, 200);
      const uri = "bxp-sim://run-404/ü.csv";
      const read = await post(server, { id: 2, method: "resources/read", params: { uri, _meta: META } }, {
        "mcp-name": `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(uri)))}?=`,
      });
      assert.equal(read.status, 200, "a resource not found is an answer, not a header problem");
      assert.equal(errorCode(read), -32602);

      // The header says modern, the body's _meta is missing or names another version.
      const noMeta = await post(server, { id: 3, method: "tools/list", params: {} });
      assert.deepEqual([noMeta.status, errorCode(noMeta)], [400, -32602]);
      const otherVersion = await post(server, {
        id: 4,
        method: "tools/list",
        params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      });
      assert.deepEqual([otherVersion.status, errorCode(otherVersion)], [400, -32020]);
      const unsupported = await post(server, {
        id: 5,
        method: "tools/list",
        params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      }, { "mcp-protocol-version": "2099-01-01" });
      assert.deepEqual([unsupported.status, errorCode(unsupported)], [400, -32022]);
      const data = (unsupported.body?.error as { data: { supported: string[] } }).data;
      assert.ok(data.supported.includes(MODERN));

      // Unknown and removed methods: 404 with a -32601 body.
      for (const method of ["no/such", "initialize", "ping", "logging/setLevel"]) {
        const missing = await post(server, { id: 6, method, params: { _meta: META } });
        assert.deepEqual([missing.status, errorCode(missing)], [404, -32601], method);
      }
      // A modern notification is accepted and dropped.
      const note = await post(server, { method: "notifications/cancelled", params: { requestId: 1 } });
      assert.equal(note.status, 202);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "modern POSTs may reuse one request id at once; legacy sessions are unchanged beside them",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      // Ten clients that all number their first request 1, at the same time: each gets its own answer.
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          post(server, {
            id: 1,
            method: "tools/call",
            params: { name: "bxp_eval", arguments: { expr: `${i} * 10` }, _meta: META },
          })),
      );
      answers.forEach((answer, i) => {
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        const result = answer.body?.result as { structuredContent: { value: string } };
        assert.equal(result.structuredContent.value, String(i * 10));
      });

      // A legacy request without a session is refused as before; a legacy session works as before.
      const legacy = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...server.auth,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(legacy.status, 400);
      assert.match(await legacy.text(), /Mcp-Session-Id header is required/);
      const session = await openSession(server.url, server.auth);
      const listed = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-11-25",
          ...server.auth,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      assert.equal(listed.status, 200);
      const body = await listed.json();
      assert.equal(body.result.resultType, undefined, "a legacy result has no resultType");
      assert.ok(body.result.tools.length > 0);
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "closing a modern request's event stream cancels it: its bxp-cli child is killed",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await HttpServerProcess.start();
    try {
      const controller = new AbortController();
      const response = await fetch(server.url, {
        method: "POST",
        signal: controller.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": "tools/call",
          "mcp-name": "bxp_simulate",
          ...server.auth,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "bxp_simulate",
            arguments: { config: SLOW_CONFIG, template: "slow", csv: SLOWER_CSV },
            _meta: { ...META, progressToken: "p" },
          },
        }),
      });
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.match(first, /notifications\/progress/, "the stream carries the request's progress");
      await server.waitUntil(() => cliPids(server.stderr).length === 1, "bxp-cli to start", 60_000);
      const [pid] = cliPids(server.stderr);
      controller.abort();
      await reader.cancel().catch(() => {});
      assert.ok(await processGone(pid, 20_000), `bxp-cli (pid ${pid}) is gone after the stream closed`);
    } finally {
      await server.dispose();
    }
  },
});
