/**
 * Conformance cases run as a user would (see the conformance folder's README): the config and inputs copied
 * into an empty folder, bxp-cli run on the config with no other flag, and every output compared byte for byte
 * with its golden (`NAME.expected` is the golden of the output `NAME.<ext>`).
 *
 * @module
 */

import { join } from "node:path";
import { type Program, runProgram } from "./programs.ts";

/** One line of CASES.tsv. */
export interface ConformanceCase {
  caseDir: string;
  config: string;
  inputs: string[];
  expected: string[];
}

/** The two cases the smoke test runs: one plain, one writing several outputs (combined_output). */
export const SMOKE_CASES: readonly string[] = [
  "datasets/trading212_to_wealthfolio",
  "datasets/combined_output_demo",
];

/** Parse CASES.tsv (tab-separated, header line first, `;`-separated lists). */
export function parseCases(tsv: string): ConformanceCase[] {
  const lines = tsv.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = lines.shift()?.split("\t") ?? [];
  const col = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`CASES.tsv has no '${name}' column`);
    return i;
  };
  const [dir, config, inputs, expected] = ["case_dir", "config", "inputs", "expected"].map(col);
  return lines.map((line) => {
    const f = line.split("\t");
    return {
      caseDir: f[dir],
      config: f[config],
      inputs: f[inputs].split(";"),
      expected: f[expected].split(";"),
    };
  });
}

/** The outcome of one case: `ok`, or the problems found. */
export interface CaseResult {
  caseDir: string;
  problems: string[];
  /** The outputs compared (file names). */
  compared: string[];
}

/** Run one case with `cli` in a fresh folder under `workDir`. */
export async function runCase(
  cli: Program,
  conformanceDir: string,
  c: ConformanceCase,
  workDir: string,
): Promise<CaseResult> {
  const source = join(conformanceDir, c.caseDir);
  const dir = await Deno.makeTempDir({ dir: workDir, prefix: "case-" });
  for (const name of [c.config, ...c.inputs]) await Deno.copyFile(join(source, name), join(dir, name));
  const run = await runProgram(cli, ["--config", c.config], { cwd: dir });
  const problems: string[] = [];
  const compared: string[] = [];
  if (run.code !== 0) problems.push(`bxp-cli exited ${run.code}: ${run.stderr.trim().slice(0, 500)}`);
  const written: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name !== c.config && !c.inputs.includes(e.name)) written.push(e.name);
  }
  for (const golden of c.expected) {
    const stem = golden.replace(/\.expected$/, "");
    const matches = written.filter((n) => n.slice(0, n.lastIndexOf(".")) === stem);
    if (matches.length !== 1) {
      problems.push(`expected one output named ${stem}.*, found ${matches.length} (${written.join(", ")})`);
      continue;
    }
    const want = await Deno.readFile(join(source, golden));
    const got = await Deno.readFile(join(dir, matches[0]));
    const at = firstDifference(want, got);
    if (at !== -1) problems.push(`${matches[0]} differs from ${golden} at byte ${at}`);
    else compared.push(matches[0]);
  }
  return { caseDir: c.caseDir, problems, compared };
}

/** The first byte offset where `a` and `b` differ, or -1 when identical. */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
