/**
 * bxp-cli's partition modes: the building blocks of a distributed run (the Ray job in `integrations/ray/`).
 * bxp never lets a record span lines, so an input can be cut at any newline and each piece converted on its
 * own, given the file's head (BOM, preamble and header line), its name and the number of the piece's first
 * record; pre_pass tables are collected per piece and merged before the conversion pass.
 *
 * - `--partition-plan`: stdin `{"names": [...]}` (a folder listing) -> the inputs in bxp's order, their output
 *   names, the combined output name and the output header bytes (JSON on stdout).
 * - `--partition-prepass`: stdin a piece -> `{"records": n, "entries": [[block, key, field, value, record]],
 *   "writes": [[block, key, count, first, second]]}`. With `prepass_aggregate` in the plan (a block `sum`s,
 *   `count`s or keeps the `first` value) the pieces' entry lists go to `--lookups` unmerged; else they may be
 *   merged first (per (block, key, field) the highest record). The `writes` go to the summary per file.
 * - `--partition-convert`: stdin a piece -> its output rows (no header) on stdout; counters to `--stats-file`.
 * - `--partition-summary`: stdin every piece's counters -> bxp-cli's messages, summary and exit status.
 *
 * Exit status 1 with `error:` / `fatal error:` is a final answer (bad input, bad config, a fatal record);
 * any other failure (a crash, a kill) is worth retrying.
 *
 * @example
 * ```sh
 * tail -c +1201 in.csv | bxp-cli --partition-convert --config c.json --template t --file in.csv \
 *   --head head.bin --first-record 41 --stats-file piece.json > piece.csv
 * ```
 * @module
 */

import { CsvRecordTooLongError } from "../../formats/csv_reader.ts";
import { UncomparableDateError } from "../../engine/mod.ts";
import { PrePassAggregateError } from "../../engine/mod.ts";
import { combinedName, outputCollision, selectInputs } from "../../engine/mod.ts";
import { isPlainFileName, outputName } from "../../engine/mod.ts";
import { createRowWriter } from "../../engine/mod.ts";
import { exitCodeOf } from "../../engine/mod.ts";
import type { Reporter } from "../../engine/mod.ts";
import { ExprError } from "../../lang/mod.ts";
import { flagValue, hasFlag } from "../argv.ts";
import { convertPiece, type LookupEntry, mergeLookups, prePassPiece } from "./piece.ts";
import { fileFacts, intFlag, loadSetup, PartitionError, type PartitionSetup, requiredFlag } from "./setup.ts";
import { summarize, type SummaryRequest, UTF8_SAMPLE_BYTES } from "./summary.ts";
import { writeAll } from "../../util/write_all.ts";

/** Cap on the JSON requests read from stdin by the plan and summary modes. */
const MAX_REQUEST_BYTES = 256 * 1024 * 1024;
/** Cap on a head file (preamble + header line) and on a lookups file. */
const MAX_HEAD_BYTES = 16 * 1024 * 1024;
const MAX_LOOKUP_BYTES = 1024 * 1024 * 1024;

const encoder = new TextEncoder();

/** Writes all of `bytes` to stdout. */
function writeOut(bytes: Uint8Array): Promise<void> {
  return writeAll(Deno.stdout, bytes);
}

async function readStdin(limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of Deno.stdin.readable) {
    total += chunk.length;
    if (total > limit) throw new PartitionError(`stdin is over the ${limit}-byte limit of this mode`);
    parts.push(chunk);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function readJson(what: string, bytes: Uint8Array): Promise<unknown> {
  try {
    return await Promise.resolve(JSON.parse(new TextDecoder().decode(bytes)));
  } catch (err) {
    throw new PartitionError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}

async function readFileCapped(flag: string, path: string, limit: number): Promise<Uint8Array> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) throw new PartitionError(`${flag} '${path}' is not a regular file`);
    if (info.size > limit) throw new PartitionError(`${flag} '${path}' is over the ${limit}-byte limit`);
    return await Deno.readFile(path);
  } catch (err) {
    if (err instanceof PartitionError) throw err;
    throw new PartitionError(`cannot read ${flag} '${path}': ${(err as Error).message}`);
  }
}

