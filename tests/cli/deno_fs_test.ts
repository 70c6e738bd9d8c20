/** The stale-temp sweep of the real file system adapter, against real processes and locks. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DenoEngineFs } from "../../src/cli/deno_fs.ts";

async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", ""], stdout: "null", stderr: "null" })
    .spawn();
  await child.status;
  return child.pid;
}

Deno.test("the sweep removes only our temp names whose process is gone and whose lock is free", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-sweep-" });
  try {
    const dead = await deadPid();
    const stale = `.a.csvx.${dead}.123456.bxp-tmp`;
    const live = `.b.csvx.${Deno.pid}.42.bxp-tmp`; // this process runs
    const locked = `.c.csvx.${dead}.77.bxp-tmp`; // pid gone, but another process holds the lock
    const foreign = [".a.csvx.bxp-tmp", "x.999999.1.bxp-tmp", ".d.csvx.12ab.1.bxp-tmp"];
    for (const n of [stale, live, locked, ...foreign]) await Deno.writeTextFile(join(dir, n), "partial");

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
