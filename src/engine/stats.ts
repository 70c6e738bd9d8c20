/**
 * Run accounting: warnings, fatal flag, timings and row counters per section (template, pre-pass, overall),
 * and bxp's summary lines.
 *
 * @example
 * ```ts
 * import { newStats, summaryLine } from "./stats.ts";
 * const s = newStats();
 * s.warnings = 2;
 * summaryLine(s); // "summary: errors:0 warnings:2 time:0.000s"
 * ```
 * @module
 */

/** Counters of one section of a run. */
export interface SectionStats {
  warnings: number;
  hasFatal: boolean;
  /** Wall time in milliseconds (fractional). */
  timeMs: number;
  /** Input files processed (files skipped by `--fresh` do not count). */
  files: number;
  /** Source records read. */
  rowsIn: number;
  /** Output rows written. */
  rowsOut: number;
}

/** A zeroed section. */
export function newStats(): SectionStats {
  return { warnings: 0, hasFatal: false, timeMs: 0, files: 0, rowsIn: 0, rowsOut: 0 };
}

/** Adds `other` into `into`. */
export function mergeStats(into: SectionStats, other: SectionStats): void {
  into.warnings += other.warnings;
  into.hasFatal ||= other.hasFatal;
  into.timeMs += other.timeMs;
  into.files += other.files;
  into.rowsIn += other.rowsIn;
  into.rowsOut += other.rowsOut;
}

function formatTime(ms: number): string {
  const total = Math.max(0, Math.floor(ms));
  const secs = Math.floor(total / 1000);
  return `${secs}.${String(total % 1000).padStart(3, "0")}s`;
}

function counts(s: SectionStats): string {
  return `errors:${s.hasFatal ? 1 : 0} warnings:${s.warnings} time:${formatTime(s.timeMs)}`;
}

/** The per-section summary line bxp prints after each template and pre-pass. */
export function summaryLine(s: SectionStats): string {
  return `summary: ${counts(s)}`;
}

/** The overall line printed last. */
export function overallLine(s: SectionStats): string {
  return counts(s);
}

/** Exit status: 1 on any fatal, 2 on warnings, else 0. */
export function exitCodeOf(s: SectionStats): 0 | 1 | 2 {
  return s.hasFatal ? 1 : s.warnings > 0 ? 2 : 0;
}
