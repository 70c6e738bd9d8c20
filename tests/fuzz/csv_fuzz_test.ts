/**
 * Fuzzing the CSV reader: any bytes in any dialect give the same records however the input is cut into
 * chunks (inside a field, between CR and LF, inside a multi-byte character, one byte at a time), and the
 * only error it may raise is the documented CsvRecordTooLongError.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type CsvDialect,
  CsvParser,
  type CsvRecord,
  CsvRecordTooLongError,
  parseCsvBytes,
} from "../../src/formats/csv_reader.ts";
import { SUPPORTED_ENCODINGS } from "../../src/formats/encoding.ts";
import { CONFORMANCE_DIR } from "../_support/processes.ts";
import { fuzzParams, mutated, nastyText } from "./_fuzz.ts";

const datasets = CONFORMANCE_DIR === null ? null : new URL("datasets/", CONFORMANCE_DIR);
const seeds: string[] = [];
for (const entry of datasets === null ? [] : Deno.readDirSync(datasets)) {
  for (const file of Deno.readDirSync(new URL(`${entry.name}/`, datasets!))) {
    if (file.name.endsWith(".csv")) {
      seeds.push(Deno.readTextFileSync(new URL(`${entry.name}/${file.name}`, datasets!)).slice(0, 2000));
    }
  }
}
seeds.push('a,b\r\n"x,""y""",z\n\n \'q\' ; r\r\n"open,\n', "\ufeffh1;h2\n1;2");

const dialect: fc.Arbitrary<CsvDialect> = fc.record({
  delimiter: fc.constantFrom(",", ";", "\t", "|", " ", '"', "é"),
  quote: fc.constantFrom("none", "single", "double"),
  encoding: fc.constantFrom(...SUPPORTED_ENCODINGS),
});

/** Input bytes: mutated real CSV, random text, or raw bytes (invalid UTF-8 included). */
const input: fc.Arbitrary<Uint8Array> = fc.oneof(
  mutated(seeds).map((t) => new TextEncoder().encode(t)),
  nastyText.map((t) => new TextEncoder().encode(t)),
  fc.uint8Array({ maxLength: 300 }),
  fc.array(fc.constantFrom(0x0a, 0x0d, 0x22, 0x27, 0x2c, 0x3b, 0x20, 0xef, 0xbb, 0xbf, 0xc3, 0xa9, 0x61), {
    maxLength: 200,
  }).map((b) => new Uint8Array(b)),
);

/** Parse `bytes` pushed in pieces cut at `cuts` (positions modulo the length). */
function parseInChunks(
  bytes: Uint8Array,
  d: CsvDialect,
  cuts: number[],
  maxRecordBytes?: number,
): CsvRecord[] {
  const records: CsvRecord[] = [];
  const parser = new CsvParser(d, (fields, offset, line) => records.push({ fields, offset, line }), {
    maxRecordBytes,
  });
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) =>
    a - b
  );
  let at = 0;
  for (const point of [...points, bytes.length]) {
    parser.push(bytes.subarray(at, point));
    at = point;
  }
  parser.finish();
  return records;
}

function outcome(work: () => CsvRecord[]): CsvRecord[] | "too-long" {
  try {
    return work();
  } catch (error) {
    if (error instanceof CsvRecordTooLongError) return "too-long";
    throw error;
  }
}

Deno.test("fuzz csv: records do not depend on how the input is chunked; no unexpected throw", () => {
  fc.assert(
    fc.property(input, dialect, fc.array(fc.nat(), { maxLength: 12 }), (bytes, d, cuts) => {
      const whole = outcome(() => parseCsvBytes(bytes, d).records);
      const chunked = outcome(() => parseInChunks(bytes, d, cuts));
      assert.deepEqual(chunked, whole);
      if (whole !== "too-long") {
        for (const record of whole) {
          assert.ok(record.offset >= 0 && record.offset <= bytes.length);
          assert.ok(record.fields.length >= 1);
        }
      }
    }),
    fuzzParams(4000),
  );
});

Deno.test("fuzz csv: byte-at-a-time equals whole for short inputs", () => {
  fc.assert(
    fc.property(input.filter((b) => b.length < 120), dialect, (bytes, d) => {
      const cuts = Array.from({ length: bytes.length }, (_, i) => i);
      assert.deepEqual(
        outcome(() => parseInChunks(bytes, d, cuts)),
        outcome(() => parseCsvBytes(bytes, d).records),
      );
    }),
    fuzzParams(1500),
  );
});

Deno.test("fuzz csv: the record-length guard is the only error, whatever the chunking", () => {
  fc.assert(
    fc.property(
      input,
      dialect,
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.integer({ min: 1, max: 64 }),
      (bytes, d, cuts, cap) => {
        const result = outcome(() => parseInChunks(bytes, d, cuts, cap));
        const longestLine = Math.max(
          0,
          ...new TextDecoder("latin1").decode(bytes).split("\n").map((l) => l.length),
        );
        if (result === "too-long") {
          assert.ok(longestLine >= cap, `refused with every line shorter than ${cap}`);
        }
      },
    ),
    fuzzParams(3000),
  );
});
