/**
 * The bench's Ray point: the 1M-row bench workload converted by bxp-cli and by the Ray job
 * (`integrations/ray/bxp_ray.py`) on a local Ray cluster of two CPUs, both wall times reported and the two
 * outputs compared byte for byte. On two cores Ray adds overhead (cluster start, a process per piece, the
 * pieces' rows through the object store); the figure is there to keep the distributed path honest and exact.
 *
 * `benchRay` is not run by the example, because it starts a Ray cluster; the example renders the report
 * section of results made by hand.
 *
 * @example
 * ```ts
 * import { renderRaySection } from "./ray.ts";
 * import assert from "node:assert/strict";
 * const skipped = renderRaySection({ kind: "skipped", reason: "no Python with Ray" });
 * assert.ok(skipped.endsWith("\nSkipped: no Python with Ray\n"));
 * const ran = renderRaySection({
 *   kind: "ran", rows: 1000, inputMb: 0.1, pieces: 1, rayVersion: "2.0.0",
 *   bxpCliSeconds: 1, raySeconds: 3, difference: null, error: null,
 * });
 * assert.ok(ran.includes("| 1000 × 16 | 0 | 1 | 1.00 | 3.00 | 3.00x | identical |"));
 * ```
 * @module
 */

import { join } from "node:path";
import { BENCH_TEMPLATE } from "./config.ts";
import { compareFiles, prepareInput } from "./files.ts";
import { runMeasured } from "./measure.ts";
import { bxpCliCommand, findRayPython, RAY_JOB } from "../ray_env.ts";

/** The Ray point's outcome. */
export type RayResult =
  | { kind: "skipped"; reason: string }
  | {
    kind: "ran";
    rows: number;
    inputMb: number;
    pieces: number;
    rayVersion: string;
    bxpCliSeconds: number;
    raySeconds: number;
    /** null when identical, else where they differ. */
    difference: string | null;
    error: string | null;
  };

/** Rows of the Ray point's input. */
export const RAY_ROWS = 1_000_000;
/** Piece size the job is given. */
export const RAY_PIECE_BYTES = 32 * 1024 * 1024;

/** Runs the Ray point. */
export async function benchRay(opts: {
  benchDir: string;
  progress: (message: string) => void;
  rows?: number;
}): Promise<RayResult> {
  const env = await findRayPython();
  if ("skip" in env) return { kind: "skipped", reason: env.skip };
  const rows = opts.rows ?? RAY_ROWS;
  opts.progress(`ray: preparing the ${rows}-row input`);
  const input = await prepareInput(join(opts.benchDir, "data"), { rows, cols: 16 });
  const cli = await bxpCliCommand();
  opts.progress("ray: bxp-cli on the input");
  const plain = await runMeasured({
    argv: [...cli, "--config", input.configPath["3expr"], "--quiet"],
    cwd: input.dir,
  });
  const out = join(input.dir, "ray-out");
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.mkdir(out);
  opts.progress("ray: the Ray job on a local cluster (num_cpus=2)");
  const job = await runMeasured({
    argv: [
      env.python,
      RAY_JOB,
      "--config",
      input.configPath["3expr"],
      "--template",
      BENCH_TEMPLATE,
      "--output",
      out,
      "--num-cpus",
      "2",
      "--piece-bytes",
      String(RAY_PIECE_BYTES),
      "--quiet",
      "--bxp-cli",
      cli.map((a) => `'${a}'`).join(" "),
      input.inputPath,
    ],
    cwd: input.dir,
    env: { RAY_DISABLE_USAGE_STATS: "1" },
  });
  const rayOutput = join(out, input.outputPath["3expr"].slice(input.dir.length + 1));
  let difference: string | null = null;
  let error: string | null = null;
  if (plain.code !== 0) error = `bxp-cli exited ${plain.code}: ${plain.stderr.slice(-300)}`;
  else if (job.code !== 0) error = `the Ray job exited ${job.code}: ${job.stderr.slice(-300)}`;
  else {
    const cmp = await compareFiles(input.outputPath["3expr"], rayOutput);
    difference = cmp.identical ? null : JSON.stringify(cmp);
  }
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.remove(input.outputPath["3expr"]).catch(() => {});
  return {
    kind: "ran",
    rows,
    inputMb: input.bytes / 1e6,
    pieces: Math.ceil(input.bytes / RAY_PIECE_BYTES),
    rayVersion: env.version,
    bxpCliSeconds: plain.wallMs / 1000,
    raySeconds: job.wallMs / 1000,
    difference,
    error,
  };
}

/** The report section. */
export function renderRaySection(r: RayResult): string {
  const lines = ["", "## Ray local cluster (integrations/ray/bxp_ray.py)", ""];
  if (r.kind === "skipped") return [...lines, `Skipped: ${r.reason}`, ""].join("\n");
  lines.push(
    "| input | MB | pieces | bxp-cli s | Ray job s (2 CPUs, incl. cluster start) | Ray / bxp-cli | output |",
    "| ----- | -- | ------ | --------- | --------------------------------------- | ------------- | ------ |",
    `| ${r.rows} × 16 | ${r.inputMb.toFixed(0)} | ${r.pieces} | ${r.bxpCliSeconds.toFixed(2)} | ` +
      `${r.raySeconds.toFixed(2)} | ${(r.raySeconds / r.bxpCliSeconds).toFixed(2)}x | ` +
      `${r.error !== null ? "error" : r.difference === null ? "identical" : "DIFFERENT"} |`,
    "",
    `Ray ${r.rayVersion}. On two cores the job pays for the cluster start, one bxp-cli process per piece and ` +
      "the rows' trip through the object store; its point is exactness and a path to many machines.",
  );
  if (r.error !== null) lines.push("", `Error: ${r.error}`);
  if (r.difference !== null) lines.push("", `Difference: ${r.difference}`);
  return lines.join("\n") + "\n";
}
