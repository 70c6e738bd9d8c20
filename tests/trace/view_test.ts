import assert from "node:assert/strict";
import type { BxtbFrame } from "../../src/trace/bxtb.ts";
import { formatFrame, formatSummary, renderTrace, summarizeTrace } from "../../src/trace/view.ts";

const FRAMES: BxtbFrame[] = [
  {
    type: "file_start",
    chunkId: 0,
    inputFormat: "csv",
    template: "t212",
    path: "data/a.csv",
    headers: ["Action", "Time"],
  },
  { type: "prepass_entry", chunkId: 0, name: "_default", key: "K 1", field: "amount", value: "10" },
  { type: "output_row", chunkId: 0, sourceLocator: 1234, outputIdx: 3, ruleIdx: 0, action: "BUY" },
  {
    type: "error_row",
    chunkId: 0,
    sourceLocator: 1300,
    varName: "$qty",
    errorKind: "NotANumber",
    detail: "",
    origin: "input_schema",
  },
  { type: "filtered_row", chunkId: 0, sourceLocator: 1300, reason: "no_rule_match" },
  { type: "filtered_row", chunkId: 0, sourceLocator: 1400, reason: "rule_skip" },
  { type: "filtered_row", chunkId: 0, sourceLocator: 1500, reason: "rule_skip" },
  { type: "file_end", chunkId: 0, sourceRows: 4, writtenRows: 1, errors: 1, warnings: 1 },
  { type: "file_start", chunkId: 0, inputFormat: "json", template: "t212", path: "data/b.json", headers: [] },
  { type: "done", chunkId: 0, exitCode: 2 },
];

Deno.test("one readable line per frame", () => {
  assert.equal(formatFrame(FRAMES[2]), "output_row    @1234  #3 rule=0 BUY");
  assert.equal(formatFrame(FRAMES[4]), "filtered_row  @1300  no_rule_match");
  assert.equal(formatFrame(FRAMES[3]), "error_row     @1300  $qty NotANumber (input_schema)");
  assert.equal(formatFrame(FRAMES[1]), 'prepass_entry _default["K 1"].amount = 10');
  assert.equal(formatFrame(FRAMES[0]), "file_start    t212 data/a.csv (csv, 2 headers: Action, Time)");
  assert.equal(formatFrame(FRAMES[7]), "file_end      source=4 written=1 errors=1 warnings=1");
  assert.equal(formatFrame(FRAMES[9]), "done          exit=2");
});

Deno.test("summary counts rows per file and notices a missing file_end", () => {
  const s = summarizeTrace(FRAMES);
  assert.equal(s.exitCode, 2);
  assert.equal(s.files.length, 2);
  assert.deepEqual(s.files[0].filtered, { no_rule_match: 1, rule_skip: 2 });
  assert.equal(s.files[0].written, 1);
  assert.equal(s.files[0].errors, 1);
  assert.equal(s.files[1].end, null);
  assert.equal(
    formatSummary(s),
    "t212 data/a.csv: written=1 filtered=3 (no_rule_match=1 rule_skip=2) errors=1 prepass=1 [source=4 warnings=1]\n" +
      "t212 data/b.json: written=0 filtered=0 errors=0 [no file_end]\n" +
      "exit=2\n",
  );
});

Deno.test("a trace without done says the run did not finish", () => {
  const text = renderTrace(FRAMES.slice(0, 3));
  assert.match(text, /^file_start/);
  assert.match(text, /no done frame: the run did not finish\n$/);
  assert.equal(summarizeTrace([FRAMES[2]]).strayFrames, 1);
});
