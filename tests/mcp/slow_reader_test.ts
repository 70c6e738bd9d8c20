/**
 * A client that reads stdout slowly (the pipe fills and stays nearly full) while big answers (bxp_docs,
 * tens of KiB each, written by the session in several short writes) and many small bxp_eval answers
 * (written by evaluation workers directly when the output lock is free) are in flight at once: every
 * stdout line must be one JSON-RPC message and every id answered exactly once. The session's writer
 * holds the output lock for each whole line, so a worker's line can never land inside one of its own.
 */
import assert from "node:assert/strict";
import { entryArgs } from "../_support/processes.ts";
import { parseWireLine, type Wire } from "./_support/server_process.ts";

const ROUNDS = 4;
const DOCS_PER_ROUND = 6;
const EVALS_PER_ROUND = 120;
/** Bytes the client takes per read: far below one docs answer, so the pipe stays full around them. */
const READ_BYTES = 4096;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test({
  name: "a slow reader with big and small answers in flight gets whole lines, each id answered once",
  ignore: Deno.build.os === "windows",
  async fn() {
    const tmpDir = await Deno.makeTempDir({ prefix: "bxp-mcp-slow-reader-" });
    const child = new Deno.Command(Deno.execPath(), {
      args: entryArgs("bxp-mcp"),
      env: { TMPDIR: tmpDir },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const stderrDone = (async () => {
      for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk);
    })();
    const writer = child.stdin.getWriter();
    const send = (message: Wire) => writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
    const reader = child.stdout.getReader({ mode: "byob" });
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const messages: Wire[] = [];
    let pending = new Uint8Array(0);
    /** Read at most READ_BYTES; false at end of output. */
    const readSome = async (): Promise<boolean> => {
      const { value, done } = await reader.read(new Uint8Array(READ_BYTES));
      if (done || value === undefined) return false;
      const joined = new Uint8Array(pending.length + value.length);
      joined.set(pending);
      joined.set(value, pending.length);
      let start = 0;
      for (let nl = joined.indexOf(0x0a); nl !== -1; nl = joined.indexOf(0x0a, start)) {
        messages.push(parseWireLine(decoder.decode(joined.subarray(start, nl))));
        start = nl + 1;
      }
      pending = joined.slice(start);
      return true;
    };
    try {
      await send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      while (messages.length === 0) assert.ok(await readSome(), "the initialize answer arrives");
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });

      let id = 1;
      const expected = new Map<number, "docs" | "eval">();
      for (let round = 0; round < ROUNDS; round++) {
        // Big and small calls mixed, so worker answers are ready while docs answers are being written.
        for (let i = 0; i < DOCS_PER_ROUND + EVALS_PER_ROUND; i++) {
          const docs = i % Math.ceil((DOCS_PER_ROUND + EVALS_PER_ROUND) / DOCS_PER_ROUND) === 0;
          expected.set(id, docs ? "docs" : "eval");
          await send({
            jsonrpc: "2.0",
            id: id++,
            method: "tools/call",
            params: docs
              ? { name: "bxp_docs", arguments: { max_bytes: 4 * 1024 * 1024 } }
              : { name: "bxp_eval", arguments: { expr: `${round} * 1000 + ${i}` } },
          });
        }
        // Not reading at all for a while: the pipe fills in the middle of a docs answer.
        await sleep(150);
        // Then reading in small bites with pauses, so writes keep finding the pipe full.
        const target = messages.length + DOCS_PER_ROUND + EVALS_PER_ROUND;
        while (messages.length < target) {
          assert.ok(await readSome(), `stdout ended early; stderr:\n${stderr}`);
          if (messages.length % 16 === 0) await sleep(1);
        }
      }
      await writer.close();
      while (await readSome()) { /* the rest, up to the end of output */ }
      assert.equal(pending.length, 0, "stdout ends with a complete line");
      assert.equal((await child.status).code, 0);

      const answered = new Map<number, number>();
      for (const message of messages.slice(1)) {
        assert.equal(message.error, undefined, JSON.stringify(message).slice(0, 300));
        answered.set(message.id, (answered.get(message.id) ?? 0) + 1);
        const kind = expected.get(message.id);
        assert.ok(kind !== undefined, `an answer to an id never sent: ${message.id}`);
        if (kind === "eval") assert.equal(message.result.structuredContent.ok, true);
        else assert.ok(message.result.content[0].text.length > 10_000, "the whole docs answer");
      }
      for (const sent of expected.keys()) assert.equal(answered.get(sent), 1, `id ${sent} answered once`);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
      await reader.cancel().catch(() => {});
      await stderrDone;
      await Deno.remove(tmpDir, { recursive: true });
    }
  },
});
