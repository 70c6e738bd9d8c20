/**
 * The benchmark's points: rows 100k / 500k / 2M at 16 columns, 100k rows at 4 / 64 / 256 / 1024
 * columns, trace on beside trace off, and pass-through only. Ids are short and shell-friendly for `--only`.
 * @module
 */

import type { BenchMode } from "./config.ts";

/** One bxp-cli configuration to measure. */
export interface BenchPoint {
  /** e.g. `r2m-c16`, `r100k-c16-trace`, `r100k-c16-pass`. */
  id: string;
  rows: number;
  cols: number;
  mode: BenchMode;
  /** Run with `--trace-file`. Trace points have no peer (nothing comparable); they pair with trace off. */
  trace: boolean;
}

function rowsLabel(rows: number): string {
  if (rows % 1_000_000 === 0) return `${rows / 1_000_000}m`;
  if (rows % 1_000 === 0) return `${rows / 1_000}k`;
  return String(rows);
}

/** Builds a point with its id. */
export function point(rows: number, cols: number, mode: BenchMode = "3expr", trace = false): BenchPoint {
  const id = `r${rowsLabel(rows)}-c${cols}${mode === "passthrough" ? "-pass" : ""}${trace ? "-trace" : ""}`;
  return { id, rows, cols, mode, trace };
}

/** Every point of the full table, in report order. */
export const FULL_POINTS: readonly BenchPoint[] = [
  point(100_000, 16),
  point(500_000, 16),
  point(2_000_000, 16),
  point(100_000, 4),
  point(100_000, 64),
  point(100_000, 256),
  point(100_000, 1024),
  point(100_000, 16, "3expr", true),
  point(500_000, 16, "3expr", true),
  point(2_000_000, 16, "3expr", true),
  point(100_000, 16, "passthrough"),
];

/** The `--quick` subset: small inputs covering every kind of point. */
export const QUICK_POINT_IDS: readonly string[] = [
  "r100k-c16",
  "r100k-c4",
  "r100k-c16-trace",
  "r100k-c16-pass",
];

/** The trace-off point a trace-on point is compared with. */
export function traceBaselineId(p: BenchPoint): string {
  return point(p.rows, p.cols, p.mode, false).id;
}

/**
 * How many times to run a point (the median is reported): more for small inputs where noise dominates,
 * once for the largest so the full table fits in ten minutes on two cores.
 */
export function repeatsFor(inputBytes: number): number {
  if (inputBytes <= 50e6) return 3;
  if (inputBytes <= 200e6) return 2;
  return 1;
}
