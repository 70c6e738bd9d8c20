/**
 * The container points (see `CONTAINER_POINTS` in points.ts): inputs generated once into `.bench/data/`
 * (a zip of workload CSVs built with fflate's streaming `Zip`; a workbook from xlsx_workload.ts), then
 * bxp-cli run on them in a scratch folder, measured for wall time, peak RSS and the preparation section's own
 * time (the `summary:` line after `=== unpacking zip archives ===` / `=== preparing work environment ===`).
 *
 * `runContainerPoint` is not run by the example, because it starts bxp-cli processes over a bench folder;
 * the example checks the memory goal and renders the report of a result made by hand.
 *
 * @example
 * ```ts
 * import { containerGoals, renderContainerSection } from "./containers.ts";
 * import { CONTAINER_POINTS } from "./points.ts";
 * import assert from "node:assert/strict";
 * const point = CONTAINER_POINTS[0]; // zip-4x500k-c16
 * const result = {
 *   point, inputBytes: 60e6, csvBytes: 240e6, wallMs: [2000, 3000, 2500], prepareMs: [400],
 *   peakRssKb: 100 * 1024,
 * };
 * assert.deepEqual(containerGoals([result]), [
 *   { goal: "peak RSS under 150 MB at `zip-4x500k-c16`", holds: true, detail: "100 MB" },
 * ]);
 * const table = renderContainerSection([result]);
 * assert.ok(table.includes("| `zip-4x500k-c16` | 60 MB | 240 MB | 2.50 s | 0.40 s | 100 MB |"));
 * ```
 * @module
 */

import { Zip, ZipDeflate } from "fflate";
import { ENTRY_MODULES, entryPointFlags } from "../../src/distribution/mod.ts";
import { benchConfig, INPUT_SUFFIX, OUTPUT_SUFFIX } from "./config.ts";
import { median, runMeasured } from "./measure.ts";
import type { ContainerPoint } from "./points.ts";
import type { GoalCheck } from "./report.ts";
import { workloadChunks } from "./workload.ts";
import { writeXlsxWorkload, XLSX_COLUMNS } from "./xlsx_workload.ts";
import { workloadColumns } from "./workload.ts";

/** What one container point measured. */
export interface ContainerResult {
  point: ContainerPoint;
  /** The container's size on disk. */
  inputBytes: number;
  /** Bytes of the CSV the container holds (zip members / the intermediate CSV). */
  csvBytes: number;
  wallMs: number[];
  /** The unpack/extract section's own time, from bxp-cli's summary line. */
  prepareMs: number[];
  peakRssKb: number | null;
  error?: string;
}

/** How to run. */
export interface ContainerBenchOptions {
  benchDir: string;
  root: string;
  denoJson: string;
  repeat: number;
  progress: (message: string) => void;
}

const RUN_TIMEOUT_MS = 900_000;
/** Bumped when an input's generator changes. */
const CONTAINER_INPUT_VERSION = 1;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

function inputDir(benchDir: string, p: ContainerPoint): string {
  const base = p.kind === "zip"
    ? `zip-m${p.members}-r${p.rows}-c${p.cols}`
    : `xlsx-${Math.round((p.targetBytes ?? 0) / 1e6)}mb`;
  return `${benchDir}/data/v${CONTAINER_INPUT_VERSION}-${base}`;
}

/** Streams `members` workload CSVs (seeds 1..n) into a zip under `CSV/`, deflated as zip tools do. */
async function writeZipWorkload(path: string, p: ContainerPoint): Promise<void> {
  const partial = `${path}.partial`;
  const file = await Deno.open(partial, { write: true, create: true, truncate: true });
  try {
    let failure: unknown = null;
    const zip = new Zip((err, chunk) => {
      if (err !== null) failure = err;
      else for (let at = 0; at < chunk.length;) at += file.writeSync(chunk.subarray(at));
    });
    for (let m = 1; m <= p.members!; m++) {
      const member = new ZipDeflate(`CSV/part${m}${INPUT_SUFFIX}`, { level: 6 });
      zip.add(member);
      for (const chunk of workloadChunks({ rows: p.rows!, cols: p.cols!, seed: m })) {
        member.push(chunk.slice());
      }
      member.push(new Uint8Array(0), true);
      if (failure !== null) throw failure;
    }
    zip.end();
    if (failure !== null) throw failure;
  } finally {
    file.close();
  }
  await Deno.rename(partial, path);
}