/** The file's facts from `--file` and `--head`. */
async function pieceFacts(setup: PartitionSetup, args: readonly string[]) {
  const name = requiredFlag(args, "--file");
  const headPath = flagValue(args, "--head");
  const head = headPath === null
    ? new Uint8Array(0)
    : await readFileCapped("--head", headPath, MAX_HEAD_BYTES);
  if (headPath === null && setup.template.csvHeaderLine > 0) {
    throw new PartitionError(
      `--head FILE is required: template '${setup.template.id}' reads its header from line ` +
        `${setup.template.csvHeaderLine}`,
    );
  }
  return fileFacts(setup, name, head);
}

function isEntryList(v: unknown): v is LookupEntry[] {
  return Array.isArray(v) &&
    v.every((e) =>
      Array.isArray(e) && e.length === 5 && e.slice(0, 4).every((x) => typeof x === "string") &&
      typeof e[4] === "number"
    );
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/**
 * How an output is put together from pieces' rows, read off the engine's own row writer: the header (CSV's
 * header line, JSON's opening bracket), the bytes between two non-empty pieces (none for CSV, `,\n` between
 * JSON objects) and the trailer (JSON's closing bracket).
 */
function outputFraming(
  setup: PartitionSetup,
): { header: Uint8Array; separator: Uint8Array; trailer: Uint8Array } {
  const headers = setup.plan.outputHeaders;
  const open = () => {
    const w = createRowWriter(setup.template, headers);
    w.writeHeader(headers);
    return { w, header: w.drain() ?? new Uint8Array(0) };
  };
  const a = open();
  a.w.finish();
  const trailer = a.w.drain() ?? new Uint8Array(0);
  const b = open();
  const mark = encoder.encode("\u0000");
  b.w.writeFragment(mark, 1);
  b.w.writeFragment(mark, 1);
  const two = b.w.drain() ?? new Uint8Array(0);
  const separator = two.subarray(mark.length, two.length - mark.length);
  return { header: a.header, separator, trailer };
}

/** Runs a mode, turning its known failures into one `error:` / `fatal error:` line and exit 1. */
async function guarded(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof PartitionError) {
      console.error(`error: ${err.message}`);
      return 1;
    }
    if (
      err instanceof CsvRecordTooLongError || err instanceof UncomparableDateError ||
      err instanceof PrePassAggregateError
    ) {
      console.error(`fatal error: ${err.message}`);
      return 1;
    }
    if (err instanceof ExprError) {
      console.error(`fatal error: ${err.error}: ${err.detail}`);
      return 1;
    }
    throw err;
  }
}

/** `--partition-plan`. */
export function partitionPlan(args: readonly string[]): Promise<number> {
  return guarded(async () => {
    const setup = await loadSetup(args);
    const req = await readJson("the plan request on stdin", await readStdin(MAX_REQUEST_BYTES));
    const names = (req as { names?: unknown })?.names;
    if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) {
      throw new PartitionError(`the plan request must be {"names": ["file.csv", ...]}`);
    }
    const t = setup.template;
    for (const n of names) {
      if (!isPlainFileName(n)) throw new PartitionError(`input name '${n}' is not a plain file name`);
    }
    if (new Set(names).size !== names.length) {
      throw new PartitionError("input names must be unique (outputs are named after them)");
    }
    for (const n of names) {
      const lower = n.toLowerCase();
      if (t.zipInput !== null && lower.endsWith(".zip")) {
        throw new PartitionError(
          `'${n}' is a zip archive (zip_input): unpack it first (a bxp-cli run does) and give the job its members`,
        );
      }
      if (t.xlsxSheet !== null && lower.endsWith(".xlsx")) {
        throw new PartitionError(
          `'${n}' is a workbook (xlsx_sheet): extract the sheet first (a bxp-cli run does) and give the job the CSV`,
        );
      }
    }
    const { inputs, ownOutputs } = selectInputs(t, names);
    const outputs = inputs.map((n) => ({
      name: n,
      output: outputName(n, t.filePatternIn, t.filePatternOut),
    }));
    for (const o of outputs) {
      if (!isPlainFileName(o.output)) {
        throw new PartitionError(`output name '${o.output}' for '${o.name}' is not a plain file name`);
      }
    }
    const combined = t.combinedOutput ? combinedName(t) : null;
    if (combined !== null && !isPlainFileName(combined)) {
      throw new PartitionError(`combined output name '${combined}' is not a plain file name`);
    }
    // The job writes every output into one folder: two of them (or an output and an input) sharing a name
    // would leave one file where the plan promised two.
    const collision = outputCollision(t, inputs);
    if (collision !== null) throw new PartitionError(`${collision}; nothing was written`);
    const framing = outputFraming(setup);
    const plan = {
      template: t.id,
      header_line: t.csvHeaderLine,
      prepass: setup.plan.prePass.length > 0,
      // The job must hand the pieces' entry lists over unmerged: only bxp-cli knows how to add them up.
      prepass_aggregate: setup.plan.prePass.some((b) => b.ops.some((o) => o !== "last")),
      header_b64: toBase64(framing.header),
      separator_b64: toBase64(framing.separator),
      trailer_b64: toBase64(framing.trailer),
      combined_name: combined,
      inputs: outputs,
      own_outputs: ownOutputs,
      ignored: names.filter((n) => !inputs.includes(n) && !ownOutputs.includes(n)),
      utf8_sample_bytes: UTF8_SAMPLE_BYTES,
    };
    await writeOut(encoder.encode(JSON.stringify(plan) + "\n"));
    return 0;
  });
}

