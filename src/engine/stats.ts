/**
 * Run accounting: warnings, fatal flag, timings and row counters per section (template, pre-pass, overall),
 * and bxp's summary lines.
 *
 * @example
 * ```ts
 * import { newStats, summaryLine } from "./stats.ts";
 * import assert from "node:assert/strict";
 * const s = newStats();
 * s.warnings = 2;
 * assert.equal(summaryLine(s), "summary: errors:0 warnings:2 time:0.000s");
 * ```
 * @module
 */

import type { Finding } from "./findings.ts";

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
  /** Rows dropped because no row rule matched. */
  filteredNoRuleMatch: number;
  /** Records whose matching rule emitted no row. */
  filteredRuleSkip: number;
  /** Rows dropped by the filename date filter. */
  filteredDate: number;
  /** input_schema expression failures (the value became ""). */
  exprErrors: number;
  /** Paths of the outputs this section wrote (committed), in order. */
  outputs: string[];
  /** What the run found suspicious (errors under `--strict`). */
  findings: Finding[];
}

/** A zeroed section. */
export function newStats(): SectionStats {
  return {
    warnings: 0,
    hasFatal: false,
    timeMs: 0,
    files: 0,
    rowsIn: 0,
    rowsOut: 0,
    filteredNoRuleMatch: 0,
    filteredRuleSkip: 0,
    filteredDate: 0,
    exprErrors: 0,
    outputs: [],
    findings: [],
  };
}

/** Adds `other` into `into`. */
export function mergeStats(into: SectionStats, other: SectionStats): void {
  into.warnings += other.warnings;
  into.hasFatal ||= other.hasFatal;
  into.timeMs += other.timeMs;
  into.files += other.files;
  into.rowsIn += other.rowsIn;
  into.rowsOut += other.rowsOut;
  into.filteredNoRuleMatch += other.filteredNoRuleMatch;
  into.filteredRuleSkip += other.filteredRuleSkip;
  into.filteredDate += other.filteredDate;
  into.exprErrors += other.exprErrors;
  into.outputs.push(...other.outputs);
  into.findings.push(...other.findings);
}

function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The lines bxp-cli adds after a template's `summary:` line: what was read, written and dropped, and where
 * the outputs went, so a run that wrote nothing never reads like one that wrote millions of rows.
 *
 * @example
 * ```ts
 * import { detailLines, newStats } from "./stats.ts";
 * import assert from "node:assert/strict";
 * const s = newStats();
 * s.files = 1;
 * s.rowsIn = 3;
 * s.rowsOut = 2;
 * s.filteredNoRuleMatch = 1;
 * s.outputs.push("in/a.csvx");
 * assert.deepEqual(detailLines(s, false), [
 *   "  read 1 file, 3 records in, 2 rows written",
 *   "  filtered: 1 no_rule_match, 0 rule_skip, 0 date_filter",
 *   "  expression errors: 0",
 *   "  output: in/a.csvx",
 * ]);
 * ```
 */
export function detailLines(s: SectionStats, dryRun: boolean): string[] {
  const lines = [
    `  read ${plural(s.files, "file")}, ${plural(s.rowsIn, "record")} in, ${
      plural(s.rowsOut, "row")
    } written`,
    `  filtered: ${s.filteredNoRuleMatch} no_rule_match, ${s.filteredRuleSkip} rule_skip, ${s.filteredDate} date_filter`,
    `  expression errors: ${s.exprErrors}`,
  ];
  if (dryRun) lines.push("  output: none (--dry-run)");
  else if (s.outputs.length === 0) lines.push("  output: none written");
  for (const o of s.outputs) lines.push(`  output: ${o}`);
  return lines;
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
