/** Progress: the live-line decision and formatting as units; `--progress=json` and its absence with real runs. */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  formatProgressLine,
  LIVE_PROGRESS_MIN_BYTES,
  progressJsonLine,
  ProgressTicker,
  SharedProgress,
  showLiveProgress,
} from "../../src/cli/progress.ts";
import { entryArgs, runBxpCli } from "../_support/processes.ts";

const MB = 1024 * 1024;

Deno.test("the live line shows only on a terminal, for a large input, with no quiet or machine mode", () => {
  const base = {
    stderrIsTerminal: true,
    quiet: false,
    trace: false,
    debugJson: false,
    progressJson: false,
    totalBytes: LIVE_PROGRESS_MIN_BYTES,
  };
  assert.equal(showLiveProgress(base), true);
  assert.equal(showLiveProgress({ ...base, stderrIsTerminal: false }), false);
  assert.equal(showLiveProgress({ ...base, quiet: true }), false);
  assert.equal(showLiveProgress({ ...base, trace: true }), false);
  assert.equal(showLiveProgress({ ...base, debugJson: true }), false);
  assert.equal(showLiveProgress({ ...base, progressJson: true }), false);
  assert.equal(showLiveProgress({ ...base, totalBytes: LIVE_PROGRESS_MIN_BYTES - 1 }), false);
});

Deno.test("the live line: percent of bytes, rows/s, elapsed and remaining", () => {
  assert.equal(
    formatProgressLine({ records: 300_000, bytes: 50 * MB, totalBytes: 100 * MB }, 2000),
    "bxp-cli  50% 50.0 of 100.0 MB  150k rows/s  elapsed 0:02  remaining ~0:02",
  );
  assert.equal(
    formatProgressLine({ records: 0, bytes: 0, totalBytes: 100 * MB }, 0),
    "bxp-cli   0% 0.0 of 100.0 MB  0 rows/s  elapsed 0:00  remaining ?",
  );
  // A later stage's input the total did not know about never shows more than 100%.
  assert.match(
    formatProgressLine({ records: 5, bytes: 2 * MB, totalBytes: MB }, 90_000),
    /^bxp-cli 100% 2\.0 of 2\.0 MB .* elapsed 1:30/,
  );
});

/** Shared counters as the engine leaves them. */
function shared(records: number, bytes: number, totalBytes: number, startedAt = 0): SharedProgress {
  const p = new SharedProgress(undefined, startedAt);
  p.records = records;
  p.bytes = bytes;
  p.totalBytes = totalBytes;
  return p;
}

Deno.test("the JSON line and the ticker: periodic lines, a final line, the live line cleared", () => {
  const counters = shared(7, 100, 400);
  assert.equal(progressJsonLine(counters), 'bxp-progress {"records":7,"bytes":100,"total_bytes":400}\n');
  const written: string[] = [];
  counters.mode = "json";
  const json = new ProgressTicker(counters, (t) => written.push(t), () => 0);
  json.tick();
  counters.records = 9;
  counters.bytes = 400;
  json.stop();
  json.tick(); // finished: nothing more
  json.stop();
  assert.deepEqual(written, [
    'bxp-progress {"records":7,"bytes":100,"total_bytes":400}\n',
    'bxp-progress {"records":9,"bytes":400,"total_bytes":400}\n',
  ]);
  const live = shared(9, 400, 400);
  live.mode = "live";
  const drawn: string[] = [];
  const ticker = new ProgressTicker(live, (t) => drawn.push(t), () => 1000);
  ticker.tick();
  ticker.stop();
  assert.ok(drawn[0].startsWith("\rbxp-cli 100% ") && drawn[0].endsWith("\x1b[K"), JSON.stringify(drawn[0]));
  assert.match(drawn[0], /elapsed 0:01/);
  assert.deepEqual(drawn.slice(1), ["\r\x1b[K"]);
  // Never drawn: nothing to clear; no mode chosen (a small input on a terminal): nothing at all.
  const quiet: string[] = [];
  const never = shared(1, 1, 1);
  never.mode = "live";
  new ProgressTicker(never, (t) => quiet.push(t)).stop();
  const none = shared(1, 1, 1);
  const idle = new ProgressTicker(none, (t) => quiet.push(t));
  idle.tick();
  idle.stop();
  assert.deepEqual(quiet, []);
});

