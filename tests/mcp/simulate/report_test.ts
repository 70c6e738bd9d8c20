import assert from "node:assert/strict";
import {
  answerBytes,
  buildReport,
  countDataRecords,
  cutHead,
  fitReport,
  foldTrace,
  inputCounts,
  LineIndex,
  MAX_TRACE_SAMPLE,
  RecordCounter,
  refusal,
  statusOf,
  summaryText,
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

Deno.test("buildReport: key order, status from the exit code, heads cut to sample_rows, read errors kept", () => {
  const report = buildReport({
    template: "t",
    exitCode: 1,
    input: { file: "in.csv", bytes: 6, records: 2 },
    outputs: [
      { file: "a.out", records: 3, bytes: 8, sha256: "ab", head: "h\n1\n2\n3\n", complete: true },
      { file: "b.out", error: "the file cannot be read" },
    ],
    outputUris: new Map([["a.out", "bxp-sim://r/output/a.out"]]),
    summary: "s",
    diagnostics: "d",
    findings: [],
    trace: { available: false },
    traceUri: null,
    workspace: "t-1",
    queuedMs: 0,
    kept: true,
    limits: { sample_rows: 2 },
  }, 2);
  assert.deepEqual(report, {
    ok: true,
    template: "t",
    exit_code: 1,
    status: "error",
    input: { file: "in.csv", bytes: 6, records: 2, records_from: "lines", data_lines: 2 },
    output_records: 3,
    outputs: [
      {
        file: "a.out",
        records: 3,
        bytes: 8,
        sha256: "ab",
        rows_shown: 2,
        complete: false,
        csv: "h\n1\n2\n",
        uri: "bxp-sim://r/output/a.out",
      },
      { file: "b.out", error: "the file cannot be read" },
    ],
    summary: "s",
    diagnostics: "d",
    findings: [],
    trace: { available: false },
    workspace: "t-1",
    queued_ms: 0,
    kept: true,
    limits: { sample_rows: 2 },
    cut: [],
  });
  assert.match(
    summaryText(report),
    /^bxp_simulate t: error \(exit 1\); 2 input records in in.csv -> 3 output/,
  );
});

Deno.test("RecordCounter counts across chunk borders like countDataRecords", () => {
  for (const text of ["", "h", "h\n1", "h\r\n1\r\n\r\n2\n", "h\n\n\n1\n2"]) {
    for (let cut = 0; cut <= text.length; cut++) {
      const counter = new RecordCounter();
      counter.push(bytes(text.slice(0, cut)));
      counter.push(bytes(text.slice(cut)));
      assert.equal(counter.records, countDataRecords(text), `${JSON.stringify(text)} cut at ${cut}`);
    }
  }
});

Deno.test("cutHead keeps the header and n non-empty data lines", () => {
  assert.deepEqual(cutHead("h\n1\n\n2\n3\n", 2), { text: "h\n1\n\n2\n", records: 2 });
  assert.deepEqual(cutHead("h\n1\n", 0), { text: "h\n", records: 0 });
  assert.deepEqual(cutHead("h\n1\n", 5), { text: "h\n1\n", records: 1 });
});

Deno.test("fitReport cuts samples, rows, texts and lists until the answer fits, never the counts", () => {
  const head = "h\n" + Array.from({ length: 200 }, (_, i) => `${i},${"x".repeat(50)}`).join("\n") + "\n";
  const report = buildReport({
    template: "t",
    exitCode: 0,
    input: { file: "in.csv", bytes: 1, records: 200 },
    outputs: Array.from({ length: 40 }, (_, i) => ({
      file: `o${i}.out`,
      records: 200,
      bytes: head.length,
      sha256: "0".repeat(64),
      head,
      complete: true,
    })),
    outputUris: new Map(),
    summary: "s".repeat(50_000),
    diagnostics: "d".repeat(50_000),
    findings: Array.from({ length: 100 }, () => ({ code: "c", message: "m".repeat(100) })),
    trace: { available: false },
    traceUri: null,
    workspace: "t-1",
    queuedMs: 0,
    kept: false,
    limits: {},
  }, 200);
  fitReport(report, 4 * 1024);
  assert.ok(answerBytes(report) <= 4 * 1024, `${answerBytes(report)}`);
  assert.equal(report.output_records, 8000);
  const cut = report.cut as string[];
  for (const kind of ["output rows", "bxp-cli text", "findings", "outputs"]) {
    assert.ok(cut.some((c) => c.startsWith(`${kind}:`)), `${kind} in ${cut.join("; ")}`);
  }
  assert.equal(report.outputs_total, 40);
  assert.equal(report.findings_total, 100);
});

Deno.test("statusOf and refusal", () => {
  assert.equal(statusOf(0), "ok");
  assert.equal(statusOf(2), "warnings");
  assert.equal(statusOf(1), "error");
  assert.equal(statusOf(-1), "error");
  assert.deepEqual(refusal("e", "d"), { ok: false, error: "e", detail: "d" });
  assert.equal(JSON.stringify(refusal("e", "d")), '{"ok":false,"error":"e","detail":"d"}');
});

Deno.test("inputCounts: records are what bxp-cli read; data_lines and not_records say why the lines differ", () => {
  const input = { file: "in.csv", bytes: 90, records: 16 };
  assert.deepEqual(inputCounts(input, 0, 16), {
    file: "in.csv",
    bytes: 90,
    records: 16,
    records_from: "trace",
    data_lines: 16,
  });
  const preamble = inputCounts(input, 2, 13);
  assert.equal(preamble.records, 13);
  assert.equal(preamble.data_lines, 16);
  assert.match(
    preamble.not_records!,
    /^3 of the 16 non-empty lines after the first are not records: the header line and the preamble/,
  );
  assert.match(inputCounts(input, 0, 17).not_records!, /csv_header_line 0/);
  assert.match(inputCounts(input, 1, 0).not_records!, /^bxp-cli failed \(exit 1\)/);
  assert.deepEqual(inputCounts(input, 1, null), {
    file: "in.csv",
    bytes: 90,
    records: 16,
    records_from: "lines",
    data_lines: 16,
  });
});