/** The container for `p` (generated on first use) and the config that reads it. */
async function prepareContainer(p: ContainerPoint, o: ContainerBenchOptions) {
  const dir = inputDir(o.benchDir, p);
  await Deno.mkdir(dir, { recursive: true });
  const name = p.kind === "zip" ? "input.zip" : "input.xlsx";
  const path = `${dir}/${name}`;
  if (!(await exists(path))) {
    const started = performance.now();
    o.progress(`${p.id}: generating ${name}`);
    if (p.kind === "zip") await writeZipWorkload(path, p);
    else await writeXlsxWorkload(path, { targetBytes: p.targetBytes!, seed: 42 });
    o.progress(`${p.id}: ${name} ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const template = p.kind === "zip"
    ? benchConfig(workloadColumns(p.cols!), "3expr")
    : benchConfig([...XLSX_COLUMNS], "passthrough");
  const t = (template.conversion_templates as Record<string, Record<string, unknown>>).bench;
  if (p.kind === "zip") t.zip_input = { entry_pattern: INPUT_SUFFIX };
  else t.xlsx_sheet = { name: "Data", header_row: 1, output_suffix: INPUT_SUFFIX };
  return { path, name, config: JSON.stringify(template, null, 2) + "\n" };
}

/** Removes everything in `dir` but `keep`. */
async function clearExcept(dir: string, keep: readonly string[]): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    if (!keep.includes(e.name)) await Deno.remove(`${dir}/${e.name}`, { recursive: true });
  }
}

async function sizeOf(dir: string, suffix: string): Promise<number> {
  let total = 0;
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(suffix)) total += (await Deno.stat(`${dir}/${e.name}`)).size;
  }
  return total;
}

/** The preparation section's time from bxp-cli's stdout, in ms. */
function prepareTime(stdout: string): number | null {
  const m =
    /=== (?:unpacking zip archives|preparing work environment) ===\n(?:.*\n)*?summary: .* time:(\d+)\.(\d{3})s/
      .exec(stdout);
  return m === null ? null : Number(m[1]) * 1000 + Number(m[2]);
}

/** Runs one container point `o.repeat` times. */
export async function runContainerPoint(
  p: ContainerPoint,
  o: ContainerBenchOptions,
): Promise<ContainerResult> {
  const { path, name, config } = await prepareContainer(p, o);
  const result: ContainerResult = {
    point: p,
    inputBytes: (await Deno.stat(path)).size,
    csvBytes: 0,
    wallMs: [],
    prepareMs: [],
    peakRssKb: null,
  };
  const work = `${inputDir(o.benchDir, p)}/run`;
  await Deno.mkdir(work, { recursive: true });
  const keep = [name, "bxp-cli.json"];
  await clearExcept(work, []);
  await Deno.symlink(path, `${work}/${name}`);
  await Deno.writeTextFile(`${work}/bxp-cli.json`, config);
  const stdoutPath = `${inputDir(o.benchDir, p)}/stdout.txt`;
  try {
    for (let rep = 0; rep < o.repeat; rep++) {
      await clearExcept(work, keep);
      const m = await runMeasured({
        argv: [
          Deno.execPath(),
          "run",
          ...entryPointFlags(o.denoJson, "bxp-cli"),
          `${o.root}/${ENTRY_MODULES["bxp-cli"]}`,
          "--config",
          "bxp-cli.json",
        ],
        cwd: work,
        env: p.serial ? { BXP_WORKERS: "0" } : undefined,
        stdoutPath,
        timeoutMs: RUN_TIMEOUT_MS,
      });
      const stdout = await Deno.readTextFile(stdoutPath).catch(() => "");
      if (m.code !== 0) {
        result.error = `bxp-cli exited ${m.code}: ${(m.stderr.trim() || stdout.trim()).split("\n")[0]}`;
        o.progress(`${p.id}: ${result.error}`);
        break;
      }
      result.wallMs.push(m.wallMs);
      const prep = prepareTime(stdout);
      if (prep !== null) result.prepareMs.push(prep);
      if (m.peakRssKb !== null) result.peakRssKb = Math.max(result.peakRssKb ?? 0, m.peakRssKb);
      result.csvBytes = await sizeOf(work, INPUT_SUFFIX);
      const outBytes = await sizeOf(work, OUTPUT_SUFFIX);
      o.progress(
        `${p.id}: ${(m.wallMs / 1000).toFixed(2)} s (preparation ${
          prep === null ? "?" : (prep / 1000).toFixed(2)
        } s), peak RSS ${((m.peakRssKb ?? 0) / 1024).toFixed(0)} MB, output ${
          (outBytes / 1e6).toFixed(0)
        } MB`,
      );
    }
  } finally {
    await clearExcept(work, []).catch(() => {});
    await Deno.remove(stdoutPath).catch(() => {});
  }
  return result;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const secs = (ms: number) => (ms / 1000).toFixed(2);

/** The report section (Markdown lines). */
export function renderContainerSection(results: readonly ContainerResult[]): string[] {
  if (results.length === 0) return [];
  const out = [
    "### Containers",
    "",
    "zip members are inflated on threads and streamed to disk, then converted; the workbook's sheet is " +
    "streamed into its intermediate CSV, then converted. `-serial`: `BXP_WORKERS=0`.",
    "",
    "| point | container | CSV inside | wall (median) | preparation (median) | peak RSS |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    const wall = r.wallMs.length === 0 ? "—" : `${secs(median(r.wallMs))} s`;
    const prep = r.prepareMs.length === 0 ? "—" : `${secs(median(r.prepareMs))} s`;
    const rss = r.peakRssKb === null ? "—" : `${(r.peakRssKb / 1024).toFixed(0)} MB`;
    out.push(
      `| \`${r.point.id}\` | ${mb(r.inputBytes)} | ${mb(r.csvBytes)} | ${
        r.error ?? wall
      } | ${prep} | ${rss} |`,
    );
  }
  out.push("");
  return out;
}

/** The memory goal at each container point: peak RSS under 150 MB. */
export function containerGoals(results: readonly ContainerResult[]): GoalCheck[] {
  return results.map((r) => {
    const goal = `peak RSS under 150 MB at \`${r.point.id}\``;
    if (r.error !== undefined || r.peakRssKb === null) {
      return { goal, holds: null, detail: r.error ?? "not measured in this run" };
    }
    const rssMb = r.peakRssKb / 1024;
    return { goal, holds: rssMb <= 150, detail: `${rssMb.toFixed(0)} MB` };
  });
}