Deno.test("shared progress: another ticker over the same memory sees the counters, the line and the stop", () => {
  const main = shared(5, 50, 100, 1000);
  main.mode = "live";
  const other = new SharedProgress(main.memory);
  assert.deepEqual([other.records, other.bytes, other.totalBytes, other.startedAt], [5, 50, 100, 1000]);
  const drawn: string[] = [];
  // The watcher's ticker draws; the main thread's clears what it drew and finishes.
  new ProgressTicker(other, (t) => drawn.push("w" + t), () => 3000).tick();
  const mainTicker = new ProgressTicker(main, (t) => drawn.push("m" + t));
  mainTicker.clear();
  assert.deepEqual(drawn, [
    "w\rbxp-cli  50% 0.0 of 0.0 MB  3 rows/s  elapsed 0:02  remaining ~0:02\x1b[K",
    "m\r\x1b[K",
  ]);
  assert.equal(other.stopCode(), 0);
  other.requestStop(143);
  other.requestStop(130); // the first request wins
  assert.equal(main.stopCode(), 143);
});

async function bigCase(dir: string, rows: number): Promise<void> {
  const body = Array.from({ length: rows }, (_, i) => `${i},v${i}`).join("\n");
  await Deno.writeTextFile(join(dir, "a.csv"), `k,v\n${body}\n`);
  await Deno.writeTextFile(
    join(dir, "c.json"),
    `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
      input_schema: {$k: "[k]", $v: "[v] & '!'"}, row_rules: [{when: "1 = 1", rows: [{}]}],
      output_schema: {k: "$k", v: "$v"}}}}`,
  );
}

Deno.test("--progress=json: stderr lines with records and bytes, the last one complete; works with --quiet", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-progress-" });
  try {
    await bigCase(dir, 200_000);
    const size = (await Deno.stat(join(dir, "a.csv"))).size;
    for (const extra of [[], ["--quiet"], ["--debug=json"]]) {
      const res = await runBxpCli(["--config", "c.json", "--progress=json", ...extra], { cwd: dir });
      assert.equal(res.code, 0, res.stderr);
      const lines = res.stderr.split("\n").filter((l) => l !== "");
      assert.ok(lines.length >= 1);
      for (const l of lines) {
        assert.match(l, /^bxp-progress \{"records":\d+,"bytes":\d+,"total_bytes":\d+\}$/);
      }
      const last = JSON.parse(lines[lines.length - 1].slice("bxp-progress ".length));
      assert.deepEqual(last, { records: 200_000, bytes: size, total_bytes: size });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run whose stderr is not a terminal prints no progress line, even for a large input", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-noprogress-" });
  try {
    await bigCase(dir, 1_500_000); // > LIVE_PROGRESS_MIN_BYTES
    assert.ok((await Deno.stat(join(dir, "a.csv"))).size >= LIVE_PROGRESS_MIN_BYTES);
    const res = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stderr, "");
    assert.doesNotMatch(res.text, /bxp-progress|\r|rows\/s/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const hasScript = (() => {
  try {
    return Deno.statSync("/usr/bin/script").isFile && Deno.build.os === "linux";
  } catch {
    return false;
  }
})();

// Whatever the machine's speed: the line is drawn as soon as the run knows its input is large (not on a
// first timer tick, which a fast run or a busy thread may never reach), and cleared when it ends.
Deno.test({
  name: "on a terminal a large run draws the live line on stderr and clears it at the end",
  ignore: !hasScript,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "bxp-tty-" });
    try {
      await bigCase(dir, 1_500_000);
      const argv = entryArgs("bxp-cli", ["--config", "c.json"]);
      const command = [Deno.execPath(), ...argv].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
      // util-linux `script` gives the child a pseudo-terminal; stdout is redirected so only stderr is a tty.
      const out = await new Deno.Command("/usr/bin/script", {
        args: ["-qefc", `${command} > out.txt`, "/dev/null"],
        cwd: dir,
        env: { BXP_WORKERS: "0" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const tty = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, tty);
      assert.match(tty, /\rbxp-cli +\d+% [\d.]+ of [\d.]+ MB +\S+ rows\/s +elapsed \d+:\d\d +remaining/);
      assert.ok(tty.endsWith("\r\x1b[K"), JSON.stringify(tty.slice(-40)));
      assert.doesNotMatch(await Deno.readTextFile(join(dir, "out.txt")), /rows\/s/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("clearing the live line before other stderr text; the tick after skips, the next draws again", () => {
  const counters = shared(1, 1, 2);
  counters.mode = "live";
  const drawn: string[] = [];
  const live = new ProgressTicker(counters, (t) => drawn.push(t), () => 10);
  live.clear(); // nothing drawn yet: nothing to clear
  live.tick(); // right after a clear (a message): skipped
  assert.equal(drawn.length, 0);
  live.tick();
  live.clear();
  live.clear();
  assert.equal(drawn.length, 2);
  assert.equal(drawn[1], "\r\x1b[K");
  live.tick();
  live.tick();
  live.stop();
  assert.equal(drawn.length, 4);
  assert.equal(drawn[3], "\r\x1b[K");
  // JSON lines are never cleared.
  const lines: string[] = [];
  const json = shared(1, 1, 2);
  json.mode = "json";
  new ProgressTicker(json, (t) => lines.push(t)).clear();
  assert.deepEqual(lines, []);
});
