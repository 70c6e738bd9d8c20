/**
 * Config validations per second inside one process (issue 15's job figure): `annotateConfig`, the work
 * behind `bxp_validate`, called again and again on one config text (the bench's demo config unless a path
 * is given). No process start, no I/O, no MCP framing: the validation job only. Run it under `--cpu-prof`
 * to see where the time goes.
 *
 * @example
 * ```sh
 * deno run --allow-read tools/bench/validate_rate.ts --calls 20000 --runs 5
 * deno run --allow-read --cpu-prof tools/bench/validate_rate.ts samples/demo/bxp-cli.json
 * ```
 * @module
 */

import { parseArgs } from "node:util";
import { annotateConfig } from "../../src/inspect/mod.ts";

/** One timed run: `calls` validations took `ms`. */
export interface ValidateRate {
  calls: number;
  ms: number;
  usPerCall: number;
}

/** Validates `text` `calls` times (after a warm-up of the same size) and returns the time per call. */
export function measureValidateRate(text: string, calls: number): ValidateRate {
  let sink = 0; // consumed below so the calls cannot be optimised away
  for (let i = 0; i < calls; i++) sink += annotateConfig(text, "<bench>").json.length;
  const started = performance.now();
  for (let i = 0; i < calls; i++) sink += annotateConfig(text, "<bench>").json.length;
  const ms = performance.now() - started;
  if (sink < 0) throw new Error("unreachable");
  return { calls, ms, usPerCall: (ms * 1000) / calls };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { calls: { type: "string", default: "5000" }, runs: { type: "string", default: "5" } },
  });
  const path = positionals[0] ?? new URL("../../samples/demo/bxp-cli.json", import.meta.url).pathname;
  const text = await Deno.readTextFile(path);
  const calls = Number(values.calls);
  const runs = Number(values.runs);
  const rates: number[] = [];
  for (let r = 0; r < runs; r++) {
    const rate = measureValidateRate(text, calls);
    rates.push(rate.usPerCall);
    console.log(`run ${r + 1}: ${rate.usPerCall.toFixed(1)} µs per validate (${calls} calls)`);
  }
  const sorted = [...rates].sort((a, b) => a - b);
  console.log(`median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs per validate`);
}
