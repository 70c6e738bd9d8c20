/**
 * Config validations per second inside one process (issue 15's job figure): `annotateConfig`, the work
 * behind `bxp_validate`, called again and again on one config text (the bench's demo config unless a path
 * is given). No process start, no I/O, no MCP framing: the validation job only. Run it under `--cpu-prof`
 * to see where the time goes.
 *
 * @example
 * ```sh
 * deno run --allow-read tools/bench/validate_rate.ts --calls 20000 --runs 5
 * deno run --allow-read tools/bench/validate_rate.ts --warmup 100 --calls 1000 --runs 1
 * deno run --allow-read --cpu-prof tools/bench/validate_rate.ts samples/demo/bxp-cli.json
 * ```
 * @module
 */

import { cpuUsage } from "node:process";
import { parseArgs } from "node:util";
import { annotateConfig } from "../../src/inspect/mod.ts";

/**
 * One timed run: `calls` validations took `ms` of wall time; the median call took `medianUs`; `cpuUsPerCall`
 * is the process's CPU time per call (user + system, all threads), steadier than wall time on a shared
 * machine.
 */
export interface ValidateRate {
  calls: number;
  ms: number;
  usPerCall: number;
  medianUs: number;
  cpuUsPerCall: number;
}

/**
 * Reads the answer through once, as the server's JSON encoding of it does: a string built by concatenation
 * is flattened here, so its cost is counted.
 */
function consume(json: string): number {
  return json.indexOf("\0") + 1;
}

/**
 * Validates `text` `calls` times after `warmup` untimed calls and returns the time per call. A small
 * warm-up in a fresh process (`--warmup 100 --calls 1000 --runs 1`, what `deno task bench --only mcp`
 * asks of a new server) measures the code before the JIT has settled; a large one the steady state.
 */
export function measureValidateRate(text: string, calls: number, warmup = calls): ValidateRate {
  let sink = 0; // consumed below so the calls cannot be optimised away
  for (let i = 0; i < warmup; i++) sink += consume(annotateConfig(text, "<bench>").json);
  const each = new Float64Array(calls);
  const cpuBefore = cpuUsage();
  const started = performance.now();
  let before = started;
  for (let i = 0; i < calls; i++) {
    sink += consume(annotateConfig(text, "<bench>").json);
    const after = performance.now();
    each[i] = after - before;
    before = after;
  }
  const ms = before - started;
  const cpu = cpuUsage(cpuBefore);
  if (sink < 0) throw new Error("unreachable");
  each.sort();
  return {
    calls,
    ms,
    usPerCall: (ms * 1000) / calls,
    medianUs: each[Math.floor(calls / 2)] * 1000,
    cpuUsPerCall: (cpu.user + cpu.system) / calls,
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      calls: { type: "string", default: "5000" },
      runs: { type: "string", default: "5" },
      warmup: { type: "string" },
    },
  });
  const path = positionals[0] ?? new URL("../../samples/demo/bxp-cli.json", import.meta.url).pathname;
  const text = await Deno.readTextFile(path);
  const calls = Number(values.calls);
  const runs = Number(values.runs);
  const warmup = values.warmup === undefined ? calls : Number(values.warmup);
  const rates: number[] = [];
  for (let r = 0; r < runs; r++) {
    const rate = measureValidateRate(text, calls, warmup);
    rates.push(rate.usPerCall);
    console.log(
      `run ${r + 1}: ${rate.usPerCall.toFixed(1)} µs per validate (CPU ${
        rate.cpuUsPerCall.toFixed(1)
      } µs), ` +
        `median call ${rate.medianUs.toFixed(1)} µs ` +
        `(${calls} calls after ${warmup})`,
    );
  }
  const sorted = [...rates].sort((a, b) => a - b);
  console.log(`median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs per validate`);
}
