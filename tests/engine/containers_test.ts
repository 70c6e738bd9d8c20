/**
 * Zip members streamed and inflated on threads: the same files whatever the thread count, chunk size or
 * finishing order; damaged members refused with nothing written.
 */

import assert from "node:assert/strict";
import { deflateSync, zipSync } from "fflate";
import { MemoryFs } from "../../src/engine/memory_fs.ts";
import { unpackArchive } from "../../src/engine/containers/unpack_zip.ts";
import { ContainerThreads } from "../../src/engine/containers/threads.ts";
import { memberChunks } from "../../src/engine/containers/member_stream.ts";
import { InflatePool } from "../../src/engine/containers/pool.ts";
import { bytesReader, readZipEntries } from "../../src/formats/zip/archive.ts";
import { ZipInputError } from "../../src/formats/zip.ts";
import { crc32 } from "../../src/formats/zip/crc32.ts";
import { concatBytes } from "../../src/util/bytes.ts";
import { MemberDataError, memberInflateStream } from "../../src/formats/zip/member_inflater.ts";

const OPTIONS = { entryPattern: ".csv", dirMode: "basename" as const, pathSeparator: "_" };

function noise(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

function csvText(rows: number, seed: number): Uint8Array {
  let s = "id,name,amount\n";
  for (let i = 0; i < rows; i++) s += `${i},name ${(i * seed) % 977},${(i * 7919) % 100003}.25\n`;
  return new TextEncoder().encode(s);
}

/** Three members big enough for threads (stored noise counts in full), one deflated CSV, one skipped. */
function bigArchive(): { zip: Uint8Array; members: Record<string, Uint8Array> } {
  const members: Record<string, Uint8Array> = {
    "a.csv": noise(3_000_000, 1),
    "dir/b.csv": csvText(60_000, 3),
    "c.csv": noise(2_000_000, 2),
    "empty.csv": new Uint8Array(0),
  };
  const zip = zipSync({
    "a.csv": [members["a.csv"], { level: 0 }],
    "dir/": new Uint8Array(0),
    "dir/b.csv": [members["dir/b.csv"], { level: 6 }],
    "notes.txt": new TextEncoder().encode("skip me"),
    "c.csv": [members["c.csv"], { level: 0 }],
    "empty.csv": members["empty.csv"],
  });
  return { zip, members };
}

async function unpackInto(zip: Uint8Array, threads: ContainerThreads, fresh = false) {
  const fs = new MemoryFs("/p");
  fs.put("data/x.zip", zip);
  try {
    const count = await unpackArchive({
      fs,
      dir: "data",
      zipName: "x.zip",
      options: OPTIONS,
      threads,
      fresh,
    });
    return { fs, count };
  } finally {
    await threads.close();
  }
}

Deno.test("members unpack to the same bytes on the calling thread and on two threads", async () => {
  const { zip, members } = bigArchive();
  for (const count of [0, 2]) {
    const { fs, count: n } = await unpackInto(zip, new ContainerThreads(count));
    assert.equal(n, 4, `threads ${count}`);
    assert.deepEqual(fs.get("data/a.csv"), members["a.csv"]);
    assert.deepEqual(fs.get("data/b.csv"), members["dir/b.csv"]);
    assert.deepEqual(fs.get("data/c.csv"), members["c.csv"]);
    assert.deepEqual(fs.get("data/empty.csv"), new Uint8Array(0));
    assert.equal(fs.get("data/notes.txt"), undefined);
  }
});

Deno.test("a member streams to the same bytes in chunks of any size, on a worker too", async () => {
  const data = csvText(400, 5);
  const zip = zipSync({ "m.csv": [data, { level: 9 }] });
  const reader = bytesReader(zip);
  const [entry] = await readZipEntries(reader);
  const pool = await InflatePool.start(2);
  try {
    for (const p of [InflatePool.local(), pool]) {
      for (const size of [1, 2, 7, 64, 4096, 1 << 20]) {
        const parts: Uint8Array[] = [];
        for await (const piece of memberChunks(reader, entry, p.session({ ...entry }), size)) {
          parts.push(piece);
        }
        const got = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
        let at = 0;
        for (const x of parts) {
          got.set(x, at);
          at += x.length;
        }
        assert.deepEqual(got, data, `chunk ${size}, threaded ${p.threaded}`);
      }
    }
  } finally {
    pool.close();
  }
});

function corruptStored(zip: Uint8Array, name: string, patch: (view: DataView, dataAt: number) => void) {
  const copy = zip.slice();
  const view = new DataView(copy.buffer);
  for (let i = 0; i + 30 <= copy.length; i++) {
    if (view.getUint32(i, true) !== 0x04034b50) continue;
    const nameLen = view.getUint16(i + 26, true);
    if (new TextDecoder().decode(copy.subarray(i + 30, i + 30 + nameLen)) !== name) continue;
    patch(view, i + 30 + nameLen + view.getUint16(i + 28, true));
    return copy;
  }
  throw new Error(`no member ${name}`);
}

Deno.test("a damaged member fails the archive with its CRC named, and no member is left behind", async () => {
  const { zip } = bigArchive();
  const damaged = corruptStored(
    zip,
    "c.csv",
    (view, at) => view.setUint8(at + 1000, view.getUint8(at + 1000) ^ 1),
  );
  for (const count of [0, 2]) {
    const fs = new MemoryFs("/p");
    fs.put("data/x.zip", damaged);
    const threads = new ContainerThreads(count);
    await assert.rejects(
      () => unpackArchive({ fs, dir: "data", zipName: "x.zip", options: OPTIONS, threads, fresh: false }),
      (err: unknown) =>
        err instanceof ZipInputError && err.kind === "corrupt" &&
        err.message ===
          "zip 'x.zip': failed unpacking: member 'c.csv' fails its CRC-32 check (damaged archive)",
    );
    await threads.close();
    assert.deepEqual(fs.entries().map(([p]) => p), ["/p/data/x.zip"], `threads ${count}`);
  }
});

Deno.test("a deflated member that ends early or says the wrong size is refused", async () => {
  const data = csvText(2_000, 7);
  const zip = zipSync({ "m.csv": [data, { level: 6 }] });
  // The central directory claims one byte less than the member holds.
  const smaller = zip.slice();
  const view = new DataView(smaller.buffer);
  for (let i = smaller.length - 22; i >= 0; i--) {
    if (view.getUint32(i, true) === 0x02014b50) {
      view.setUint32(i + 24, data.length - 1, true);
      break;
    }
  }
  const fs = new MemoryFs("/p");
  fs.put("d/s.zip", smaller);
  await assert.rejects(
    () =>
      unpackArchive({
        fs,
        dir: "d",
        zipName: "s.zip",
        options: OPTIONS,
        threads: new ContainerThreads(0),
        fresh: false,
      }),
    /failed unpacking: member 'm\.csv' holds more than the \d+ bytes the archive says/,
  );
  const truncated = zip.slice(0, 40);
  fs.put("d/t.zip", truncated);
  await assert.rejects(
    () =>
      unpackArchive({
        fs,
        dir: "d",
        zipName: "t.zip",
        options: OPTIONS,
        threads: new ContainerThreads(0),
        fresh: false,
      }),
    /cannot read zip 't\.zip': invalid zip data/,
  );
});

Deno.test("--fresh leaves members whose output exists and counts only those written", async () => {
  const zip = zipSync({ "a.csv": csvText(10, 1), "b.csv": csvText(10, 2) });
  const fs = new MemoryFs("/p");
  fs.put("data/x.zip", zip);
  fs.put("data/a.csv", new TextEncoder().encode("mine"));
  const threads = new ContainerThreads(0);
  const n = await unpackArchive({
    fs,
    dir: "data",
    zipName: "x.zip",
    options: OPTIONS,
    threads,
    fresh: true,
  });
  assert.equal(n, 1);
  assert.equal(new TextDecoder().decode(fs.get("data/a.csv")), "mine");
  assert.deepEqual(fs.get("data/b.csv"), csvText(10, 2));
});

async function drain(readable: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return concatBytes(parts);
}

Deno.test("native and fflate inflate agree; broken deflate data is named after its member", async () => {
  const data = csvText(5_000, 9);
  const compressed = deflateSync(data, { level: 6 });
  const facts = { method: 8, size: data.length, crc32: crc32(data), name: "m.csv" };
  for (const native of [true, false]) {
    const { writable, readable } = memberInflateStream(facts, native);
    const writer = writable.getWriter();
    const writing = (async () => {
      for (let at = 0; at < compressed.length; at += 1000) {
        await writer.write(compressed.slice(at, at + 1000));
      }
      await writer.close();
    })();
    assert.deepEqual(await drain(readable), data, `native ${native}`);
    await writing;

    const broken = compressed.slice();
    for (let i = 10; i < 200; i++) broken[i] ^= 0x5a;
    const pair = memberInflateStream(facts, native);
    const w = pair.writable.getWriter();
    w.write(broken).then(() => w.close()).catch(() => {});
    await assert.rejects(
      () => drain(pair.readable),
      (err: unknown) => err instanceof MemberDataError && err.message.startsWith("member 'm.csv'"),
      `native ${native}`,
    );
  }
});

Deno.test("an archive of many members unpacks through the real file system without holding a file open per member", async () => {
  // 1500 members: more than the common limit of 1024 open files, had each staged member kept its handle.
  const { DenoEngineFs } = await import("../../src/cli/deno_fs.ts");
  const dir = await Deno.makeTempDir({ prefix: "bxp-many-" });
  try {
    const members: Record<string, Uint8Array> = {};
    for (let i = 0; i < 1500; i++) members[`m/${String(i).padStart(4, "0")}.csv`] = csvText(2, i);
    await Deno.writeFile(`${dir}/many.zip`, zipSync(members));
    const fs = new DenoEngineFs(dir);
    const threads = new ContainerThreads(0);
    const n = await unpackArchive({
      fs,
      dir: ".",
      zipName: "many.zip",
      options: OPTIONS,
      threads,
      fresh: false,
    });
    assert.equal(n, 1500);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assert.equal(names.filter((n) => n.endsWith(".csv")).length, 1500);
    assert.equal(names.filter((n) => n.includes("bxp-tmp")).length, 0, "no temp file left");
    assert.deepEqual(await Deno.readFile(`${dir}/0042.csv`), csvText(2, 42));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
