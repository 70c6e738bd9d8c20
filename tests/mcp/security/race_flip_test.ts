/**
 * The attack as an attacker runs it: a separate process flips a folder inside the root between the real
 * folder and a symbolic link to an outside folder, in a tight loop and for a sustained time, while a real
 * bxp-mcp answers a steady stream of `bxp_validate {path}`, `bxp_peek_csv` and `bxp_write_config` calls (new files,
 * overwrites, `create_dirs`) with many calls in flight. No answer may carry the outside file's bytes,
 * nothing may be created or changed outside the root; afterwards a plain read and write still work.
 *
 * `BXP_FLIP_SECONDS` sets the attack's length (default 10; the long variant:
 * `BXP_FLIP_SECONDS=20 deno test -A tests/mcp/security/race_flip_test.ts`); `BXP_FLIP_STATS=1` prints
 * the counts. Against the path-checking guard this replaced (check, open by path, re-check), the same
 * attack failed every run: in four runs of 10 s, 4, 8, 9 and 4 answers carried the outside file's bytes,
 * every run created files or folders outside the root and one overwrote an outside file; in 20 s, 8
 * answers and 3 entries outside. The fd-relative guard: none in any run (10 s and 20 s).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resultText, ServerProcess, type Wire } from "../_support/server_process.ts";
import { type Attacker, INSIDE, makeBox, MARK, snapshot, startAttacker } from "./_race_setup.ts";

const attacker = fileURLToPath(new URL("./fixtures/flip_attacker.ts", import.meta.url));
const SECONDS = Number(Deno.env.get("BXP_FLIP_SECONDS") ?? 10);
/** Calls kept in flight, so calls also run while others wait on the disk. */
const IN_FLIGHT = 24;

Deno.test({
  name:
    "an outside process flipping a folder to an outside link for seconds: nothing outside read or written",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  async fn() {
    const { box, root, outside } = await makeBox("bxp-flip-");
    const outsideBefore = await snapshot(outside);
    const server = await ServerProcess.start(["--root", root, "--allow-write"]);
    const stopFile = join(box, "stop");
    let attack: Attacker | null = null;
    try {
      // Warm up (the tool core loads on first need) before the attack starts.
      await server.call("warm", "bxp_validate", { path: "sub/cfg.json5" });
      assert.ok(!(await server.response("warm", 120_000)).result.isError);
      attack = await startAttacker(
        "attacker",
        attacker,
        ["--allow-read", "--allow-write", "--allow-ffi"],
        [join(root, "sub"), outside, stopFile, "120000"],
        stopFile,
      );
      const answers = new Map<string, Wire>();
      const kinds = new Map<string, string>();
      let sent = 0;
      let seen = 0;
      const deadline = Date.now() + SECONDS * 1000;
      const send = async () => {
        const n = sent++;
        const id = `q${n}`;
        // Mostly reads (the attack reported on bxp_validate), and the folder-creating writes a swap can
        // send outside most easily.
        const pick = n % 8;
        if (pick < 3) {
          kinds.set(id, "validate");
          await server.call(id, "bxp_validate", { path: "sub/cfg.json5" });
        } else if (pick === 3) {
          // A bounded read of a file's head (readHead), the other read path.
          kinds.set(id, "peek");
          await server.call(id, "bxp_peek_csv", { path: "sub/in.csv" });
        } else if (pick === 4) {
          kinds.set(id, "create");
          await server.call(id, "bxp_write_config", { path: `sub/w${n}.json`, config: INSIDE });
        } else if (pick === 5) {
          kinds.set(id, "overwrite");
          await server.call(id, "bxp_write_config", {
            path: "sub/over.json",
            config: INSIDE,
            overwrite: true,
          });
        } else {
          kinds.set(id, "mkdir");
          await server.call(id, "bxp_write_config", {
            path: `sub/d${n}/x.json`,
            config: INSIDE,
            create_dirs: true,
          });
        }
      };
      for (let i = 0; i < IN_FLIGHT; i++) await send();
      // Each answer read lets one more call go, until the time is up; then the rest are collected.
      const idle = Date.now() + SECONDS * 1000 + 120_000;
      while (answers.size < sent) {
        assert.ok(Date.now() < idle, `answers keep coming (${answers.size}/${sent})`);
        await server.waitUntil(() => server.messages.length > seen, "an answer", 60_000);
        for (; seen < server.messages.length; seen++) {
          const message = server.messages[seen];
          if (typeof message.id !== "string") continue;
          answers.set(message.id, message);
          if (Date.now() < deadline) await send();
        }
      }
      const flips = await attack.stop();

      const leaked = [...answers.values()].filter((a) => JSON.stringify(a).includes(MARK));
      const outsideAfter = await snapshot(outside);
      const created = [...outsideAfter.keys()].filter((p) => !outsideBefore.has(p));
      const changed = [...outsideBefore.keys()].filter((p) => outsideAfter.get(p) !== outsideBefore.get(p));
      const tally = new Map<string, number>();
      for (const [id, answer] of answers) {
        const kind = `${kinds.get(id)} ${
          answer.result?.isError ? resultText(answer).replace(/\d+/g, "N").slice(0, 70) : "ok"
        }`;
        tally.set(kind, (tally.get(kind) ?? 0) + 1);
      }
      if (Deno.env.get("BXP_FLIP_STATS")) {
        console.log({
          seconds: SECONDS,
          flips,
          calls: answers.size,
          leaked: leaked.length,
          created,
          changed,
        });
        console.log(tally);
      }
      assert.ok(flips > 1000, `the attacker flipped (${flips})`);
      assert.ok(answers.size > 200, `the server answered calls during the attack (${answers.size})`);
      for (const answer of answers.values()) {
        assert.ok(answer.result, `every call answers with a result: ${JSON.stringify(answer).slice(0, 300)}`);
        assert.ok(!JSON.stringify(answer).includes(box), `no absolute path in ${JSON.stringify(answer)}`);
      }
      assert.equal(leaked.length, 0, `${leaked.length} of ${answers.size} answers carry the outside bytes`);
      assert.deepEqual(created, [], "nothing is created outside the root");
      assert.deepEqual(changed, [], "no outside file is changed");
      const ok = [...answers.values()].filter((a) => a.result.isError !== true).length;
      assert.ok(ok > 0, "some calls went through between flips");

      // With the attacker gone, a plain read and a plain write work.
      await server.call("after-read", "bxp_validate", { path: "sub/cfg.json5" });
      const read = await server.response("after-read");
      assert.ok(!read.result.isError, resultText(read));
      assert.ok(JSON.stringify(read).includes("inside"));
      await server.call("after-write", "bxp_write_config", { path: "sub/after.json", config: INSIDE });
      const write = await server.response("after-write");
      assert.ok(!write.result.isError, resultText(write));
      assert.equal(await Deno.readTextFile(join(root, "sub", "after.json")), INSIDE);
      assert.equal(await server.close(), 0);
    } finally {
      await attack?.abort();
      await server.dispose();
      await Deno.remove(box, { recursive: true });
    }
  },
});
