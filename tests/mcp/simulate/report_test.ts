import assert from "node:assert/strict";
import {
  buildReport,
  countDataRecords,
  foldTrace,
  LineIndex,
  MAX_TRACE_SAMPLE,
  refusal,
  statusOf,
} from "../../../src/mcp/simulate/report.ts";
import type { BxtbFrame } from "../../../src/trace/bxtb.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("countDataRecords: non-empty lines minus the header, CR and blank lines ignored", () => {
  assert.equal(countDataRecords(""), 0);
  assert.equal(countDataRecords("h1,h2"), 0);
  assert.equal(countDataRecords("h1,h2\n1,2\n"), 1);
  assert.equal(countDataRecords("h1,h2\n1,2\n3,4"), 2);
  assert.equal(countDataRecords("h1,h2\r\n1,2\r\n"), 1);
  assert.equal(countDataRecords("h\n\n\r\n1\n\n"), 1);
  assert.equal(countDataRecords("\n\n"), 0);
});

Deno.test("LineIndex: 1 + newlines strictly before the byte offset; past the end counts them all", () => {
  const index = new LineIndex(bytes("h\nab\n\nc\n"));
  assert.equal(index.lineAt(0), 1);
  assert.equal(index.lineAt(1), 1, "the newline itself still belongs to its line");
  assert.equal(index.lineAt(2), 2);
  assert.equal(index.lineAt(5), 3);
  assert.equal(index.lineAt(6), 4);
  assert.equal(index.lineAt(1000), 5);
  assert.equal(new LineIndex(new Uint8Array(0)).lineAt(3), 1);
});

Deno.test("LineIndex counts bytes, not characters", () => {
  const text = "é\nü\nz";
  const index = new LineIndex(bytes(text));
  assert.equal(index.lineAt(3), 2, "é is two bytes, so line 2 starts at byte 3");
  assert.equal(index.lineAt(6), 3);
});

Deno.test("foldTrace sums file_end over files and keeps exact counts with capped samples", () => {
  const frames: BxtbFrame[] = [
    { type: "file_start", chunkId: 0, inputFormat: "csv", template: "t", path: "a", headers: [] },
    { type: "file_end", chunkId: 0, sourceRows: 3, writtenRows: 2, errors: 1, warnings: 0 },
    { type: "file_end", chunkId: 0, sourceRows: 4, writtenRows: 1, errors: 0, warnings: 2 },
    ...Array.from({ length: MAX_TRACE_SAMPLE + 5 }, (_, i): BxtbFrame => ({
      type: "output_row",
      chunkId: 0,
      sourceLocator: i,
      outputIdx: i + 1,
      ruleIdx: -1,
      action: "A",
    })),
    { type: "prepass_entry", chunkId: 0, name: "p", key: "k", field: "f", value: "v" },
    { type: "prepass_entry", chunkId: 0, name: "p", key: "k2", field: "f", value: "v" },
    { type: "done", chunkId: 0, exitCode: 0 },
  ];
  const summary = foldTrace(frames, bytes("h\n" + "x\n".repeat(300)));
  assert.ok(summary.available);
  assert.equal(summary.source_rows, 7);
  assert.equal(summary.written_rows, 3);
  assert.equal(summary.errors, 1);
  assert.equal(summary.warnings, 2);
  assert.equal(summary.output_rows.count, MAX_TRACE_SAMPLE + 5);
  assert.equal(summary.output_rows.sample.length, MAX_TRACE_SAMPLE);
  assert.deepEqual(summary.output_rows.sample[4], {
    input_row: 3,
    source_offset: 4,
    output_idx: 5,
    rule: -1,
    action: "A",
  });
  assert.deepEqual(summary.filtered, { count: 0, sample: [] });
  assert.deepEqual(summary.row_errors, { count: 0, sample: [] });
  assert.equal(summary.prepass_entries, 2);
});

Deno.test("buildReport: bxp's key order, status from the exit code, read errors kept and not counted", () => {
  const report = buildReport({
    template: "t",
    exitCode: 1,
    inputCsv: "h\n1\n2\n",
    outputs: [{ file: "a.out", csv: "h\n1\n" }, { file: "b.out", error: "too big" }],
    summary: "s",
    diagnostics: "d",
    trace: { available: false },
    workspace: "/tmp/bxp-mcp-sim/t",
  });
  assert.deepEqual(report, {
    ok: true,
    template: "t",
    exit_code: 1,
    status: "error",
    input: { records: 2, csv: "h\n1\n2\n" },
    output_records: 1,
    outputs: [{ file: "a.out", records: 1, csv: "h\n1\n" }, { file: "b.out", error: "too big" }],
    summary: "s",
    diagnostics: "d",
    trace: { available: false },
    workspace: "/tmp/bxp-mcp-sim/t",
  });
  assert.deepEqual(Object.keys(report), [
    "ok",
    "template",
    "exit_code",
    "status",
    "input",
    "output_records",
    "outputs",
    "summary",
    "diagnostics",
    "trace",
    "workspace",
  ]);
});

Deno.test("statusOf and refusal", () => {
  assert.equal(statusOf(0), "ok");
  assert.equal(statusOf(2), "warnings");
  assert.equal(statusOf(1), "error");
  assert.equal(statusOf(-1), "error");
  assert.deepEqual(refusal("e", "d"), { ok: false, error: "e", detail: "d" });
  assert.equal(JSON.stringify(refusal("e", "d")), '{"ok":false,"error":"e","detail":"d"}');
});
