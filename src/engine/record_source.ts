/**
 * Reads an input file as a stream of records for the engine: CSV with the template's dialect (preamble and
 * header line handled here) or a JSON array of objects (columns = union of keys, found by a first pass).
 * Records arrive in batches, one batch per input chunk, so callers can write output between batches.
 *
 * @example
 * ```ts
 * import { CsvRecordSource } from "./record_source.ts";
 * import { MemoryFs } from "./memory_fs.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const fs = new MemoryFs("/p");
 * fs.put("a.csv", new TextEncoder().encode("h\nx\ny\n"));
 * const src = new CsvRecordSource(fs, "a.csv", config.templates[0], "a.csv");
 * assert.deepEqual((await src.readHeader()).names, ["h"]);
 * const seen: [string[], number][] = [];
 * await src.forEachRecord((fields, offset) => void seen.push([fields, offset]), () => Promise.resolve());
 * assert.deepEqual(seen, [[["x"], 2], [["y"], 4]]); // fields and the byte offset of each record
 * ```
 * @module
 */

import {
  CsvParser,
  CsvRecordTooLongError,
  type FieldBounds,
  MAX_BUFFERED_RECORD_BYTES,
} from "../formats/mod.ts";
import { BlockSplitter, skipRecords } from "./parallel/lines.ts";
import { JsonArrayParser, JsonColumns, type JsonObjectRecord, jsonRecordFields } from "../formats/mod.ts";
import type { TemplateConfig } from "../config/mod.ts";
import type { EngineFs } from "./host.ts";
import { capDataFields } from "./header_checks.ts";
import { isValidUtf8Prefix } from "../util/utf8.ts";

/** The header of an input: column names (empty for headerless CSV). */
export interface InputHeader {
  names: string[];
  /** True when the first chunk was not valid UTF-8 (only checked for UTF-8 CSV input). */
  invalidUtf8: boolean;
}

/** A restartable reader of one input file. */
export interface RecordSource {
  /** BXTB input format: 0 csv, 1 json. */
  readonly format: number;
  /** Reads what is needed to know the columns (CSV: up to the header line; JSON: a whole first pass). */
  readHeader(): Promise<InputHeader>;
  /**
   * One full pass over the data records, in order; `afterChunk` runs after the records of each input chunk
   * (the moment to write what they produced). Can be called again for a second pass. Records are handed over
   * as they are parsed, never collected, so their strings die young. With `lazyFields` (CSV only) records
   * come as the parser's lazy mode delivers them, with their field bounds (see `CsvParserOptions`).
   */
  forEachRecord(
    onRecord: (fields: string[], offset: number, raw: FieldBounds | null) => void,
    afterChunk: () => Promise<void>,
    lazyFields?: Uint8Array | null,
  ): Promise<void>;
  /** Records of the last pass whose quotes did not pair up. */
  readonly unbalancedQuotes: number;
}

/** CSV input with preamble lines, an optional header line and the template's dialect. */
export class CsvRecordSource implements RecordSource {
  readonly format = 0;
  unbalancedQuotes = 0;
  readonly #fs: EngineFs;
  readonly #path: string;
  readonly #template: TemplateConfig;
  readonly #name: string;

  constructor(fs: EngineFs, path: string, template: TemplateConfig, name: string) {
    this.#fs = fs;
    this.#path = path;
    this.#template = template;
    this.#name = name;
  }

  #parser(onRecord: (fields: string[], offset: number) => void, lazyFields?: Uint8Array): CsvParser {
    const t = this.#template;
    return new CsvParser(
      { delimiter: t.csvDelimiterIn, quote: t.csvTextQuoteIn, encoding: t.csvInputEncoding },
      onRecord,
      { sourceName: this.#name, lazyFields },
    );
  }

  async readHeader(): Promise<InputHeader> {
    const headerLine = this.#template.csvHeaderLine;
    let names: string[] | null = headerLine === 0 ? [] : null;
    let seen = 0;
    let invalidUtf8 = false;
    let first = true;
    const parser = this.#parser((fields) => {
      seen++;
      if (seen === headerLine) names = fields;
    });
    const checkUtf8 = this.#template.csvInputEncoding.toLowerCase().replace("_", "-") === "utf-8";
    for await (const chunk of this.#fs.readChunks(this.#path, { reuseBuffers: true })) {
      if (first && checkUtf8) invalidUtf8 = !isValidUtf8Prefix(chunk);
      first = false;
      parser.push(chunk);
      if (names !== null) break;
    }
    if (names === null) parser.finish();
    return { names: names ?? [], invalidUtf8 };
  }

  async forEachRecord(
    onRecord: (fields: string[], offset: number, raw: FieldBounds | null) => void,
    afterChunk: () => Promise<void>,
    lazyFields?: Uint8Array | null,
  ): Promise<void> {
    const skip = this.#template.csvHeaderLine;
    let seen = 0;
    let unbalanced = 0;
    const parser = this.#parser((fields, offset) => {
      seen++;
      if (seen <= skip) return;
      if (parser.lastRecordUnbalanced) unbalanced++; // bxp counts body records only
      onRecord(capDataFields(fields), offset, parser.raw);
    }, lazyFields ?? undefined);
    for await (const chunk of this.#fs.readChunks(this.#path, { reuseBuffers: true })) {
      // In 64 KiB slices: each decoded string stays below V8's large-object size and dies young.
      for (let at = 0; at < chunk.length; at += PARSE_SLICE) {
        parser.push(chunk.subarray(at, Math.min(chunk.length, at + PARSE_SLICE)));
      }
      await afterChunk();
    }
    parser.finish();
    await afterChunk();
    this.unbalancedQuotes = unbalanced;
  }
}

