import assert from "node:assert/strict";
import {
  BXTB_MAGIC,
  BxtbFormatError,
  type BxtbFrame,
  BxtbReader,
  BxtbWriter,
  readBxtb,
} from "../../src/trace/bxtb.ts";

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function write(build: (w: BxtbWriter) => void, chunkSize?: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  const w = new BxtbWriter((c) => chunks.push(c), { chunkSize });
  build(w);
  w.flush();
  return concat(chunks);
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");
}

const ALL_FRAMES: BxtbFrame[] = [
  {
    type: "file_start",
    chunkId: 0,
    inputFormat: "csv",
    template: "anycoin",
    path: "/d/ü.csv",
    headers: ["Date", "Type", ""],
  },
  { type: "prepass_entry", chunkId: 0, name: "_default", key: "K-1", field: "amount", value: "10.5" },
  { type: "output_row", chunkId: 0, sourceLocator: 0xdeadbeef, outputIdx: 42, ruleIdx: -1, action: "BUY" },
  { type: "filtered_row", chunkId: 0, sourceLocator: 2 ** 40 + 7, reason: "no_rule_match" },
  {
    type: "error_row",
    chunkId: 0,
    sourceLocator: 9,
    varName: "$qty",
    errorKind: "NotANumber",
    detail: "'x'",
    origin: "input_schema",
  },
  { type: "file_end", chunkId: 0, sourceRows: 100_000, writtenRows: 25_000, errors: 7, warnings: 3 },
  {
    type: "file_start",
    chunkId: 0,
    inputFormat: "xlsx_intermediate_csv",
    template: "t",
    path: "p",
    headers: [],
  },
  { type: "file_end", chunkId: 0, sourceRows: 0, writtenRows: 0, errors: 0, warnings: 0 },
  { type: "done", chunkId: 0, exitCode: 2 },
];

function writeFrame(w: BxtbWriter, f: BxtbFrame): void {
  switch (f.type) {
    case "file_start":
      return w.fileStart(f.inputFormat, f.template, f.path, f.headers);
    case "file_end":
      return w.fileEnd(f.sourceRows, f.writtenRows, f.errors, f.warnings);
    case "output_row":
      return w.outputRow(f.sourceLocator, f.outputIdx, f.ruleIdx, f.action);
    case "filtered_row":
      return w.filteredRow(f.sourceLocator, f.reason);
    case "error_row":
      return w.errorRow(f.sourceLocator, f.varName, f.errorKind, f.detail, f.origin);
    case "prepass_entry":
      return w.prepassEntry(f.name, f.key, f.field, f.value);
    case "done":
      return w.done(f.exitCode);
  }
}

Deno.test("every frame type round-trips", () => {
  const bytes = write((w) => ALL_FRAMES.forEach((f) => writeFrame(w, f)));
  assert.deepEqual(readBxtb(bytes), ALL_FRAMES);
});

Deno.test("byte layout of a tiny trace, computed by hand", () => {
  const bytes = write((w) => {
    w.fileStart("csv", "t", "p", ["H"]);
    w.outputRow(5, 1, -1, "B");
    w.done(2);
  });
  assert.equal(
    hex(bytes),
    [
      "42 58 54 42", // magic "BXTB"
      "01 00 00 12 00 00 00", // file_start, chunk 0, 18-byte payload
      "00 01 00 00 00 74 01 00 00 00 70 01 00 01 00 00 00 48", // csv, "t", "p", 1 header "H"
      "03 00 00 19 00 00 00", // output_row, 25-byte payload
      "05 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 ff ff ff ff 01 00 00 00 42",
      "07 00 00 04 00 00 00 02 00 00 00", // done, exit 2
    ].join(" "),
  );
  assert.equal(new DataView(bytes.buffer).getUint32(0, true), BXTB_MAGIC);
});

Deno.test("unknown frame types are skipped by their length", () => {
  const known = write((w) => w.done(0));
  const unknown = new Uint8Array([0x7f, 0, 0, 3, 0, 0, 0, 0xaa, 0xbb, 0xcc]);
  const bytes = concat([known.subarray(0, 4), unknown, known.subarray(4)]);
  const reader = new BxtbReader();
  assert.deepEqual(reader.push(bytes), [{ type: "done", chunkId: 0, exitCode: 0 }]);
  assert.equal(reader.skippedFrames, 1);
  reader.finish();
});

Deno.test("bad magic and truncated frames are clear errors", () => {
  assert.throws(
    () => readBxtb(new Uint8Array([0xff, 0xff, 0xff, 0xff])),
    (err: unknown) => err instanceof BxtbFormatError && /bad magic 0xffffffff/.test(err.message),
  );
  assert.throws(() => readBxtb(new Uint8Array([0x42, 0x58])), /no magic/);
  const full = write((w) => w.filteredRow(1, "rule_skip"));
  for (let cut = 5; cut < full.length; cut++) {
    assert.throws(
      () => readBxtb(full.subarray(0, cut)),
      (err: unknown) => err instanceof BxtbFormatError && /truncated BXTB frame/.test(err.message),
      `cut at ${cut}`,
    );
  }
  // A payload shorter than its fields claim.
  const lying = new Uint8Array([0x42, 0x58, 0x54, 0x42, 0x07, 0, 0, 2, 0, 0, 0, 1, 0]);
  assert.throws(() => readBxtb(lying), /payload too short for exit_code/);
});

Deno.test("incremental reader: any chunking yields the same frames", () => {
  const bytes = write((w) => ALL_FRAMES.forEach((f) => writeFrame(w, f)));
  for (const size of [1, 2, 3, 7, 64]) {
    const reader = new BxtbReader();
    const got: BxtbFrame[] = [];
    for (let i = 0; i < bytes.length; i += size) got.push(...reader.push(bytes.subarray(i, i + size)));
    reader.finish();
    assert.deepEqual(got, ALL_FRAMES, `chunks of ${size}`);
  }
});

Deno.test("writer chunking: small chunks, big frames, magic off, reused buffer", () => {
  const big = "x".repeat(500);
  const chunks: Uint8Array[] = [];
  const w = new BxtbWriter((c) => chunks.push(c.slice()), { chunkSize: 64, reuseBuffer: true });
  for (let i = 0; i < 20; i++) w.outputRow(i, i + 1, 0, i % 5 === 0 ? big : "SELL");
  w.done(0);
  w.flush();
  assert.ok(chunks.length > 5);
  const frames = readBxtb(concat(chunks));
  assert.equal(frames.length, 21);
  assert.equal(w.frames, 21);
  assert.deepEqual(frames[5], {
    type: "output_row",
    chunkId: 0,
    sourceLocator: 5,
    outputIdx: 6,
    ruleIdx: 0,
    action: big,
  });
  const headless = write((w2) => w2.done(1), undefined);
  const appended: Uint8Array[] = [];
  const raw = new BxtbWriter((c) => appended.push(c), { writeMagic: false });
  raw.done(1);
  raw.flush();
  assert.deepEqual(concat(appended), headless.subarray(4));
  assert.throws(() => new BxtbWriter(() => {}).outputRow(-1, 0, 0, ""), /out of range/);
});
