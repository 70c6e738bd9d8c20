/**
 * The engine's side of stopping: a `ProgressCounters.stop` that answers true makes the serial passes and the
 * calling thread's blocks throw `RunStopped` between records, which unwinds through the usual cleanup (the
 * staged output aborted, nothing under the final name, the run reported as stopped). Real files; the stop
 * check is a plain object, as any adapter may give (bxp-cli's ends the process itself instead).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/model.ts";
import { runConversion } from "../../src/engine/run.ts";
import { type ProgressCounters, RunStopped, type StopCheck } from "../../src/engine/host.ts";
import { BlockPool } from "../../src/engine/parallel/pool.ts";
import { NULL_TRACE } from "../../src/engine/sinks.ts";
import { DenoEngineFs } from "../../src/cli/deno_fs.ts";

/** A template over `a.csv`, with a pre_pass the main pass reads when `prePass`. */
function configText(prePass: boolean): string {
  const pre = prePass ? `pre_pass: {p: {when: "1 = 1", key: "[h]", values: {n: "[h]"}}},` : "";
  const v = prePass ? `LOOKUP('p', [h], 'n')` : `[h] & '!'`;
  return `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o", ${pre}
    input_schema: {$v: "${v}"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {v: "$v"}}}}`;
}

/** A stop check that asks for the stop after `after` questions, counting them. */
function stopAfter(after: number): StopCheck & { asked: number } {
  const s = {
    asked: 0,
    requested: () => ++s.asked > after,
  };
  return s;
}

async function runWith(dir: string, prePass: boolean, stop: StopCheck, pool: BlockPool | null) {
  const config = loadConfig(configText(prePass), "c.json").config!;
  const fatal: string[] = [];
  const progress: ProgressCounters = { records: 0, bytes: 0, totalBytes: 0, stop };
  const result = await runConversion(
    { config, templateId: null, dataOverride: null, configLabel: "c.json" },
    {
      fs: new DenoEngineFs(dir),
      reporter: { info() {}, warning() {}, fatal: (t) => void fatal.push(t), debug() {} },
      trace: NULL_TRACE,
      fresh: false,
      dryRun: false,
      debug: false,
      now: () => performance.now(),
      progress,
      parallel: pool === null ? null : { pool: () => pool, minBytes: 1, blockSize: 4096 },
      containerWorkers: 0,
    },
  );
  return { result, fatal, progress };
}

for (const path of ["serial", "blocks"] as const) {
  for (const prePass of [false, true]) {
    Deno.test(`a stop request ends the ${prePass ? "pre_pass" : "main pass"} (${path}): output aborted, run stopped`, async () => {
      const dir = await Deno.makeTempDir({ prefix: "bxp-stopcheck-" });
      const stop = stopAfter(1000);
      // A pool on the calling thread alone (size 1), given the same check (its adapter does that).
      const pool = path === "blocks" ? new BlockPool(1, null, null, stop) : null;
      try {
        await Deno.writeTextFile(join(dir, "a.csv"), "h\n" + "x\n".repeat(100_000));
        const { result, fatal } = await runWith(dir, prePass, stop, pool);
        assert.equal(result.overall.hasFatal, true);
        assert.ok(fatal.some((t) => t.includes(new RunStopped().message)), fatal.join(""));
        assert.ok(stop.asked > 1000 && stop.asked < 100_000, `asked ${stop.asked} times`);
        const names = [...Deno.readDirSync(dir)].map((e) => e.name);
        assert.deepEqual(names, ["a.csv"]);
      } finally {
        pool?.close();
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}

Deno.test("a stop check that never asks to stop changes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-stopcheck-" });
  try {
    await Deno.writeTextFile(join(dir, "a.csv"), "h\n" + "x\n".repeat(10_000));
    const stop = stopAfter(Infinity);
    const { result, progress } = await runWith(dir, false, stop, null);
    assert.equal(result.overall.hasFatal, false);
    assert.equal(result.overall.rowsOut, 10_000);
    assert.equal(progress.records, 10_000);
    assert.ok(stop.asked >= 10_000 / 4, `asked ${stop.asked} times`);
    assert.equal(await Deno.readTextFile(join(dir, "a.o")), "v\n" + "x!\n".repeat(10_000));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