/** `--partition-prepass`. */
export function partitionPrepass(args: readonly string[]): Promise<number> {
  return guarded(async () => {
    const setup = await loadSetup(args);
    const facts = await pieceFacts(setup, args);
    const first = intFlag(args, "--first-record", 1);
    if (first < 1) throw new PartitionError("--first-record counts from 1");
    const piece = await prePassPiece(setup, facts, first, Deno.stdin.readable);
    await writeOut(encoder.encode(JSON.stringify(piece) + "\n"));
    return 0;
  });
}

/** `--partition-convert`. */
export function partitionConvert(args: readonly string[]): Promise<number> {
  return guarded(async () => {
    const setup = await loadSetup(args);
    const facts = await pieceFacts(setup, args);
    const first = intFlag(args, "--first-record", 1);
    if (first < 1) throw new PartitionError("--first-record counts from 1");
    const statsPath = requiredFlag(args, "--stats-file");
    const lookupPath = flagValue(args, "--lookups");
    let lookups = null;
    if (setup.plan.prePass.length > 0) {
      if (lookupPath === null) {
        throw new PartitionError(
          `--lookups FILE is required: template '${setup.template.id}' has pre_pass blocks ` +
            `(run --partition-prepass over every piece of the file first)`,
        );
      }
      const parsed = await readJson(
        `--lookups '${lookupPath}'`,
        await readFileCapped("--lookups", lookupPath, MAX_LOOKUP_BYTES),
      );
      if (!Array.isArray(parsed) || !parsed.every(isEntryList)) {
        throw new PartitionError(
          `--lookups '${lookupPath}' must be a JSON array of pieces' entry lists ` +
            `([[[block, key, field, value, record], ...], ...])`,
        );
      }
      lookups = mergeLookups(setup.plan, parsed);
    }
    const counts = await convertPiece(setup, facts, lookups, first, Deno.stdin.readable, writeOut);
    try {
      await Deno.writeTextFile(statsPath, JSON.stringify(counts) + "\n");
    } catch (err) {
      throw new PartitionError(`cannot write --stats-file '${statsPath}': ${(err as Error).message}`);
    }
    return 0;
  });
}

/** `--partition-summary`. */
export function partitionSummary(args: readonly string[]): Promise<number> {
  return guarded(async () => {
    const setup = await loadSetup(args);
    const req = await readJson("the summary request on stdin", await readStdin(MAX_REQUEST_BYTES));
    const r = req as SummaryRequest;
    if (typeof r !== "object" || r === null || !Array.isArray(r.files) || typeof r.dir !== "string") {
      throw new PartitionError(
        `the summary request must be {"dir": "...", "files": [...], "combined": ...}`,
      );
    }
    let out = "";
    let err = "";
    const reporter: Reporter = {
      info: (text) => void (out += text),
      warning: (text) => void (err += text),
      fatal: (text) => void (err += text),
      debug: () => {},
    };
    const quiet = hasFlag(args, "--quiet");
    const stats = summarize(setup, { ...r, combined: r.combined ?? null }, reporter, {
      strict: hasFlag(args, "--strict"),
      elapsedMs: intFlag(args, "--elapsed-ms", 0),
    });
    if (err !== "") Deno.stderr.writeSync(encoder.encode(err));
    if (!quiet) await writeOut(encoder.encode(out));
    return exitCodeOf(stats);
  });
}
