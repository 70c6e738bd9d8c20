/**
 * The differential fuzzer's driver, shared by the bounded test (`tests/fuzz/differential_test.ts`) and the
 * long run (`deno task fuzz`): cases from a seed, each run through the reference and every path, two at a
 * time; a failing case is kept in a folder it names, with the exact replay command.
 * @module
 */

import { join } from "node:path";
import { type FuzzCase, generateCase } from "./_generate.ts";
import {
  cliOutcome,
  cliPaths,
  compareOutcomes,
  type Mismatch,
  partitionMismatches,
  playgroundMismatches,
  REFERENCE_ENV,
  simulateMismatches,
  SimulateServer,
  writeCase,
} from "./_paths.ts";
import { Rng } from "../../_support/rng.ts";

/** What to run. */
export interface RunOptions {
  seed: number;
  cases: number;
  /** Every `costlyEvery`-th case also goes through bxp_simulate and the partition modes (0: never). */
  costlyEvery: number;
  /** Stop starting cases after this many milliseconds (cases started still finish). */
  budgetMs: number;
  /** Cases run at once. */
  concurrency: number;
  /** Only this case seed (a replay), instead of `cases` from `seed`. */
  caseSeed?: number;
  log?: (line: string) => void;
}

/** One failing case. */
export interface Failure {
  caseSeed: number;
  index: number;
  features: string[];
  mismatches: Mismatch[];
  kept: string;
}

/** The outcome of a fuzz run. */
export interface RunReport {
  ran: number;
  costly: number;
  ms: number;
  failures: Failure[];
  /** Every case's features, counted (what the run exercised). */
  coverage: Map<string, number>;
}

/** The seeds of the cases of a run. */
export function caseSeeds(seed: number, cases: number): number[] {
  const rng = new Rng(seed);
  return Array.from({ length: cases }, () => rng.fork());
}

/** The command that replays one case. */
export function replayCommand(caseSeed: number): string {
  return `deno task fuzz --case-seed ${caseSeed}`;
}

async function keepCase(c: FuzzCase, mismatches: Mismatch[], work: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: `bxp-fuzz-case-${c.seed}-` });
  // writeCase makes the folders of nested inputs too (a data_dir list's `more/`).
  await writeCase(join(dir, "data"), c);
  await Deno.writeTextFile(
    join(dir, "MISMATCHES.txt"),
    `case seed ${c.seed}; replay: ${
      replayCommand(c.seed)
    }\nBXP_BLOCK_BYTES for the block path: ${c.blockBytes}\n` +
      `features: ${c.features.join(", ")}\nevery path's folder: ${work}\n\n` +
      mismatches.map((m) =>
        `[${m.path}] ${m.part}: ${m.detail}` +
        (m.texts ? `\n--- reference:\n${m.texts.reference}\n--- ${m.path}:\n${m.texts.path}` : "")
      ).join("\n\n") + "\n",
  );
  return dir;
}

async function runOne(
  c: FuzzCase,
  index: number,
  costly: boolean,
  root: string,
  server: () => Promise<SimulateServer>,
): Promise<Mismatch[]> {
  const work = join(root, `case${index}`);
  const ref = await cliOutcome("reference", join(work, "reference"), c, REFERENCE_ENV);
  const mismatches: Mismatch[] = [];
  for (const [name, env] of Object.entries(cliPaths(c))) {
    mismatches.push(...compareOutcomes(ref, await cliOutcome(name, join(work, name), c, env)));
  }
  mismatches.push(...await playgroundMismatches(c, ref));
  if (costly) {
    const rng = new Rng(c.seed ^ 0x5a5a);
    for (const t of c.templates.filter((t) => t.partitionable)) {
      if (t.inputs.length > 0) {
        mismatches.push(...await simulateMismatches(await server(), `case${index}/sim-${t.id}`, c, t));
      }
      const pieceBytes = rng.pick([1, 24, 80, 300]);
      mismatches.push(...await partitionMismatches(join(work, `part-${t.id}`), c, t, pieceBytes));
    }
  }
  return mismatches;
}

/** Runs the cases; never throws for a mismatch (the report holds them). */
export async function runFuzz(opts: RunOptions): Promise<RunReport> {
  const log = opts.log ?? (() => {});
  const started = performance.now();
  const seeds = opts.caseSeed !== undefined ? [opts.caseSeed] : caseSeeds(opts.seed, opts.cases);
  const root = await Deno.makeTempDir({ prefix: "bxp-fuzz-" });
  // One bxp-mcp for every simulated case, started on first need.
  const servers: Promise<SimulateServer>[] = [];
  const server = () => (servers[0] ??= SimulateServer.start(root));
  const report: RunReport = { ran: 0, costly: 0, ms: 0, failures: [], coverage: new Map() };
  let next = 0;
  const worker = async () => {
    while (next < seeds.length && performance.now() - started < opts.budgetMs) {
      const index = next++;
      const c = generateCase(seeds[index]);
      const costly = opts.caseSeed !== undefined || (opts.costlyEvery > 0 && index % opts.costlyEvery === 0);
      const mismatches = await runOne(c, index, costly, root, server);
      report.ran++;
      if (costly) report.costly++;
      for (const f of new Set(c.features.map((f) => f.replace(/^t\d:/, "")))) {
        report.coverage.set(f, (report.coverage.get(f) ?? 0) + 1);
      }
      if (mismatches.length > 0) {
        const kept = await keepCase(c, mismatches, join(root, `case${index}`));
        report.failures.push({ caseSeed: c.seed, index, features: c.features, mismatches, kept });
        log(`case ${index} (seed ${c.seed}): ${mismatches.length} mismatches, kept in ${kept}`);
      } else {
        await Deno.remove(join(root, `case${index}`), { recursive: true }).catch(() => {});
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
  } finally {
    for (const s of servers) await (await s).close();
    if (report.failures.length === 0) await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  report.ms = performance.now() - started;
  return report;
}

/** A failure report for humans: each failing case, its replay command and its first mismatches. */
export function describeFailures(seed: number, report: RunReport, runCommand: string): string {
  const lines = [
    `differential fuzz: ${report.failures.length} of ${report.ran} cases differ from the reference ` +
    `(run seed ${seed}; rerun: ${runCommand})`,
  ];
  for (const f of report.failures) {
    lines.push(`\ncase ${f.index}, case seed ${f.caseSeed}: replay with \`${replayCommand(f.caseSeed)}\``);
    lines.push(`  kept (config + inputs): ${f.kept}`);
    lines.push(`  features: ${f.features.join(", ") || "(plain)"}`);
    for (const m of f.mismatches.slice(0, 6)) lines.push(`  [${m.path}] ${m.part}: ${m.detail}`);
    if (f.mismatches.length > 6) lines.push(`  ... ${f.mismatches.length - 6} more in MISMATCHES.txt`);
  }
  return lines.join("\n");
}
