/**
 * Work bounded up front, not only its answer, through the real bxp-mcp process: bxp_list_files over a
 * folder of 60 000 files stops reading at its entry budget (and the session keeps answering meanwhile);
 * bxp_draft_template and bxp_peek_csv on a sample of 900 000 columns examine 512 of them and answer
 * small, saying what was cut.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { resultText, ServerProcess, type Wire } from "../_support/server_process.ts";

const FILES = 60_000;

/** `count` empty `.csv` files in `dir`, made by one `touch` per 5 000 names (quick even on a busy host). */
async function manyFiles(dir: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 5000) {
    const names = Array.from({ length: Math.min(5000, count - start) }, (_, i) => `f${start + i}.csv`);
    const out = await new Deno.Command("touch", { args: names, cwd: dir }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  }
}

Deno.test({
  name: "bxp_list_files over 60 000 files stops at its entry budget, says so, and ping is answered meanwhile",
  ignore: Deno.build.os === "windows",
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "bxp-many-" });
    await manyFiles(root, FILES);
    const server = await ServerProcess.start(["--root", root]);
    try {
      // Warm up: the first call loads the tool core.
      await server.call("w", "bxp_list_files", { glob: "nothing-*", limit: 1 });
      await server.response("w");
      const started = Date.now();
      await server.call("l", "bxp_list_files", { limit: 2000, max_bytes: 1024 * 1024 });
      await server.send({ jsonrpc: "2.0", id: "p", method: "ping" });
      const list = (await server.response("l")).result;
      const ms = Date.now() - started;
      const body = JSON.parse(resultText({ result: list }));
      assert.equal(list.isError, false);
      assert.equal(body.truncated, "max-visited");
      assert.equal(body.visited, 20_000);
      assert.equal(body.count, 2000);
      assert.match(body.note, /stopped after 20000 entries/);
      // The folder is read by streaming: the ping (sent after the call) is answered before the listing.
      const order = server.messages.filter((m) => m.id === "l" || m.id === "p").map((m) => m.id);
      assert.deepEqual(order, ["p", "l"]);
      assert.ok(ms < 10_000, `${ms} ms`);
    } finally {
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** A sample of `columns` one-letter columns and two data rows (about 8.5 MiB for 900 000). */
function wideSample(columns: number): string {
  const header = Array.from({ length: columns }, (_, i) => String.fromCharCode(97 + (i % 26))).join(",");
  const row = Array(columns).fill("1").join(",");
  return `${header}\n${row}\n${row}\n${row}\n`;
}

Deno.test("bxp_draft_template and bxp_peek_csv on 900 000 columns examine 512 and answer small", async () => {
  const root = await Deno.makeTempDir({ prefix: "bxp-wide-" });
  const sample = wideSample(900_000);
  await Deno.writeTextFile(join(root, "wide.csv"), sample);
  const server = await ServerProcess.start(["--root", root]);
  try {
    const timed = async (id: string, name: string, args: unknown): Promise<{ r: Wire; ms: number }> => {
      const started = Date.now();
      await server.call(id, name, args);
      const r = (await server.response(id)).result;
      return { r, ms: Date.now() - started };
    };
    await timed("w", "bxp_eval", { expr: "1" }); // loads the tool core
    for (const args of [{ csv_path: "wide.csv" }, { csv: sample, file_name: "wide.csv" }]) {
      const { r, ms } = await timed(`d${Object.keys(args)[0]}`, "bxp_draft_template", args);
      const text = resultText({ result: r });
      assert.equal(r.isError, false, text.slice(0, 300));
      const body = JSON.parse(text);
      assert.equal(body.ok, true);
      assert.equal(body.columns.length, 512);
      assert.ok(body.detected.columns_total > 512, String(body.detected.columns_total));
      assert.ok(body.notes.some((n: string) => /only the first 512 are described and drafted/.test(n)));
      assert.ok(text.length < 256 * 1024, `${text.length} bytes`);
      assert.ok(ms < 10_000, `${ms} ms`);
    }
    const { r, ms } = await timed("p", "bxp_peek_csv", { path: "wide.csv", rows: 100 });
    const text = resultText({ result: r });
    assert.equal(r.isError, false, text.slice(0, 300));
    const peek = JSON.parse(text);
    assert.equal(peek.columns.length, 512);
    assert.ok(peek.columns_total > 512);
    assert.ok(peek.records.every((rec: string[]) => rec.length <= 512));
    assert.ok(peek.notes.some((n: string) => /only the first 512/.test(n)));
    assert.ok(ms < 10_000, `${ms} ms`);
    await server.send({ jsonrpc: "2.0", id: "ping", method: "ping" });
    assert.deepEqual((await server.response("ping")).result, {});
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});
