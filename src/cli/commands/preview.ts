/**
 * `bxp-cli --preview N`: a dry run that shows the first N rows of every output as an aligned table. The
 * real pipeline runs (same config checks, rules, filters and output formatting) over the files a run
 * would read, but outputs stay in memory: nothing is written. Works with `--config`, `--template`,
 * `--data`, and with a library template when there is no config.
 * @module
 */

import { basename } from "../../util/host_path.ts";
import { parseCsvBytes } from "../../formats/csv_reader.ts";
import { decodeBytes } from "../../formats/encoding.ts";
import { sniffCsv } from "../../draft/mod.ts";
import { parseCliArgs } from "../args.ts";
import { flagValue } from "../argv.ts";
import { configSource } from "../config_source.ts";
import { writeStdout } from "./out.ts";
import { type CapturedOutput, OverlayFs } from "./overlay_fs.ts";
import { runConversionCommand } from "../conversion_run.ts";

/** The longest cell shown; longer values are cut with an ellipsis. */
const CELL_MAX = 40;

/** The argument vector without `flag` and its value. */
export function withoutFlag(args: readonly string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) i++;
    else if (!args[i].startsWith(flag + "=")) out.push(args[i]);
  }
  return out;
}

function cut(s: string): string {
  const chars = [...s.replace(/[\r\n\t]/g, " ")];
  return chars.length > CELL_MAX ? chars.slice(0, CELL_MAX - 1).join("") + "…" : chars.join("");
}

/** Rows as a table with columns padded to their widest cell. */
export function alignedTable(rows: readonly (readonly string[])[]): string {
  const cells = rows.map((r) => r.map(cut));
  const widths: number[] = [];
  for (const r of cells) r.forEach((c, i) => widths[i] = Math.max(widths[i] ?? 0, [...c].length));
  return cells.map((r) =>
    r.map((c, i) => i === r.length - 1 ? c : c + " ".repeat(widths[i] - [...c].length)).join("  ")
      .trimEnd()
  ).join("\n");
}

function showOutput(o: CapturedOutput, limit: number): string {
  const name = basename(o.path);
  const head = new TextDecoder().decode(o.bytes.subarray(0, 64)).trimStart();
  if (head.startsWith("[") || head.startsWith("{")) {
    const lines = decodeBytes(o.bytes, "utf-8").split("\n");
    return `== ${name} (JSON, first ${Math.min(limit, lines.length)} lines)\n${
      lines.slice(0, limit).join("\n")
    }`;
  }
  const s = sniffCsv(o.bytes, { maxRecords: 1 });
  const records = parseCsvBytes(o.bytes, { delimiter: s.delimiter, quote: "double", encoding: s.encoding })
    .records.map((r) => r.fields);
  const total = Math.max(0, records.length - 1);
  const shown = records.slice(0, limit + 1);
  return `== ${name} (${total} row(s)${total > limit ? `, first ${limit}` : ""})\n${alignedTable(shown)}`;
}

/** The `--preview` mode (see `mod.ts`): runs with the whole argument vector, resolves with the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const nText = flagValue(args, "--preview") ?? "";
  if (!/^\d{1,7}$/.test(nText) || Number(nText) === 0) {
    console.error("error: --preview needs a row count from 1 to 9999999, e.g. --preview 10");
    return 1;
  }
  const limit = Number(nText);
  const source = await configSource(args);
  if ("error" in source) {
    console.error(`error: ${source.error}`);
    return 1;
  }
  const rest = withoutFlag(withoutFlag(args, "--preview"), "--config");
  const req = parseCliArgs(rest.some((a) => a === "--quiet") ? rest : [...rest, "--quiet"]);
  if (req.kind !== "run") {
    console.error(
      req.kind === "error" ? `error: ${req.message}` : "error: --preview takes no --help/--version",
    );
    return 1;
  }
  // Nothing may be written: outputs stay in the overlay, and no trace or findings file is opened.
  const o = { ...req.options, dryRun: false, traceFile: null, findingsFile: null, debugJson: false };
  const fs = new OverlayFs(source.base);
  const code = await runConversionCommand(o, {
    text: source.text,
    label: source.label,
    dir: source.base,
    fs,
  });
  const parts = fs.outputs.map((out) => showOutput(out, limit));
  if (parts.length === 0) parts.push("(no output: no input file matched, or every row was filtered)");
  writeStdout(parts.join("\n\n") + "\n");
  return code;
}
