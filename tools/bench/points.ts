/**
 * The benchmark's points: rows 50k / 100k / 500k / 2M / 10M at 16 columns, 100k rows at 4 / 64 / 256 /
 * 1024 columns, trace on beside trace off, pass-through only, an expression failing on every row beside the
 * same run without it, every field quoted beside unquoted, JSON output beside CSV output, the 50k and 2M
 * points serial (`BXP_WORKERS=0`) and writing into a slow sink. Ids are short and shell-friendly for `--only`.
 * @module
 */

import type { BenchMode } from "./config.ts";

/** One bxp-cli configuration to measure. */
export interface BenchPoint {
  /** e.g. `r2m-c16`, `r100k-c16-trace`, `r100k-c16-pass`, `r100k-c16-errors`. */
  id: string;
  rows: number;
  cols: number;
  mode: BenchMode;
  /** Run with `--trace-file`. Trace points have no peer (nothing comparable); they pair with trace off. */
  trace: boolean;
  /**
   * `serial`: `BXP_WORKERS=0` (the parallel mode's speedup is measured against it). `slow-sink`: the trace
   * goes to a FIFO a child drains at {@link SLOW_SINK_BYTES_PER_SECOND}, so the engine writes into a sink
   * slower than itself and must stall, not buffer. Variant points have no peer.
   */
  variant?: "serial" | "slow-sink";
  /**
   * Every input field between double quotes (spreadsheet and CRM exports): the same values, so the same
   * output, compared with the unquoted point of the same shape.
   */
  quoted?: boolean;
}

/** How fast the slow sink's reader drains the FIFO: far below the engine's trace rate. */
export const SLOW_SINK_BYTES_PER_SECOND = 5_000_000;

function rowsLabel(rows: number): string {
  if (rows % 1_000_000 === 0) return `${rows / 1_000_000}m`;
  if (rows % 1_000 === 0) return `${rows / 1_000}k`;
  return String(rows);
}

/** Builds a point with its id. */
export function point(
  rows: number,
  cols: number,
  mode: BenchMode = "3expr",
  trace = false,
  variant?: "serial" | "slow-sink",
  quoted = false,
): BenchPoint {
  const suffix = variant === "serial" ? "-serial" : variant === "slow-sink" ? "-slow" : "";
  const modeSuffix = mode === "passthrough"
    ? "-pass"
    : mode === "errors"
    ? "-errors"
    : mode === "json"
    ? "-json"
    : "";
  const id = `r${rowsLabel(rows)}-c${cols}${modeSuffix}${quoted ? "-quoted" : ""}${
    trace ? "-trace" : ""
  }${suffix}`;
  const p: BenchPoint = variant === undefined
    ? { id, rows, cols, mode, trace }
    : { id, rows, cols, mode, trace, variant };
  return quoted ? { ...p, quoted } : p;
}

/** The point with every input field quoted, of the same shape and config. */
export function quotedPoint(rows: number, cols: number): BenchPoint {
  return point(rows, cols, "3expr", false, undefined, true);
}

/** The unquoted point a quoted one is compared with. */
export function quotedBaselineId(p: BenchPoint): string {
  return point(p.rows, p.cols, p.mode, p.trace, p.variant).id;
}

/** Every point of the full table, in report order. */
export const FULL_POINTS: readonly BenchPoint[] = [
  // A mid-size input (14 MB), default and serial: the worker threads must not make it slower (they join
  // only when the forecast work pays for them, see engine/parallel/worker_ramp.ts).
  point(50_000, 16),
  point(50_000, 16, "3expr", false, "serial"),
  point(100_000, 16),
  point(500_000, 16),
  point(2_000_000, 16),
  point(2_000_000, 16, "3expr", false, "serial"),
  point(10_000_000, 16),
  point(2_000_000, 16, "3expr", false, "slow-sink"),
  point(100_000, 4),
  point(100_000, 64),
  point(100_000, 256),
  point(100_000, 1024),
  point(100_000, 16, "3expr", true),
  point(500_000, 16, "3expr", true),
  point(2_000_000, 16, "3expr", true),
  point(100_000, 16, "passthrough"),
  point(100_000, 16, "errors"),
  point(500_000, 16, "errors"),
  point(100_000, 16, "json"),
  point(500_000, 16, "json"),
  quotedPoint(100_000, 16),
  quotedPoint(500_000, 16),
];

