import assert from "node:assert/strict";
import { join } from "node:path";
import { outputUri, parseSimUri, RunStore, traceUri } from "../../../src/mcp/simulate/runs.ts";
import { BxtbWriter } from "../../../src/trace/bxtb.ts";
import type { ResourceContents } from "../../../src/mcp/protocol/resources.ts";

async function withRun(
  fn: (tmp: string, make: (id: string, files: Record<string, string>) => Promise<string>) => Promise<void>,
) {
  const tmp = await Deno.makeTempDir({ prefix: "bxp-runs-" });
  const make = async (id: string, files: Record<string, string>) => {
    const dir = join(tmp, id);
    await Deno.mkdir(join(dir, "data"), { recursive: true });
    for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, "data", name), text);
    return dir;
  };
  try {
    await fn(tmp, make);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

const kept = (id: string, dir: string, files: Record<string, string>, tracePath: string | null = null) => ({
  id,
  dir,
  dataDir: join(dir, "data"),
  outputs: Object.entries(files).map(([name, text]) => ({
    name,
    bytes: new TextEncoder().encode(text).length,
  })),
  tracePath,
  bytes: Object.values(files).reduce((n, t) => n + new TextEncoder().encode(t).length, 0),
});

Deno.test("parseSimUri accepts only well-formed bxp-sim URIs", () => {
  assert.deepEqual(parseSimUri("bxp-sim://r-1/output/a%20b.csv?page=3"), {
    run: "r-1",
    kind: "output",
    file: "a b.csv",
    page: 3,
  });
  assert.deepEqual(parseSimUri("bxp-sim://r/trace"), { run: "r", kind: "trace", page: 0 });
  assert.equal(outputUri("r", "a b.csv", 2), "bxp-sim://r/output/a%20b.csv?page=2");
  assert.equal(traceUri("r", 0), "bxp-sim://r/trace");
  for (
    const bad of [
      "bxp-sim://r/output/../x",
      "bxp-sim://r/output/a%2",
      "bxp-sim://r/output/a?page=01",
      "bxp-sim://r/output/a?page=-1",
      "bxp-sim://r/other",
      "bxp-sim://../output/a",
      "file:///etc/passwd",
      "bxp-sim://r/output/a?page=1&x=2",
    ]
  ) {
    assert.equal(parseSimUri(bad), null, bad);
  }
});

Deno.test("pages are whole lines of about the page size, each naming the next; the pages join to the file", async () => {
  await withRun(async (_tmp, make) => {
    const text = Array.from({ length: 100 }, (_, i) => `${i},${"é".repeat(i % 7)}`).join("\n") + "\n";
    const dir = await make("r1", { "out.csv": text });
    const store = new RunStore({ maxRuns: 4, maxBytes: 1 << 20 }, () => {}, 64);
    assert.equal(await store.keep(kept("r1", dir, { "out.csv": text })), true);
    let joined = "";
    let pages = 0;
    for (let uri: string | null = outputUri("r1", "out.csv"); uri !== null; pages++) {
      const contents = await store.read(uri);
      assert.ok(contents !== null);
      const [page, info] = contents;
      assert.equal(page.mimeType, "text/csv");
      assert.ok(page.text!.endsWith("\n"), "a page ends at a line end");
      const meta = JSON.parse(info.text!);
      assert.equal(meta.page, pages);
      assert.equal(meta.total_bytes, new TextEncoder().encode(text).length);
      joined += page.text;
      uri = meta.next;
    }
    assert.equal(joined, text);
    assert.ok(pages > 5);
    assert.equal(await store.read(outputUri("r1", "out.csv", pages)), null, "past the last page");
    assert.equal(await store.read(outputUri("r1", "missing.csv")), null);
    assert.equal(await store.read(outputUri("nope", "out.csv")), null);
  });
});

Deno.test("a line longer than the slack is cut at a character boundary", async () => {
  await withRun(async (_tmp, make) => {
    const text = "€".repeat(100_000); // 300 000 bytes, no newline
    const dir = await make("r", { "o.csv": text });
    const store = new RunStore({ maxRuns: 4, maxBytes: 1 << 20 }, () => {}, 100_000);
    await store.keep(kept("r", dir, { "o.csv": text }));
    let joined = "";
    for (let uri: string | null = outputUri("r", "o.csv"); uri !== null;) {
      const contents: ResourceContents[] = (await store.read(uri))!;
      const [page, info] = contents;
      assert.ok(!page.text!.includes("\uFFFD"));
      joined += page.text;
      uri = JSON.parse(info.text!).next;
    }
    assert.equal(joined, text);
  });
});

Deno.test("the trace reads as bxtb-view text lines", async () => {
  await withRun(async (_tmp, make) => {
    const dir = await make("r", {});
    const chunks: Uint8Array[] = [];
    const writer = new BxtbWriter((c) => chunks.push(c.slice()));
    writer.fileStart("csv", "t", "in.csv", ["v"]);
    writer.outputRow(2, 1, 0, "BUY");
    writer.fileEnd(1, 1, 0, 0);
    writer.done(0);
    writer.flush();
    const tracePath = join(dir, "trace.bxtb");
    await Deno.writeFile(tracePath, new Uint8Array(chunks.flatMap((c) => [...c])));
    const store = new RunStore({ maxRuns: 4, maxBytes: 1 << 20 });
    await store.keep(kept("r", dir, {}, tracePath));
    assert.deepEqual(store.list().map((e) => e.uri), ["bxp-sim://r/trace"]);
    const [page] = (await store.read(traceUri("r")))!;
    const lines = page.text!.trim().split("\n");
    assert.equal(lines.length, 4);
    assert.match(lines[1], /^output_row\s+@2\s+#1 rule=0 BUY$/);
  });
});

Deno.test("at most maxRuns runs and maxBytes bytes are kept; the oldest go first, and close() removes the rest", async () => {
  await withRun(async (_tmp, make) => {
    const logs: string[] = [];
    const store = new RunStore({ maxRuns: 2, maxBytes: 100 }, (m) => logs.push(m));
    const dirs: string[] = [];
    for (const id of ["a", "b", "c"]) {
      const dir = await make(id, { "o.csv": "h\n1\n" });
      dirs.push(dir);
      assert.equal(await store.keep(kept(id, dir, { "o.csv": "h\n1\n" })), true);
    }
    assert.deepEqual(store.ids, ["b", "c"]);
    await assert.rejects(Deno.stat(dirs[0]), Deno.errors.NotFound);
    assert.equal(await store.read(outputUri("a", "o.csv")), null);
    assert.match(logs.join("\n"), /evicted kept run a/);
    const big = "x".repeat(97);
    const dir = await make("d", { "o.csv": big });
    await store.keep(kept("d", dir, { "o.csv": big }));
    assert.deepEqual(store.ids, ["d"], "bytes bound");
    const huge = "y".repeat(200);
    const hugeDir = await make("e", { "o.csv": huge });
    assert.equal(await store.keep(kept("e", hugeDir, { "o.csv": huge })), false, "larger than the bound");
    await assert.rejects(Deno.stat(hugeDir), Deno.errors.NotFound);
    await store.close();
    assert.deepEqual(store.list(), []);
    await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
  });
});

Deno.test("a run unused for the idle time expires (its folder removed); a read says so, and an evicted one too", async () => {
  await withRun(async (_tmp, make) => {
    let now = 1_000_000;
    const store = new RunStore({ maxRuns: 2, maxBytes: 1 << 20, idleMs: 60_000 }, () => {}, 64, () => now);
    const dir = await make("a", { "o.csv": "h\n1\n" });
    await store.keep(kept("a", dir, { "o.csv": "h\n1\n" }));
    const handle = store.handleOf("a")!;
    assert.match(handle, /^bxr_[A-Za-z0-9_-]{22}$/);
    // A read refreshes the idle clock.
    now += 50_000;
    assert.equal(
      ((await store.readByHandle(handle, "output", null, 0, 100)) as { text: string }).text,
      "h\n1\n",
    );
    now += 50_000;
    assert.ok(!("error" in await store.readByHandle(handle, "output", "o.csv", 0, 100)));
    now += 60_001;
    const expired = await store.readByHandle(handle, "output", null, 0, 100);
    assert.match(
      (expired as { error: string }).error,
      /^the run expired: it was not read for 1 min; simulate again/,
    );
    await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
    assert.equal(await store.read(outputUri("a", "o.csv")), null, "the resource went with it");

    const handles: string[] = [];
    for (const id of ["b", "c", "d"]) {
      const d = await make(id, { "o.csv": "h\n" });
      await store.keep(kept(id, d, { "o.csv": "h\n" }));
      handles.push(store.handleOf(id)!);
    }
    assert.match(
      (await store.readByHandle(handles[0], "output", null, 0, 100) as { error: string }).error,
      /^the run was evicted to make room for newer runs \(a client keeps its last 2 runs/,
    );
    assert.equal(new Set(handles).size, 3);
    await store.close();
  });
});

Deno.test("reads by handle: pages end at line ends or character starts, a mid-character offset moves on", async () => {
  await withRun(async (_tmp, make) => {
    const text = "ab\nééé\n" + "x".repeat(20);
    const dir = await make("r", { "o.csv": text });
    const store = new RunStore({ maxRuns: 2, maxBytes: 1 << 20 });
    await store.keep(kept("r", dir, { "o.csv": text }));
    const handle = store.handleOf("r")!;
    type Page = { offset: number; bytes: number; next_offset: number | null; text: string };
    const read = async (offset: number, max: number) =>
      await store.readByHandle(handle, "output", null, offset, max) as Page;
    // 10 bytes would end inside the third é; the line end at 10 is in the page's last half: cut there.
    const first = await read(0, 10);
    assert.deepEqual([first.text, first.next_offset], ["ab\nééé\n", 10]);
    // No line end in reach: a cut at a character start (é is two bytes; 4 would split the second one).
    assert.deepEqual([(await read(3, 3)).text, (await read(3, 3)).next_offset], ["é", 5]);
    // An offset inside a character starts at the next one.
    const inside = await read(4, 100);
    assert.equal(inside.offset, 5);
    assert.equal(inside.text, "éé\n" + "x".repeat(20));
    assert.equal(inside.next_offset, null);
    assert.match(
      (await store.readByHandle(handle, "trace", null, 0, 10) as { error: string }).error,
      /no trace/,
    );
    assert.match(
      (await store.readByHandle(handle, "report", null, 0, 10) as { error: string }).error,
      /no report/,
    );
    assert.match(
      (await store.readByHandle(handle, "output", null, 99, 10) as { error: string }).error,
      /past the end/,
    );
    await store.close();
  });
});
