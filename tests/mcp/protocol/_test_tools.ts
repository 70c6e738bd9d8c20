/**
 * Small test tools and stream fakes shared by the protocol tests. They exercise the layer only; nothing
 * here knows about bxp.
 *
 * @module
 */

import { McpServer, type ToolResult } from "../../../src/mcp/protocol/mod.ts";

/** A message as the client sees it. */
// deno-lint-ignore no-explicit-any
export type Wire = Record<string, any>;

/** Observations the test tools record while they run. */
export interface ToolLog {
  abortedIds: (string | number)[];
  startedIds: (string | number)[];
}

/** A server with the test tools registered, plus what those tools observed. */
export function makeTestServer(log?: (message: string) => void): { server: McpServer; seen: ToolLog } {
  const seen: ToolLog = { abortedIds: [], startedIds: [] };
  const server = new McpServer({
    name: "test-mcp",
    title: "Test MCP",
    version: "9.8.7",
    instructions: "Use the test tools.",
    log,
  });
  // Answers a single JSON object, or fails the bxp way when its argument is missing.
  server.addTool({
    name: "json_echo",
    description: "Echo expr inside a JSON object.",
    inputSchema: { type: "object", properties: { expr: { type: "string" } }, required: ["expr"] },
    allowStructured: true,
    handler: (args, call) =>
      typeof args?.expr === "string"
        ? { text: JSON.stringify({ ok: true, value: args.expr.toUpperCase() }) }
        : call.fail("missing 'expr'"),
  });
  // Returns its `text` argument verbatim; structured output allowed, so the layer decides.
  server.addTool({
    name: "raw_text",
    description: "Return the text argument verbatim.",
    inputSchema: { type: "object", properties: { text: { type: "string" }, isError: { type: "boolean" } } },
    outputSchema: { type: "object" },
    allowStructured: true,
    handler: (args) => ({ text: String(args?.text ?? ""), isError: args?.isError === true }),
  });
  // Same, but stream-shaped by identity: never structured.
  server.addTool({
    name: "ndjson_text",
    description: "Return the text argument verbatim, never as structured content.",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    allowStructured: false,
    handler: (args) => ({ text: String(args?.text ?? "") }),
  });
  // Reports `steps` progress steps, then answers.
  server.addTool({
    name: "stepper",
    description: "Report progress in steps.",
    inputSchema: { type: "object", properties: { steps: { type: "integer" } } },
    allowStructured: true,
    handler: async (args, call) => {
      const steps = typeof args?.steps === "number" ? args.steps : 3;
      for (let i = 1; i <= steps; i++) {
        call.progress(i, steps, `step ${i}`);
        await Promise.resolve();
      }
      return { text: JSON.stringify({ steps }) };
    },
  });
  // Never finishes on its own; records when its signal fires.
  server.addTool({
    name: "hang",
    description: "Wait until cancelled.",
    inputSchema: { type: "object" },
    allowStructured: false,
    handler: (_args, call): Promise<ToolResult> => {
      seen.startedIds.push(call.requestId);
      call.signal.addEventListener("abort", () => seen.abortedIds.push(call.requestId));
      return new Promise<ToolResult>(() => {});
    },
  });
  // Sleeps `ms` milliseconds (cut short by cancellation), then answers.
  server.addTool({
    name: "sleep",
    description: "Sleep, then answer.",
    inputSchema: { type: "object", properties: { ms: { type: "integer" } } },
    allowStructured: true,
    handler: (args, call) =>
      new Promise<ToolResult>((resolve, reject) => {
        const timer = setTimeout(
          () => resolve({ text: JSON.stringify({ slept: args?.ms }) }),
          Number(args?.ms ?? 0),
        );
        call.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          seen.abortedIds.push(call.requestId);
          reject(call.signal.reason);
        });
      }),
  });
  // Throws instead of returning.
  server.addTool({
    name: "thrower",
    description: "Throw an error.",
    inputSchema: { type: "object" },
    allowStructured: true,
    handler: () => {
      throw new Error("boom at step 2");
    },
  });
  // Reports what reached it: the arguments as JSON ("null" when absent) and the call metadata.
  server.addTool({
    name: "inspect_args",
    description: "Describe the arguments received.",
    inputSchema: { type: "object" },
    allowStructured: true,
    handler: (args, call) => ({
      text: JSON.stringify({ args, isNull: args === null, name: call.name, requestId: call.requestId }),
    }),
  });
  return { server, seen };
}

/** Collects what a server sends, line by line. */
export function collector(): { lines: string[]; send: (json: string) => void; messages: () => Wire[] } {
  const lines: string[] = [];
  return { lines, send: (json) => lines.push(json), messages: () => lines.map((line) => JSON.parse(line)) };
}

/** Build one request line. */
export function request(id: unknown, method: string, params?: unknown): string {
  const message: Wire = { jsonrpc: "2.0", id, method };
  if (params !== undefined) message.params = params;
  return JSON.stringify(message);
}

/** Build a `tools/call` line. */
export function toolCall(id: unknown, name: string, args?: unknown, meta?: unknown): string {
  const params: Wire = { name };
  if (args !== undefined) params.arguments = args;
  if (meta !== undefined) params._meta = meta;
  return request(id, "tools/call", params);
}

/** An in-memory stdin the test writes into. */
export function fakeStdin(): {
  readable: ReadableStream<Uint8Array>;
  write(text: string | Uint8Array): void;
  close(): void;
} {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const encoder = new TextEncoder();
  return {
    readable,
    write: (text) => controller.enqueue(typeof text === "string" ? encoder.encode(text) : text),
    close: () => controller.close(),
  };
}

/** An in-memory stdout that records every chunk exactly as written. */
export function fakeStdout(): { writable: WritableStream<Uint8Array>; chunks: Uint8Array[]; text(): string } {
  const chunks: Uint8Array[] = [];
  const writable = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk.slice()) });
  const decoder = new TextDecoder();
  return {
    writable,
    chunks,
    text: () => chunks.map((chunk) => decoder.decode(chunk)).join(""),
  };
}

/** Wait until `ready()` holds, polling; throws after `timeoutMs`. */
export async function waitUntil(ready: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
