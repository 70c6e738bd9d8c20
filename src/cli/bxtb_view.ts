/**
 * `deno task bxtb-view TRACE [--summary]`: prints a BXTB trace file (`bxp-cli --trace-file`) for a person:
 * one line per frame, then rows written, filtered and errored per input file. Streams, so a large trace
 * does not have to fit in memory.
 * @module
 */

import { parseArgs } from "node:util";
import { BxtbFormatError, type BxtbFrame, BxtbReader } from "../trace/bxtb.ts";
import { formatFrame, formatSummary, summarizeTrace } from "../trace/view.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { summary: { type: "boolean", default: false }, help: { type: "boolean", default: false } },
  allowPositionals: true,
});
if (values.help || positionals.length !== 1) {
  console.error("usage: bxtb-view TRACE.bxtb [--summary]   (prints a bxp-cli --trace-file trace)");
  Deno.exit(values.help ? 0 : 1);
}

const encoder = new TextEncoder();
/** Writes all of `text`; a reader that went away (`bxtb-view run.bxtb | head`) ends the program quietly. */
function write(text: string): void {
  const bytes = encoder.encode(text);
  try {
    let at = 0;
    while (at < bytes.length) at += Deno.stdout.writeSync(bytes.subarray(at));
  } catch (err) {
    if (err instanceof Deno.errors.BrokenPipe) Deno.exit(0);
    throw err;
  }
}
// The summary only needs counts; keep per-file totals rather than every frame.
const kept: BxtbFrame[] = [];
try {
  using file = await Deno.open(positionals[0]);
  const reader = new BxtbReader();
  const show = (frames: BxtbFrame[]) => {
    let text = "";
    for (const f of frames) {
      if (!values.summary) text += formatFrame(f) + "\n";
      kept.push(
        f.type === "output_row" || f.type === "filtered_row" || f.type === "error_row" ? compact(f) : f,
      );
    }
    if (text !== "") write(text);
  };
  for await (const chunk of file.readable) show(reader.push(chunk));
  reader.finish();
} catch (err) {
  const what = err instanceof BxtbFormatError ? "not a valid BXTB trace" : "cannot read the trace";
  console.error(`error: ${positionals[0]}: ${what}: ${(err as Error).message}`);
  Deno.exit(1);
}
write((values.summary ? "" : "\n") + formatSummary(summarizeTrace(kept)));

/** Row frames with their strings dropped: the summary counts them, it does not print them. */
function compact(f: BxtbFrame): BxtbFrame {
  if (f.type === "error_row") return { ...f, detail: "", varName: "" };
  return f;
}
