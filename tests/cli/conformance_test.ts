/**
 * bxp's own conversion cases (`../shared/conformance/CASES.tsv`), run as a user would: config and inputs
 * copied into an empty folder, the real bxp-cli process run on the config with no other flags, every output
 * compared byte for byte with its golden. The BXTB trace of each run is read back too: its counts must match
 * what was written and filtered.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readBxtb } from "../../src/trace/bxtb.ts";
import { summarizeTrace } from "../../src/trace/view.ts";
import { CONFORMANCE_DIR, runBxpCli } from "../_support/processes.ts";

interface Case {
  dir: string;
  config: string;
  inputs: string[];
  expected: string[];
}

function readCases(root: URL): Case[] {
  const lines = Deno.readTextFileSync(new URL("CASES.tsv", root)).split("\n").slice(1);
  return lines.filter((l) => l.trim() !== "").map((l) => {
    const [dir, config, , inputs, expected] = l.split("\t");
    return { dir, config, inputs: inputs.split(";"), expected: expected.split(";") };
  });
}

/** The first differing line of two byte strings, for a failure message that names the place. */
function firstDifference(actual: Uint8Array, expected: Uint8Array): string {
  const a = new TextDecoder().decode(actual).split("\n");
  const e = new TextDecoder().decode(expected).split("\n");
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    if (a[i] !== e[i]) {
      return `line ${i + 1}:\n  expected: ${JSON.stringify(e[i])}\n  actual:   ${JSON.stringify(a[i])}`;
    }
  }
  return "identical text, different bytes";
}

/** The output file a golden `NAME.expected` stands for: the run's `NAME.<ext>` beside the inputs. */
function outputFor(work: string, golden: string, inputs: string[]): string | null {
  const stem = golden.slice(0, -".expected".length);
  for (const e of Deno.readDirSync(work)) {
    if (!e.isFile || inputs.includes(e.name) || e.name.endsWith(".json") && e.name === "sample.json") {
      continue;
    }
    if (e.name.startsWith(stem + ".") && !e.name.slice(stem.length + 1).includes(".")) {
      return join(work, e.name);
    }
  }
  return null;
}

/** Serial, and split into tiny blocks over two workers: both must give the same bytes. */
const MODES: [string, Record<string, string>][] = [
  ["serial", { BXP_WORKERS: "0" }],
  ["parallel", {
    BXP_WORKERS: "2",
    BXP_PARALLEL_MIN_BYTES: "0",
    BXP_WORKERS_JOIN_MS: "0",
    BXP_BLOCK_BYTES: "200",
  }],
];

for (const [mode, env] of MODES) {
  Deno.test({
    name: `conformance (${mode}): every CASES.tsv case is byte-identical`,
    ignore: CONFORMANCE_DIR === null,
    async fn(t) {
      const root = CONFORMANCE_DIR!;
      for (const c of readCases(root)) {
        await t.step(c.dir, async () => {
          const src = new URL(c.dir + "/", root);
          const work = await Deno.makeTempDir({ prefix: "bxp-case-" });
          try {
            for (const f of [c.config, ...c.inputs]) await Deno.copyFile(new URL(f, src), join(work, f));
            const trace = join(work, "..", `${work.split("/").pop()}.bxtb`);
            const res = await runBxpCli(["--config", c.config, "--trace-file", trace], { cwd: work, env });
            assert.notEqual(res.code, 1, `bxp-cli failed:\n${res.stderr}`);
            for (const golden of c.expected) {
              const out = outputFor(work, golden, c.inputs);
              assert.ok(out, `${c.dir}: no output for ${golden}`);
              const actual = await Deno.readFile(out);
              const expected = await Deno.readFile(new URL(golden, src));
              assert.ok(
                actual.length === expected.length && actual.every((b, i) => b === expected[i]),
                `${c.dir}/${golden}: ${firstDifference(actual, expected)}`,
              );
            }
            // The trace read back: one file_end per input, output_row frames = rows written, every source row
            // accounted for, and the rows written = the data rows of the per-file outputs on disk.
            const summary = summarizeTrace(readBxtb(await Deno.readFile(trace)));
            await Deno.remove(trace);
            assert.equal(summary.exitCode, res.code, "done frame carries the exit status");
            assert.ok(summary.files.length > 0, "trace has file frames");
            let traced = 0;
            for (const f of summary.files) {
              assert.ok(f.end, `${f.path}: file_end present`);
              assert.equal(f.written, f.end.writtenRows, `${f.path}: output_row frames = written rows`);
              const filtered = Object.values(f.filtered).reduce((a, b) => a + b, 0);
              assert.ok(f.written + filtered >= f.end.sourceRows, `${f.path}: every source row has a frame`);
              traced += f.written;
            }
            let onDisk = 0;
            for (const e of Deno.readDirSync(work)) {
              if (
                !e.isFile || c.inputs.includes(e.name) || e.name === c.config || /^1-.*-combined/.test(e.name)
              ) continue;
              const text = Deno.readTextFileSync(join(work, e.name));
              onDisk += text.startsWith("[")
                ? text.split("\n").filter((l) => l.startsWith("{")).length
                : text.split("\n").length - 2;
            }
            assert.equal(traced, onDisk, "rows in the trace = data rows of the per-file outputs");
          } finally {
            await Deno.remove(work, { recursive: true });
          }
        });
      }
    },
  });
}
