/**
 * The platform's floor for a stdio round trip: a minimal Deno program that answers every JSON-RPC request
 * on stdin with an empty result on stdout, reading and writing the way a Deno server does (an async read
 * of `Deno.stdin` into a buffer, a write through `Deno.stdout.writable`). No MCP, no session, no tools: the
 * bench times `ping` against it beside bxp-mcp's, so the report shows how much of a round trip is Deno's
 * own I/O and how much is bxp-mcp's.
 *
 * @example
 * ```sh
 * printf '{"jsonrpc":"2.0","id":1,"method":"ping"}\n' | deno run tools/bench/stdio_echo.ts
 * # {"jsonrpc":"2.0","id":1,"result":{}}
 * ```
 * @module
 */

/** The answer line to one request line, or null for a notification (a message without an id). */
export function echoAnswer(line: string): string | null {
  const message = JSON.parse(line) as { id?: unknown };
  if (message.id === undefined) return null;
  return `${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: {} })}\n`;
}

async function serve(): Promise<void> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const writer = Deno.stdout.writable.getWriter();
  const buffer = new Uint8Array(64 * 1024);
  let pending = "";
  for (;;) {
    const n = await Deno.stdin.read(buffer);
    if (n === null) break;
    pending += decoder.decode(buffer.subarray(0, n), { stream: true });
    for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      const answer = line === "" ? null : echoAnswer(line);
      if (answer !== null) await writer.write(encoder.encode(answer));
    }
  }
  await writer.close();
}

if (import.meta.main) await serve();
