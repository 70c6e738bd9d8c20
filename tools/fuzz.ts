/**
 * The long run of the differential fuzzer (see docs/dev/fuzzing.md): every production path of bxp-cli, the
 * playground core, bxp_simulate and the partition modes held to bxp-cli's reference mode on generated cases.
 *
 *   deno task fuzz [--seed N] [--cases M] [--minutes T] [--costly-every K] [--case-seed S]
 *
 * Prints its seed first; exits 1 when a case differs (each kept in a folder it names).
 * @module
 */

import { describeFailures, replayCommand, runFuzz } from "../tests/fuzz/differential/_run.ts";

function flag(name: string): string | null {
  const i = Deno.args.indexOf(`--${name}`);
  if (i >= 0) return Deno.args[i + 1] ?? null;
  const eq = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return eq === undefined ? null : eq.slice(name.length + 3);
}

function intFlag(name: string, fallback: number): number {
  const v = flag(name);
  if (v === null) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`error: --${name} must be a non-negative integer, got '${v}'`);
    Deno.exit(1);
  }
  return n;
}

const seed = intFlag("seed", Math.floor(Math.random() * 0x7fffffff) + 1);
const caseSeedText = flag("case-seed");
const caseSeed = caseSeedText === null ? undefined : intFlag("case-seed", 0);
const cases = intFlag("cases", 1_000_000);
const minutes = intFlag("minutes", 10);
const costlyEvery = intFlag("costly-every", 8);

console.log(
  caseSeed === undefined
    ? `differential fuzz: seed ${seed}, up to ${cases} cases, ${minutes} min (rerun: deno task fuzz --seed ${seed})`
    : `differential fuzz: replaying case seed ${caseSeed} (${replayCommand(caseSeed)})`,
);
const report = await runFuzz({
  seed,
  cases,
  caseSeed,
  costlyEvery,
  budgetMs: minutes * 60_000,
  concurrency: 2,
  log: (line) => console.log(line),
});
const coverage = [...report.coverage].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, n]) => `${f}:${n}`);
console.log(
  `ran ${report.ran} cases (${report.costly} also through bxp_simulate and the partition modes) in ` +
    `${(report.ms / 1000).toFixed(1)} s; features: ${coverage.join(" ")}`,
);
if (report.failures.length > 0) {
  console.log(describeFailures(seed, report, `deno task fuzz --seed ${seed} --cases ${cases}`));
  Deno.exit(1);
}
console.log("no differences");
