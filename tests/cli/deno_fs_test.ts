/** The real file system adapter: its stale-temp sweep (against real processes and locks) and how it reads. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DenoEngineFs } from "../../src/cli/deno_fs.ts";
import { concatBytes } from "../../src/util/bytes.ts";

async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", ""], stdout: "null", stderr: "null" })
    .spawn();
  await child.status;
  return child.pid;
}

/** Staged outputs for `targets` made by a process that then dies without cleaning up (as under kill -9). */
async function orphanedTemps(dir: string, targets: string[]): Promise<{ pid: number; names: string[] }> {
  const fsModule = new URL("../../src/cli/deno_fs.ts", import.meta.url).href;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { DenoEngineFs } from ${JSON.stringify(fsModule)};
       const fs = new DenoEngineFs(${JSON.stringify(dir)});
       for (const t of ${
        JSON.stringify(targets)
      }) await (await fs.createOutput(t, false)).write(new Uint8Array([1]));
       Deno.exit(0);`,
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  assert.equal((await child.status).code, 0);
  const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.includes(`.${child.pid}.`));
  return { pid: child.pid, names: targets.map((t) => names.find((n) => n.startsWith(`.${t}.`))!) };
}

Deno.test("the sweep removes only temps with our proof whose process is gone and whose lock is free", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-sweep-" });
  try {
    const { names: [stale, locked] } = await orphanedTemps(dir, ["a.csvx", "c.csvx"]);
    assert.ok(stale && locked, "the dead process left its temps");
    const dead = await deadPid();
    const live = `.b.csvx.${Deno.pid}.42.bxp-tmp`; // this process runs
    // Our naming without our proof: any name can be planted in a data folder.
    const lookalikes = [
      `.d.csvx.${dead}.123456.bxp-tmp`,
      `.notes.txt.${dead}.${"1".repeat(30)}.bxp-tmp`,
      stale.replace(
        /\.(\d+)\.bxp-tmp$/,
        (_, n: string) => `.${n.slice(0, -1)}${(Number(n.at(-1)) + 1) % 10}.bxp-tmp`,
      ),
    ];
    const foreign = [".a.csvx.bxp-tmp", "x.999999.1.bxp-tmp", ".d.csvx.12ab.1.bxp-tmp", ...lookalikes];
    for (const n of [live, ...foreign]) await Deno.writeTextFile(join(dir, n), "partial");

    const holder = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `const f = await Deno.open(${JSON.stringify(join(dir, locked))}, { read: true, write: true });
         await f.lock(true); console.log("locked"); for await (const _ of Deno.stdin.readable) {}`,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = holder.stdout.getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "locked\n");

    const fs = new DenoEngineFs(dir);
    const removed = await fs.sweepStaleTemps(".");
    assert.equal(removed.length, 1, removed.join("\n"));
    assert.match(
      removed[0],
      new RegExp(`^removed '\\./${stale.replaceAll(".", "\\.")}', a temporary output of 'a\\.csvx'`),
    );
    const left = () => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(left(), [locked, live, ...foreign].sort());

    await holder.stdin.close();
    await reader.cancel();
    await holder.status;
    const later = await fs.sweepStaleTemps(".");
    assert.equal(later.length, 1);
    assert.deepEqual(left(), [live, ...foreign].sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("staged outputs carry the pid in their name and vanish on abort", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-stage-" });
  try {
    const fs = new DenoEngineFs(dir);
    const out = await fs.createOutput("o.csv", false);
    assert.notEqual(out, "exists");
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assert.equal(names.length, 1);
    assert.match(names[0], new RegExp(`^\\.o\\.csv\\.${Deno.pid}\\.\\d+\\.bxp-tmp$`));
    // Our own live temp is never swept.
    assert.deepEqual(await fs.sweepStaleTemps("."), []);
    if (out !== "exists") await out.abort();
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Every chunk of `path`, joined (chunks are copied: with reused buffers each is valid until the next). */
async function readAll(fs: DenoEngineFs, path: string, reuseBuffers: boolean): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of fs.readChunks(path, { reuseBuffers })) parts.push(chunk.slice());
  return concatBytes(parts);
}

Deno.test("a regular file reads back whole in chunks, and at any offset, with and without reused buffers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-read-" });
  try {
    // Several read chunks and a partial last one, with bytes that differ from chunk to chunk.
    const bytes = new Uint8Array(256 * 1024 * 3 + 12345).map((_, i) => (i * 31 + (i >> 18)) & 0xff);
    await Deno.writeFile(join(dir, "big.bin"), bytes);
    await Deno.writeFile(join(dir, "empty.bin"), new Uint8Array(0));
    const fs = new DenoEngineFs(dir);
    for (const reuse of [true, false]) {
      assert.deepEqual(await readAll(fs, "big.bin", reuse), bytes);
      assert.equal((await readAll(fs, "empty.bin", reuse)).length, 0);
    }
    const file = await fs.openRandomAccess("big.bin");
    try {
      // Reads take turns on one cursor: started together, each still gets its own range.
      const ranges = [[0, 10], [300_000, 70_000], [bytes.length - 5, 100], [bytes.length + 3, 10]];
      const got = await Promise.all(ranges.map(([at, n]) => file.read(at, n)));
      ranges.forEach(([at, n], i) => assert.deepEqual(got[i], bytes.slice(at, at + n)));
    } finally {
      await file.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a read chunk lands in the storage the caller offers, a prefix of its view", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-read-into-" });
  try {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) & 0xff);
    await Deno.writeFile(join(dir, "in.bin"), bytes);
    const fs = new DenoEngineFs(dir);
    const storage = new Uint8Array(new SharedArrayBuffer(300_000));
    let at = 0;
    const got: number[] = [];
    const offered: Uint8Array[] = [];
    const into = () => {
      const view = storage.subarray(at, at + 40_000);
      offered.push(view);
      return view;
    };
    for await (const chunk of fs.readChunks("in.bin", { into })) {
      const view = offered[offered.length - 1];
      assert.equal(chunk.buffer, storage.buffer, "read into the offered storage");
      assert.equal(chunk.byteOffset, view.byteOffset, "at the start of the offered view");
      got.push(...chunk);
      at += chunk.length;
    }
    assert.deepEqual(new Uint8Array(got), bytes);
    assert.deepEqual(storage.subarray(0, bytes.length), bytes);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "a named pipe or a folder as input is refused by name, without waiting for a writer",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "bxp-fifo-" });
    try {
      const made = await new Deno.Command("mkfifo", { args: [join(dir, "in.fifo")] }).output().catch(() =>
        null
      );
      if (made === null || !made.success) {
        console.log("skipped: mkfifo is not available");
        return;
      }
      await Deno.mkdir(join(dir, "folder"));
      // Inputs are listed with links, so a link is how a pipe reaches the engine.
      await Deno.symlink(join(dir, "in.fifo"), join(dir, "linked.in.csv"));
      const fs = new DenoEngineFs(dir);
      // No writer ever opens the pipe: opening it for reading would wait for one for ever.
      for (
        const [name, what] of [["in.fifo", "a named pipe"], ["linked.in.csv", "a named pipe"], [
          "folder",
          "a folder",
        ]]
      ) {
        await assert.rejects(
          readAll(fs, name, true),
          (e: Error) => e.message.startsWith(`input '${name}' is ${what}:`),
        );
        await assert.rejects(
          fs.openRandomAccess(name),
          (e: Error) => e.message.startsWith(`input '${name}' is ${what}:`),
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("writeAside: outputs land in a private scratch folder, are read back at their target, and the sweep removes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-aside-" });
  try {
    const { names: [orphan] } = await orphanedTemps(dir, ["old.csvx"]);
    await Deno.writeTextFile(join(dir, "in.csv"), "a\n");
    const listing = () => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    const before = listing();
    const fs = new DenoEngineFs(dir, { writeAside: true });
    const out = await fs.createOutput("m.csv", true);
    assert.notEqual(out, "exists");
    if (out !== "exists") {
      await out.write(new TextEncoder().encode("x\n1\n"));
      await out.commit();
    }
    assert.deepEqual(listing(), before, "nothing in the data folder");
    assert.ok(await fs.exists("m.csv"));
    assert.equal(await fs.createOutput("m.csv", true), "exists");
    assert.deepEqual((await fs.listFiles("."))!.sort(), [...before, "m.csv"].sort());
    assert.equal(new TextDecoder().decode(await fs.readFile("m.csv")), "x\n1\n");
    assert.equal(new TextDecoder().decode(await readAll(fs, "m.csv", false)), "x\n1\n");
    assert.deepEqual(await fs.sweepStaleTemps("."), [], "a dry run removes nothing");
    assert.ok(listing().includes(orphan));
    // A real run over the folder does remove the orphan (it carries our proof).
    assert.equal((await new DenoEngineFs(dir).sweepStaleTemps(".")).length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