/** Bytes the parser decodes at once (below V8's 128 KiB large-object threshold). */
const PARSE_SLICE = 64 * 1024;

/** A piece of whole lines of a CSV file's body, for the parallel pipeline. */
export interface RawBlock {
  bytes: Uint8Array;
  /** Offset of `bytes[0]` in the file. */
  offset: number;
}

/**
 * The body of a CSV file (after the BOM, preamble and header line) cut into blocks of whole lines of about
 * `blockSize` bytes. `alloc` gives each block's storage (recycled buffers); by default a fresh array.
 */
export async function* csvBodyBlocks(
  fs: EngineFs,
  path: string,
  headerLine: number,
  blockSize: number,
  name: string,
  alloc?: (size: number) => Uint8Array,
): AsyncGenerator<RawBlock> {
  const tooLong = (): never => {
    throw new CsvRecordTooLongError(name, MAX_BUFFERED_RECORD_BYTES);
  };
  const splitter = new BlockSplitter(blockSize, MAX_BUFFERED_RECORD_BYTES, tooLong, alloc);
  let offset = 0; // file offset of the splitter's first buffered byte
  let head: Uint8Array | null = new Uint8Array(0); // bytes before the body start is known
  // Read into the blocks themselves where the file system can (see BlockSplitter); other chunks are copied.
  const chunks = fs.readChunks(path, {
    reuseBuffers: true,
    chunkBytes: blockSize,
    into: () => splitter.room(),
  });
  for await (const chunk of chunks) {
    let data = chunk;
    if (head !== null) {
      const joined: Uint8Array = new Uint8Array(head.length + chunk.length);
      joined.set(head);
      joined.set(chunk, head.length);
      const bom = joined.length >= 3 && joined[0] === 0xef && joined[1] === 0xbb && joined[2] === 0xbf
        ? 3
        : 0;
      if (joined.length < 3) {
        head = joined;
        continue;
      }
      const body = headerLine === 0 ? bom : skipRecords(joined, bom, headerLine);
      if (body < 0) {
        if (joined.length > MAX_BUFFERED_RECORD_BYTES) tooLong();
        head = joined;
        continue;
      }
      head = null;
      offset = body;
      data = joined.subarray(body);
    }
    for (const bytes of splitter.push(data)) {
      // Read the length first: the consumer hands the block to a worker, and it is not ours after that.
      const length = bytes.length;
      yield { bytes, offset };
      offset += length;
    }
  }
  if (head !== null) {
    // The file ended before the body start was known: a tiny headerless file, or no body at all.
    const bom = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    if (headerLine === 0 && head.length > bom) yield { bytes: head.slice(bom), offset: bom };
    return;
  }
  const rest = splitter.finish();
  if (rest !== null) yield { bytes: rest, offset };
}

/** JSON array-of-objects input; the first pass finds the column union. */
export class JsonRecordSource implements RecordSource {
  readonly format = 1;
  readonly unbalancedQuotes = 0;
  readonly #fs: EngineFs;
  readonly #path: string;
  readonly #name: string;
  #columns = new JsonColumns();

  constructor(fs: EngineFs, path: string, name: string) {
    this.#fs = fs;
    this.#path = path;
    this.#name = name;
  }

  async #pass(onRecord: (r: JsonObjectRecord) => void, between: () => Promise<void>): Promise<void> {
    const parser = new JsonArrayParser(onRecord, { sourceName: this.#name });
    for await (const chunk of this.#fs.readChunks(this.#path)) {
      parser.push(chunk);
      await between();
    }
    parser.finish();
    await between();
  }

  async readHeader(): Promise<InputHeader> {
    this.#columns = new JsonColumns();
    const columns = this.#columns;
    await this.#pass((r) => columns.add(r), () => Promise.resolve());
    return { names: columns.names, invalidUtf8: false };
  }

  async forEachRecord(
    onRecord: (fields: string[], offset: number, raw: FieldBounds | null) => void,
    afterChunk: () => Promise<void>,
  ): Promise<void> {
    const index = this.#columns.index;
    await this.#pass((r) => onRecord(jsonRecordFields(r, index), r.offset, null), afterChunk);
  }
}
