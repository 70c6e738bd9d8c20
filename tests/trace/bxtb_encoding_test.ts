import assert from "node:assert/strict";
import { BxtbWriter, readBxtb, shiftOutputIndexes } from "../../src/trace/bxtb.ts";
import { concatBytes } from "../../src/util/bytes.ts";

const enc = new TextEncoder();

/** The bytes of one `output_row` frame, built from `TextEncoder` by hand (what the writer must match). */
function outputRowBytes(locator: number, idx: number, rule: number, action: string): Uint8Array {
  const a = enc.encode(action);
  const out = new Uint8Array(7 + 24 + a.length);
  const v = new DataView(out.buffer);
  out[0] = 0x03;
  v.setUint32(3, 24 + a.length, true);
  v.setBigUint64(7, BigInt(locator), true);
  v.setBigUint64(15, BigInt(idx), true);
  v.setInt32(23, rule, true);
  v.setUint32(27, a.length, true);
  out.set(a, 31);
  return out;
}

// Short and long ASCII, 2-, 3- and 4-byte characters, and lone surrogates (TextEncoder writes U+FFFD).
const STRINGS = [
  "",
  "BUY",
  "x".repeat(64),
  "y".repeat(65),
  "z".repeat(5000),
  "Grüße",
  "€ 100",
  "a😀b",
  "😀".repeat(40),
  "lone \ud800 high",
  "lone \udc00 low",
  "end \ud83d",
  "\udc00\ud800",
  "ü".repeat(3000),
];

Deno.test("strings are encoded in place exactly as TextEncoder encodes them", () => {
  for (const s of STRINGS) {
    for (const chunkSize of [64, 64 * 1024]) {
      const chunks: Uint8Array[] = [];
      const w = new BxtbWriter((c) => chunks.push(c.slice()), {
        writeMagic: false,
        chunkSize,
        reuseBuffer: true,
      });
      w.outputRow(7, 8, -1, s);
      w.outputRow(9, 10, 2, "after");
      w.flush();
      const expected = concatBytes([outputRowBytes(7, 8, -1, s), outputRowBytes(9, 10, 2, "after")]);
      assert.deepEqual(concatBytes(chunks), expected, `${JSON.stringify(s)} in chunks of ${chunkSize}`);
    }
  }
});

Deno.test("every string field of every frame type round-trips non-ASCII text", () => {
  const chunks: Uint8Array[] = [];
  const w = new BxtbWriter((c) => chunks.push(c));
  const [a, b, c, d] = ["Grüße", "a😀b", "€", "ü".repeat(100)];
  w.fileStart("csv", a, b, [c, d, ""]);
  w.filteredRow(1, d);
  w.errorRow(2, a, b, c, d);
  w.prepassEntry(d, c, b, a);
  w.done(0);
  w.flush();
  assert.deepEqual(readBxtb(concatBytes(chunks)), [
    { type: "file_start", chunkId: 0, inputFormat: "csv", template: a, path: b, headers: [c, d, ""] },
    { type: "filtered_row", chunkId: 0, sourceLocator: 1, reason: d },
    { type: "error_row", chunkId: 0, sourceLocator: 2, varName: a, errorKind: b, detail: c, origin: d },
    { type: "prepass_entry", chunkId: 0, name: d, key: c, field: b, value: a },
    { type: "done", chunkId: 0, exitCode: 0 },
  ]);
});

Deno.test("newChunk supplies the chunk buffers, one per flush", () => {
  const supplied: Uint8Array[] = [];
  const handed: Uint8Array[] = [];
  const w = new BxtbWriter((c) => handed.push(c), {
    chunkSize: 128,
    newChunk: (size) => {
      const b = new Uint8Array(size);
      supplied.push(b);
      return b;
    },
  });
  for (let i = 0; i < 10; i++) w.outputRow(i, i, 0, "emit");
  w.flush();
  assert.ok(handed.length >= 3);
  assert.equal(supplied.length, handed.length + 1, "the first chunk, then one after each flush");
  for (const c of handed) assert.ok(supplied.some((s) => s.buffer === c.buffer));
  assert.equal(readBxtb(concatBytes(handed)).length, 10);
});

Deno.test("rebasing output indexes: past 2^32, other frames untouched, overflow refused", () => {
  const chunks: Uint8Array[] = [];
  const w = new BxtbWriter((c) => chunks.push(c), { writeMagic: false });
  w.outputRow(10, 0, 0, "a");
  w.filteredRow(11, "skip");
  w.outputRow(12, 2 ** 32 - 1, 1, "b");
  w.flush();
  const bytes = concatBytes(chunks);
  shiftOutputIndexes(bytes, 2 ** 32 + 5);
  const magic = new Uint8Array([0x42, 0x58, 0x54, 0x42]);
  const frames = readBxtb(concatBytes([magic, bytes]));
  assert.deepEqual(frames.map((f) => f.type === "output_row" ? f.outputIdx : f.type), [
    2 ** 32 + 5,
    "filtered_row",
    2 ** 33 + 4,
  ]);
  assert.throws(() => shiftOutputIndexes(bytes, 2 ** 53), /out of range/);
});
