/**
 * The generated block of docs/performance.md: a rewrite replaces only what stands between the markers, fails
 * loudly without them, and leaves a document that `deno fmt --check` accepts.
 */
import assert from "node:assert/strict";
import {
  BEGIN_MARKER,
  demoteHeadings,
  DENO_JSON,
  docsBlock,
  END_MARKER,
  formatMarkdown,
  spliceBetweenMarkers,
  writeDocsBlock,
} from "../../tools/bench/docs_block.ts";
import { FULL_POINTS, GOAL_POINT_ID } from "../../tools/bench/points.ts";
import type { BenchRun } from "../../tools/bench/report.ts";

const DOCS = new URL("../../docs/performance.md", import.meta.url);

/** A run with one point measured against DuckDB and the copy floor. */
const RUN: BenchRun = {
  startedAt: new Date("2026-12-04T10:20:00Z"),
  totalSeconds: 1234,
  machine: { cpus: 2, cpuModel: "Intel Xeon Test CPU", memoryGiB: 24, deno: "2.9.6", os: "linux 6.18" },
  quick: false,
  peerVersions: ["Miller 6.6.0", "DuckDB node-api 1.5.6-r.1 (Node v20.20.2)"],
  missingPeers: [],
  exprRates: null,
  mcp: null,
  peakRssSource: "GNU time (`/usr/bin/time -v`)",
  points: [{
    point: FULL_POINTS.find((p) => p.id === GOAL_POINT_ID)!,
    inputBytes: 578e6,
    bxp: {
      wallMs: [5000, 5200, 4800],
      cpuMs: [9000, 9100, 8800],
      peakRssKb: 120 * 1024,
      outputBytes: 1,
      traceBytes: null,
    },
    peers: [
      {
        name: "DuckDB",
        wallMs: [4400, 4500, 4300],
        cpuMs: [7000, 7100, 6900],
        peakRssKb: 1,
        check: "identical",
        verified: true,
      },
      {
        name: "cat",
        wallMs: [600, 650, 620],
        cpuMs: [300, 310, 290],
        peakRssKb: 1,
        check: "copy",
        verified: true,
        floor: true,
      },
    ],
  }],
};

Deno.test("a rewrite replaces the block between the markers and keeps the rest byte for byte", () => {
  // Odd bytes on purpose: trailing spaces, CRLF, non-ASCII, no final newline.
  const before = "# Title  \r\nprose with ünïcode\n\n";
  const after = "\n\n## After\r\nmore prose, then the end";
  const doc = `${before}${BEGIN_MARKER}\nold figures\n${END_MARKER}${after}`;
  const out = spliceBetweenMarkers(doc, "\n  new figures\n");
  assert.ok(out.startsWith(before + BEGIN_MARKER), out);
  assert.ok(out.endsWith(END_MARKER + after), out);
  assert.equal(out, `${before}${BEGIN_MARKER}\n\nnew figures\n\n${END_MARKER}${after}`);
  assert.ok(!out.includes("old figures"));
  // A second rewrite with the same block changes nothing.
  assert.equal(spliceBetweenMarkers(out, "new figures"), out);
});

Deno.test("a rewrite fails loudly when the markers are missing, doubled or reversed", () => {
  const block = "figures";
  assert.throws(
    () => spliceBetweenMarkers("no markers at all", block),
    /expected one '<!-- bench:begin -->'.*found 0/,
  );
  assert.throws(
    () => spliceBetweenMarkers(`${BEGIN_MARKER}\nno end`, block),
    /'<!-- bench:end -->'.*found 0/,
  );
  assert.throws(
    () => spliceBetweenMarkers(`${BEGIN_MARKER}${END_MARKER}${BEGIN_MARKER}${END_MARKER}`, block),
    /found 2/,
  );
  assert.throws(() => spliceBetweenMarkers(`${END_MARKER} x ${BEGIN_MARKER}`, block), /comes before/);
});

Deno.test("the block names the machine, the versions, the date and gives a status line per goal", () => {
  const block = docsBlock(RUN);
  assert.match(block, /Run of 2026-12-04 10:20 UTC \(`deno task bench`, the full run, 1234 s\)/);
  assert.match(block, /- Machine: Intel Xeon Test CPU, 2 CPUs, 24 GiB RAM, linux 6\.18/);
  assert.match(
    block,
    /- Versions: Deno 2\.9\.6; Miller 6\.6\.0; DuckDB node-api 1\.5\.6-r\.1 \(Node v20\.20\.2\)/,
  );
  // 5000/4400 etc.: rounds 1.14x, 1.16x, 1.12x, far over 0.3x; the copy floor 8.33x, 8.00x, 7.74x.
  assert.match(block, /- \*\*does not hold\*\*: `r2m-c16`: at most 0\.3x DuckDB — median of 3 rounds 1\.14x/);
  assert.match(block, /- \*\*does not hold\*\*: `r2m-c16`: at most 4x a `cat in > out` copy .* 8\.00x/);
  assert.match(block, /- \*\*not measured\*\*: `r10m-c16`: at most 0\.3x DuckDB/);
  assert.match(block, /- \*\*holds\*\*: peak RSS at most 150 MB at every point/);
  assert.match(block, /^\d+ of \d+ hold, \d+ not measured in this run\.$/m);
  // The report's sections sit one level under the block's own heading, and its goals are not repeated.
  assert.match(block, /^#### bxp-cli against its peers$/m);
  assert.match(block, /^#### Round by round$/m);
  assert.doesNotMatch(block, /^#{2,4} Performance goals$/m);
  assert.doesNotMatch(block, /^## Benchmark/m);
  assert.match(
    docsBlock({ ...RUN, quick: true }, "", "deno task bench --quick --write-docs"),
    /Run of 2026-12-04 10:20 UTC \(`deno task bench --quick --write-docs`, a subset, 1234 s\)/,
  );
  assert.equal(demoteHeadings("## a\n### b\ntext ## c\n"), "### a\n#### b\ntext ## c\n");
});

Deno.test("docs/performance.md has one pair of markers, and a rewrite of it passes deno fmt --check", async () => {
  const doc = await Deno.readTextFile(DOCS);
  assert.equal(doc.split(BEGIN_MARKER).length, 2, "one begin marker");
  assert.equal(doc.split(END_MARKER).length, 2, "one end marker");
  const dir = await Deno.makeTempDir({ prefix: "bxp-bench-docs-" });
  try {
    const copy = `${dir}/performance.md`;
    await Deno.writeTextFile(copy, doc);
    await writeDocsBlock(copy, docsBlock(RUN));
    const written = await Deno.readTextFile(copy);
    const prose = (text: string) => [text.split(BEGIN_MARKER)[0], text.split(END_MARKER)[1]];
    assert.deepEqual(prose(written), prose(doc));
    assert.match(written, /Intel Xeon Test CPU/);
    const check = await new Deno.Command(Deno.execPath(), {
      args: ["fmt", "--check", `--config=${DENO_JSON}`, copy],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
    // Rewriting the rewritten document with the same run gives the same bytes.
    await writeDocsBlock(copy, docsBlock(RUN));
    assert.equal(await Deno.readTextFile(copy), written);
    assert.equal(await formatMarkdown("a  \n"), "a\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