/** The `--quick` subset: small inputs covering every kind of point. */
export const QUICK_POINT_IDS: readonly string[] = [
  "r100k-c16",
  "r100k-c4",
  "r100k-c16-trace",
  "r100k-c16-pass",
  "r100k-c16-errors",
  "r100k-c16-quoted",
  "r100k-c16-json",
];

/** The default-mode point a variant point (serial, slow sink) is compared with. */
export function variantBaselineId(p: BenchPoint): string {
  return point(p.rows, p.cols, p.mode, p.trace).id;
}

/** The trace-off point a trace-on point is compared with. */
export function traceBaselineId(p: BenchPoint): string {
  return point(p.rows, p.cols, p.mode, false).id;
}

/**
 * The config a point is paired with, run in alternation with its own runs: a trace-on point's trace-off
 * twin, an `errors` point's error-free twin and a `json` point's CSV twin (both `3expr`); null for others.
 */
export function pairedTwin(p: BenchPoint): BenchPoint | null {
  if (p.trace) return { ...p, trace: false };
  if (p.mode === "errors" || p.mode === "json") return { ...p, mode: "3expr" };
  return null;
}

/** What a paired twin's runs are called in the bench's progress lines. */
export function twinLabel(p: BenchPoint): string {
  return p.trace ? "trace off" : p.mode === "json" ? "CSV output" : "without errors";
}

/**
 * The `3expr` point of the same shape, which an `errors` point (without the error) and a `json` point (CSV
 * output) are compared with when they have no twin runs of their own.
 */
export function plainBaselineId(p: BenchPoint): string {
  return point(p.rows, p.cols, "3expr", p.trace, p.variant).id;
}

/** The point the wall-time goals are judged on (against DuckDB and Miller, and the 6.5 s bound). */
export const GOAL_POINT_ID = "r2m-c16";

/**
 * How many times to run a point (the median is reported): a goal is judged on the median of at least three
 * runs, and small inputs, where startup noise dominates, get five. So does the goal point: its ratio to
 * DuckDB sits near 1.0x while this machine's speed drifts by more than that, so the report also gives the
 * ratio of each round (a bxp-cli run and the peer's run right after it) and more rounds narrow it.
 *
 * @example
 * ```ts
 * import { GOAL_POINT_ID, repeatsFor } from "./points.ts";
 * import assert from "node:assert/strict";
 * assert.equal(repeatsFor(30e6), 5);
 * assert.equal(repeatsFor(578e6), 3);
 * assert.equal(repeatsFor(578e6, GOAL_POINT_ID), 5);
 * ```
 */
export function repeatsFor(inputBytes: number, id?: string): number {
  return inputBytes <= 50e6 || id === GOAL_POINT_ID ? 5 : 3;
}

/** Runs of a container point (wall time and peak RSS are the medians of these). */
export const CONTAINER_REPEATS = 3;

/**
 * A container point: a zip of several workload CSVs (`zip_input`, members unpacked on threads, then
 * converted), or a large workbook generated on the fly (`xlsx_sheet`, the sheet streamed). Measured for wall
 * time and peak RSS against the memory goal; `serial` runs the same with `BXP_WORKERS=0`. None is part of
 * `--quick`; the serial ones run only when named with `--only`.
 */
export interface ContainerPoint {
  id: string;
  kind: "zip" | "xlsx";
  /** zip: members, each a workload CSV of `rows` × `cols`. */
  members?: number;
  rows?: number;
  cols?: number;
  /** xlsx: the workbook's compressed size. */
  targetBytes?: number;
  serial: boolean;
}

/** Every container point, in report order. */
export const CONTAINER_POINTS: readonly ContainerPoint[] = [
  { id: "zip-4x500k-c16", kind: "zip", members: 4, rows: 500_000, cols: 16, serial: false },
  { id: "zip-4x500k-c16-serial", kind: "zip", members: 4, rows: 500_000, cols: 16, serial: true },
  { id: "xlsx-200mb", kind: "xlsx", targetBytes: 200_000_000, serial: false },
  { id: "xlsx-200mb-serial", kind: "xlsx", targetBytes: 200_000_000, serial: true },
];

/** The container points a full run includes (the serial twins only when named). */
export const CONTAINER_DEFAULT_IDS: readonly string[] = ["zip-4x500k-c16", "xlsx-200mb"];
