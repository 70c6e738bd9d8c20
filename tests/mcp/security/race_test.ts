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

const linux = Deno.build.os === "linux";
const flipper = fileURLToPath(new URL("./fixtures/flipper.ts", import.meta.url));
const MARK = "OUTSIDE_SECRET";

const config = (description: string) =>
  `{ conversion_templates: { t: { description: "${description}", data_dir: ".", file_pattern_in: ".csv", ` +
  `file_pattern_out: ".out", input_schema: { $a: "UPPER([a])" }, output_schema: { A: "$a" } } } }`;
const INSIDE = config("inside");

/** Every file under `dir` with its content (links shown as their target), for before/after comparison. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      if (entry.isSymlink) seen.set(path, `-> ${await Deno.readLink(path)}`);
      else if (entry.isDirectory) {
        seen.set(path, "dir");
        await walk(path);
      } else {
        const info = await Deno.lstat(path);
        seen.set(path, info.isFile ? await Deno.readTextFile(path) : "special");
      }
    }
  };
  await walk(dir);
  return seen;
}

/** Start the flipper and wait until its loop runs; returns a stop function resolving to its flip count. */
async function startFlipper(mode: string, target: string, other: string, stopFile: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      flipper,
      mode,
      target,
      other,
      stopFile,
      Deno.env.get("BXP_RACE_DWELL_MS") ?? "1",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  for (let poll = 0;; poll++) {
    try {
      await Deno.lstat(`${stopFile}.ready`);
      break;
    } catch {
      assert.ok(poll < 1200, "the flipper started");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return async (): Promise<number> => {
    await Deno.writeTextFile(stopFile, "");
    const out = await child.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout)).flips;
  };
}

async function makeBox() {
  const box = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-race-" }));
  const root = join(box, "root");
  const outside = join(box, "outside");
  await Deno.mkdir(join(root, "sub"), { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(root, "sub", "cfg.json5"), INSIDE);
  await Deno.writeTextFile(join(root, "sub", "in.csv"), "a\ninside\n");
  await Deno.writeTextFile(join(root, "sub", "over.json"), INSIDE);
  await Deno.writeTextFile(join(outside, "cfg.json5"), config(MARK));
  await Deno.writeTextFile(join(outside, "in.csv"), `a\n${MARK}\n`);
  await Deno.writeTextFile(join(outside, "over.json"), config(MARK));
  return { box, root, outside };
}

Deno.test({
  name:
    "a folder flipped to an outside link during hundreds of calls: nothing outside read, created or changed",
  ignore: !linux,
  async fn() {
    const { box, root, outside } = await makeBox();
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
    const { box, root } = await makeBox();
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
