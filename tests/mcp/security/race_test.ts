/**
 * Races with another local process, against the real bxp-mcp: while a flipper process swaps a folder
 * inside the root for a link to an outside folder (or a checked file for a FIFO) in a tight loop, hundreds
 * of reads and writes go through `path` / `csv_path` / `bxp_write_config`. Nothing outside the root may be
 * read, created or changed, no temporary file may be left anywhere, and a FIFO must never hang the server
 * (ping answers, EOF exits). The work is bounded by a count of calls, not by time.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resultText, ServerProcess, type Wire } from "../_support/server_process.ts";
import { INSIDE, makeBox, MARK, snapshot, startAttacker } from "./_race_setup.ts";

const linux = Deno.build.os === "linux";
const flipper = fileURLToPath(new URL("./fixtures/flipper.ts", import.meta.url));

/** Start the flipper and wait until its loop runs; returns a stop function resolving to its flip count. */
async function startFlipper(mode: string, target: string, other: string, stopFile: string) {
  const flipping = await startAttacker("flipper", flipper, ["--allow-read", "--allow-write"], [
    mode,
    target,
    other,
    stopFile,
    Deno.env.get("BXP_RACE_DWELL_MS") ?? "1",
  ], stopFile);
  return () => flipping.stop();
}

Deno.test({
  name:
    "a folder flipped to an outside link during hundreds of calls: nothing outside read, created or changed",
  ignore: !linux,
  async fn() {
    const { box, root, outside } = await makeBox("bxp-race-");
    const server = await ServerProcess.start(["--root", root, "--allow-write"]);
    const outsideBefore = await snapshot(outside);
    const stop = await startFlipper("dir", join(root, "sub"), outside, join(box, "stop"));
    let flips = 0;
    const answers: Wire[] = [];
    try {
      const ROUNDS = Number(Deno.env.get("BXP_RACE_ROUNDS") ?? 100);
      for (let round = 0; round < ROUNDS; round++) {
        const calls: [string, string, Record<string, unknown>][] = [
          [`r${round}`, "bxp_fetch_template", { path: "sub/cfg.json5", id: "t" }],
          [`v${round}`, "bxp_list_templates", { path: "sub/cfg.json5" }],
          [`c${round}`, "bxp_write_config", { path: `sub/w${round}.json`, config: INSIDE }],
          [`o${round}`, "bxp_write_config", { path: "sub/over.json", config: INSIDE, overwrite: true }],
          [`d${round}`, "bxp_write_config", {
            path: `sub/d${round}/x.json`,
            config: INSIDE,
            create_dirs: true,
          }],
        ];
        if (round % 20 === 0) {
          calls.push([`s${round}`, "bxp_simulate", {
            config: INSIDE,
            template: "t",
            csv_path: "sub/in.csv",
          }]);
        }
        for (const [id, tool, args] of calls) await server.call(id, tool, args);
        for (const [id] of calls) answers.push(await server.response(id));
      }
    } finally {
      flips = await stop();
    }
    try {
      assert.ok(flips > 0, "the flipper ran");
      const leaked = answers.filter((a) => JSON.stringify(a).includes(MARK));
      assert.deepEqual(leaked.map((a) => a.id), [], "no answer carries outside bytes");
      for (const answer of answers) {
        assert.ok(answer.result, `every call answers with a result: ${JSON.stringify(answer).slice(0, 300)}`);
        assert.ok(!JSON.stringify(answer).includes(box), `no absolute path in ${JSON.stringify(answer)}`);
      }
      const ok = answers.filter((a) => a.result.isError !== true).length;
      if (Deno.env.get("BXP_RACE_STATS")) {
        const kinds = new Map<string, number>();
        for (const a of answers) {
          const key = `${String(a.id).replace(/\d+/, "")} ${
            a.result.isError ? resultText(a).replace(/sub\S*/g, "_").slice(0, 70) : "ok"
          }`;
          kinds.set(key, (kinds.get(key) ?? 0) + 1);
        }
        console.log({ flips, calls: answers.length, ok, kinds });
      }
      assert.ok(ok > 0, "some calls went through between flips");
      assert.equal(await server.close(), 0);
      assert.deepEqual(await snapshot(outside), outsideBefore, "the outside folder is byte-identical");
      // A temporary file can only be stranded inside the root, in a folder the attacker moved away while
      // it was being discarded (the flipper's `.extraN` folders); never in the folders bxp-mcp writes.
      const leftovers = [...(await snapshot(root)).keys()]
        .filter((p) => p.endsWith(".bxp-tmp") && !/\/sub\.extra\d+\//.test(p));
      assert.deepEqual(leftovers, [], "no temporary file is left in the root");
    } finally {
      await server.dispose();
      await Deno.remove(box, { recursive: true });
    }
  },
});

Deno.test({
  name: "a checked file swapped for a FIFO never blocks the server: ping answers and EOF exits",
  ignore: !linux,
  async fn() {
    const { box, root } = await makeBox("bxp-race-");
    const fifo = join(root, "pipe.fifo");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.equal(made.code, 0, "mkfifo");
    const server = await ServerProcess.start(["--root", root]);
    const stop = await startFlipper("fifo", join(root, "sub", "cfg.json5"), fifo, join(box, "stop"));
    let flips = 0;
    try {
      // More concurrent calls than Deno has blocking threads to lose.
      const CALLS = 96;
      for (let i = 0; i < CALLS; i++) {
        await server.call(`f${i}`, "bxp_list_templates", { path: "sub/cfg.json5" });
      }
      for (let i = 0; i < CALLS; i++) {
        const answer = await server.response(`f${i}`);
        const text = resultText(answer);
        assert.ok(
          !answer.result.isError ||
            /^error: (Not a regular file|File changed|A folder|Path|Cannot open|.* file not found)/.test(
              text,
            ),
          text,
        );
      }
    } finally {
      flips = await stop();
    }
    try {
      assert.ok(flips > 0, "the flipper ran");
      await server.send({ jsonrpc: "2.0", id: "ping", method: "ping" });
      assert.deepEqual((await server.response("ping")).result, {});
      assert.equal(await server.close(), 0, "EOF ends the server");
    } finally {
      await server.dispose();
      await Deno.remove(box, { recursive: true });
    }
  },
});
