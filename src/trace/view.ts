/**
 * A human view of a BXTB trace: one readable line per frame, then a per-file summary.
 *
 * @example
 * ```ts
 * import { formatFrame } from "./view.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   formatFrame({ type: "output_row", chunkId: 0, sourceLocator: 1234, outputIdx: 3, ruleIdx: 0, action: "BUY" }),
 *   "output_row    @1234  #3 rule=0 BUY",
 * );
 * ```
 * @module
 */

import type { BxtbFrame, FileStartFrame } from "./bxtb.ts";

const LABEL_WIDTH = 14;

function label(name: string): string {
  return name.padEnd(LABEL_WIDTH);
}

/** Quote a string for display when it is empty or has spaces or control characters. */
function shown(value: string): string {
  return value === "" || /[\s"\\\p{Cc}]/u.test(value) ? JSON.stringify(value) : value;
}

/** One line for one frame. */
export function formatFrame(frame: BxtbFrame): string {
  switch (frame.type) {
    case "file_start":
      return `${label("file_start")}${frame.template} ${shown(frame.path)} (${frame.inputFormat}, ` +
        `${frame.headers.length} headers: ${frame.headers.map(shown).join(", ")})`;
    case "file_end":
      return `${label("file_end")}source=${frame.sourceRows} written=${frame.writtenRows} ` +
        `errors=${frame.errors} warnings=${frame.warnings}`;
    case "output_row":
      return `${label("output_row")}@${frame.sourceLocator}  #${frame.outputIdx} rule=${frame.ruleIdx}` +
        (frame.action === "" ? "" : ` ${shown(frame.action)}`);
    case "filtered_row":
      return `${label("filtered_row")}@${frame.sourceLocator}  ${frame.reason}`;
    case "error_row":
      return `${label("error_row")}@${frame.sourceLocator}  ${frame.varName} ${frame.errorKind}` +
        (frame.detail === "" ? "" : ` ${shown(frame.detail)}`) + ` (${frame.origin})`;
    case "prepass_entry":
      return `${label("prepass_entry")}${frame.name}[${shown(frame.key)}].${frame.field} = ${
        shown(frame.value)
      }`;
    case "done":
      return `${label("done")}exit=${frame.exitCode}`;
  }
}

/** Counts for one input file, from its frames. */
export interface FileTraceSummary {
  template: string;
  path: string;
  inputFormat: FileStartFrame["inputFormat"];
  /** Rows counted from output_row frames. */
  written: number;
  /** Rows counted from filtered_row frames, by reason. */
  filtered: Record<string, number>;
  /** error_row frames. */
  errors: number;
  prepassEntries: number;
  /** The file_end counts, when the frame arrived. */
  end: { sourceRows: number; writtenRows: number; errors: number; warnings: number } | null;
}

/** Whole-trace summary. */
export interface TraceSummary {
  files: FileTraceSummary[];
  /** The done frame's exit code; null when the trace has none (the run crashed). */
  exitCode: number | null;
  /** Frames seen outside any file (should not happen). */
  strayFrames: number;
}

/** Summarise frames per file. */
export function summarizeTrace(frames: readonly BxtbFrame[]): TraceSummary {
  const files: FileTraceSummary[] = [];
  let current: FileTraceSummary | null = null;
  let exitCode: number | null = null;
  let strayFrames = 0;
  for (const frame of frames) {
    switch (frame.type) {
      case "file_start":
        current = {
          template: frame.template,
          path: frame.path,
          inputFormat: frame.inputFormat,
          written: 0,
          filtered: {},
          errors: 0,
          prepassEntries: 0,
          end: null,
        };
        files.push(current);
        break;
      case "file_end":
        if (current) {
          current.end = {
            sourceRows: frame.sourceRows,
            writtenRows: frame.writtenRows,
            errors: frame.errors,
            warnings: frame.warnings,
          };
          current = null;
        } else strayFrames++;
        break;
      case "done":
        exitCode = frame.exitCode;
        break;
      default:
        if (!current) {
          strayFrames++;
          break;
        }
        if (frame.type === "output_row") current.written++;
        else if (frame.type === "filtered_row") {
          current.filtered[frame.reason] = (current.filtered[frame.reason] ?? 0) + 1;
        } else if (frame.type === "error_row") current.errors++;
        else current.prepassEntries++;
    }
  }
  return { files, exitCode, strayFrames };
}

/** Text of a summary: one line per file, then the exit line. */
export function formatSummary(summary: TraceSummary): string {
  const lines: string[] = [];
  for (const f of summary.files) {
    const filtered = Object.entries(f.filtered).map(([reason, n]) => `${reason}=${n}`).join(" ");
    const total = Object.values(f.filtered).reduce((a, b) => a + b, 0);
    let line = `${f.template} ${shown(f.path)}: written=${f.written} filtered=${total}` +
      (filtered === "" ? "" : ` (${filtered})`) + ` errors=${f.errors}`;
    if (f.prepassEntries > 0) line += ` prepass=${f.prepassEntries}`;
    line += f.end === null ? " [no file_end]" : ` [source=${f.end.sourceRows} warnings=${f.end.warnings}]`;
    lines.push(line);
  }
  lines.push(
    summary.exitCode === null ? "no done frame: the run did not finish" : `exit=${summary.exitCode}`,
  );
  if (summary.strayFrames > 0) lines.push(`${summary.strayFrames} frame(s) outside any file`);
  return lines.join("\n") + "\n";
}

/** The whole human view: every frame, a blank line, the summary. */
export function renderTrace(frames: readonly BxtbFrame[]): string {
  const body = frames.map(formatFrame).join("\n");
  return (body === "" ? "" : body + "\n") + "\n" + formatSummary(summarizeTrace(frames));
}
