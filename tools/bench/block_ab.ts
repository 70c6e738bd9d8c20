/**
 * `deno task bench:ab --old <checkout> [--new <checkout>] [--mode 3expr] [--rows 200000] [--rounds 6]
 * [--quoted]`: compares the block evaluation of two checkouts of this repo in one process, on the bench
 * workload (`--quoted`: every field between double quotes, as the `-quoted` bench points read it).
 *
 * Whole runs of bxp-cli cannot tell a change of a few percent on a shared VM: the same run drifts by 1.5-2x
 * within an hour. Here both checkouts' `BlockSession`s (the code a worker runs per 512 KiB block) are loaded
 * side by side and take turns block by block, so drift hits both alike; the same code against itself comes
 * out within 1-3% (the median of four rounds). Both sides must write the same bytes (checked first), so only speed is
 * compared. Engine code a block does not run (reading, cutting, writing files) is not measured.
 *
 * Make the old checkout with `git worktree add /tmp/old <rev>`; `--new` defaults to this checkout.
 *
 * @example
 * ```sh
 * git worktree add /tmp/old HEAD~1
 * deno task bench:ab --old /tmp/old --rounds 8
 * ```
 * @module
 */

import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { BENCH_MODES, type BenchMode } from "./config.ts";
import { prepareInput } from "./files.ts";
import { median } from "./measure.ts";
import { FIXED_COLUMNS } from "./workload.ts";

/** One checkout's side: a block session of its engine over the bench template as that checkout loads it. */
interface Side {
  root: string;
  // deno-lint-ignore no-explicit-any
  session: any;
  /** The output buffer handed to the next block (the session writes into it, as the engine's pool does). */
  out: Uint8Array | null;
}

const BLOCK_BYTES = 512 * 1024;
const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** A block session of the checkout at `root` for the bench config text. */
async function loadSide(root: string, configText: string, columnNames: string[]): Promise<Side> {
  const at = (path: string) => pathToFileURL(resolve(root, path)).href;
  const { validateConfig } = await import(at("src/config/validate.ts"));
  const { BlockSession } = await import(at("src/engine/parallel/block_eval.ts"));
  const outcome = validateConfig(configText);
  const template = outcome.loaded?.templates[0]?.config;
  if (template === undefined) throw new Error(`${root}: the bench config did not load`);
  const session = new BlockSession({
    template,
    globalMaps: new Map(),
    columnNames,
    stem: "input",
    dateMin: "",
    dateMax: "",
    debug: false,
    trace: false,
    sourceName: "input.in.csv",
    lookups: null,
  });
  return { root, session, out: null };
}

/** Whole-line blocks of about {@link BLOCK_BYTES} after the header line. */
function cutBlocks(file: Uint8Array, from: number): { at: number; end: number }[] {
  const blocks: { at: number; end: number }[] = [];
  for (let at = from; at < file.length;) {
    let end = Math.min(file.length, at + BLOCK_BYTES);
    if (end < file.length) end = file.lastIndexOf(10, end - 1) + 1;
    if (end <= at) end = file.length;
    blocks.push({ at, end });
    at = end;
  }
  return blocks;
}

/** Evaluates one block on `side`; the bytes returned are valid until its next block. */
function runBlock(side: Side, file: Uint8Array, block: { at: number; end: number }): Uint8Array {
  // A fresh copy of the input per run, as the engine hands each block its own buffer.
  const job = { kind: "main", bytes: file.slice(block.at, block.end), baseOffset: block.at, baseRecord: 0 };
  const out: Uint8Array = side.session.run({ ...job, out: side.out, last: false }).out;
  if (out.byteOffset === 0 && out.buffer.byteLength >= BLOCK_BYTES * 2) side.out = new Uint8Array(out.buffer);
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      old: { type: "string" },
      new: { type: "string", default: REPO },
      mode: { type: "string", default: "3expr" },
      rows: { type: "string", default: "200000" },
      rounds: { type: "string", default: "6" },
      quoted: { type: "boolean", default: false },
    },
  });
  const mode = values.mode as BenchMode;
  const rows = Number(values.rows);
  const rounds = Number(values.rounds);
  if (
    values.old === undefined || !BENCH_MODES.includes(mode) || !(rows >= 1) || !(rounds >= 1) ||
    !Number.isInteger(rows) || !Number.isInteger(rounds)
  ) {
    console.error(
      `usage: deno task bench:ab --old <checkout> [--new <checkout>] [--mode ${BENCH_MODES.join("|")}] ` +
        "[--rows N] [--rounds N] [--quoted]",
    );
    return 2;
  }
  const input = await prepareInput(`${REPO}/.bench/data`, { rows, cols: 16, quoted: values.quoted });
  const file = await Deno.readFile(input.inputPath);
  const configText = await Deno.readTextFile(input.configPath[mode]);
  const headerEnd = file.indexOf(10) + 1;
  // The generated header holds plain names, each between quotes in the quoted workload.
  const columnNames = new TextDecoder().decode(file.subarray(0, headerEnd - 1)).split(",")
    .map((name) => name.replace(/^"(.*)"$/, "$1"));
  // Columns the config reads but the header lacks would read "" on both sides and still compare equal.
  const missing = FIXED_COLUMNS.filter((name) => !columnNames.includes(name));
  if (missing.length > 0) {
    console.error(`${input.inputPath}: the header lacks ${missing.join(", ")}`);
    return 1;
  }
  const sides = [
    await loadSide(resolve(values.old), configText, columnNames),
    await loadSide(resolve(values.new!), configText, columnNames),
  ];
  const blocks = cutBlocks(file, headerEnd);
  const bytes = file.length - headerEnd;

  for (const block of blocks) {
    const before = runBlock(sides[0], file, block).slice();
    if (!sameBytes(before, runBlock(sides[1], file, block))) {
      console.error(`the two checkouts write different bytes for the block at offset ${block.at}`);
      return 1;
    }
  }
  // One more untimed pass each, so both have been optimised before timing starts.
  for (const block of blocks) for (const side of sides) runBlock(side, file, block);

  const msPerMb = [[] as number[], [] as number[]];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const spent = [0, 0];
    blocks.forEach((block, k) => {
      // Each block runs on both sides back to back, the first side alternating.
      for (const i of (k + r) % 2 === 0 ? [0, 1] : [1, 0]) {
        const started = performance.now();
        runBlock(sides[i], file, block);
        spent[i] += performance.now() - started;
      }
    });
    for (const i of [0, 1]) msPerMb[i].push(spent[i] / (bytes / (1024 * 1024)));
    ratios.push(spent[1] / spent[0]);
  }
  console.log(
    `${blocks.length} blocks of ${
      input.dir.split("/").pop()
    } (${mode}), ${rounds} rounds, same output bytes\n` +
      `old ${values.old}: ${median(msPerMb[0]).toFixed(2)} ms/MB\n` +
      `new ${values.new}: ${median(msPerMb[1]).toFixed(2)} ms/MB\n` +
      `new/old: median ${median(ratios).toFixed(3)}, rounds ${ratios.map((x) => x.toFixed(3)).join(" ")}`,
  );
  return 0;
}

Deno.exit(await main());
