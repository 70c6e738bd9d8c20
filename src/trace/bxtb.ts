/**
 * BXTB, bxp's binary trace stream (`bxp-cli --trace`): metadata frames pointing back into the source file.
 *
 * Layout, all integers little-endian, no padding:
 * - magic `u32 0x42545842` (the bytes `BXTB`), once at the start; no version field;
 * - frames: `type u8`, `chunk_id u16` (always 0 today), `pay_len u32`, then `pay_len` payload bytes;
 * - strings are length-prefixed: `u32 len` + UTF-8 bytes.
 *
 * Payloads:
 * - 0x01 file_start: input_format u8 (0 csv, 1 json, 2 xlsx intermediate csv), template, path,
 *   headers_count u16, headers...
 * - 0x02 file_end: source_rows u64, written_rows u64, errors u32, warnings u32
 * - 0x03 output_row: source_locator u64, output_idx u64, rule_idx i32, action
 * - 0x04 filtered_row: source_locator u64, reason
 * - 0x05 error_row: source_locator u64, var_name, error_kind, detail, origin
 * - 0x06 prepass_entry: name, key, field, value
 * - 0x07 done: exit_code i32
 *
 * Readers skip unknown frame types by `pay_len`.
 *
 * @example
 * ```ts
 * import { BxtbWriter, readBxtb } from "./bxtb.ts";
 * import { concatBytes } from "../util/bytes.ts";
 * import assert from "node:assert/strict";
 * const chunks: Uint8Array[] = [];
 * const w = new BxtbWriter((c) => chunks.push(c));
 * w.outputRow(120, 1, 0, "BUY");
 * w.done(0);
 * w.flush();
 * const frames = readBxtb(concatBytes(chunks));
 * assert.deepEqual(
 *   frames[0],
 *   { type: "output_row", chunkId: 0, sourceLocator: 120, outputIdx: 1, ruleIdx: 0, action: "BUY" },
 * );
 * ```
 * @module
 */

import { utf8Length } from "../util/utf8.ts";

/** The magic number, read as a little-endian u32. */
export const BXTB_MAGIC = 0x42545842;

/** Frame type bytes. */
export const FrameType = {
  file_start: 0x01,
  file_end: 0x02,
  output_row: 0x03,
  filtered_row: 0x04,
  error_row: 0x05,
  prepass_entry: 0x06,
  done: 0x07,
} as const;

/** Name of a known frame type. */
export type FrameTypeName = keyof typeof FrameType;

/** `file_start.input_format` values. */
export const InputFormat = { csv: 0, json: 1, xlsx_intermediate_csv: 2 } as const;

/** Name of an input format. */
export type InputFormatName = keyof typeof InputFormat;

const INPUT_FORMAT_NAMES: readonly InputFormatName[] = ["csv", "json", "xlsx_intermediate_csv"];

/** Size of a frame header: type, chunk_id, pay_len. */
export const FRAME_HEADER_SIZE = 7;

/** A decoded `file_start` frame. `inputFormat` is a name, or the raw byte when unknown. */
export interface FileStartFrame {
  type: "file_start";
  chunkId: number;
  inputFormat: InputFormatName | number;
  template: string;
  path: string;
  headers: string[];
}

/** A decoded `file_end` frame. */
export interface FileEndFrame {
  type: "file_end";
  chunkId: number;
  sourceRows: number;
  writtenRows: number;
  errors: number;
  warnings: number;
}

/** A decoded `output_row` frame. */
export interface OutputRowFrame {
  type: "output_row";
  chunkId: number;
  sourceLocator: number;
  outputIdx: number;
  ruleIdx: number;
  action: string;
}

/** A decoded `filtered_row` frame. */
export interface FilteredRowFrame {
  type: "filtered_row";
  chunkId: number;
  sourceLocator: number;
  reason: string;
}

/** A decoded `error_row` frame. */
export interface ErrorRowFrame {
  type: "error_row";
  chunkId: number;
  sourceLocator: number;
  varName: string;
  errorKind: string;
  detail: string;
  origin: string;
}

/** A decoded `prepass_entry` frame. */
export interface PrepassEntryFrame {
  type: "prepass_entry";
  chunkId: number;
  name: string;
  key: string;
  field: string;
  value: string;
}

/** A decoded `done` frame. */
export interface DoneFrame {
  type: "done";
  chunkId: number;
  exitCode: number;
}

/** Any known frame. */
export type BxtbFrame =
  | FileStartFrame
  | FileEndFrame
  | OutputRowFrame
  | FilteredRowFrame
  | ErrorRowFrame
  | PrepassEntryFrame
  | DoneFrame;

/** A malformed trace (bad magic, truncated frame, inconsistent payload); the message names the offset. */
export class BxtbFormatError extends Error {
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} (at byte ${offset})`);
    this.name = "BxtbFormatError";
    this.offset = offset;
  }
}

/** Receives a chunk of trace bytes. */
export type TraceSink = (chunk: Uint8Array) => void;

/** Options for {@link BxtbWriter}. */
export interface BxtbWriterOptions {
  /** Chunk size handed to the sink. Default 64 KiB. */
  chunkSize?: number;
  /** Write the magic first. Default true (false for frames appended to an existing stream). */
  writeMagic?: boolean;
  /** Reuse one buffer; the sink must then consume each chunk before returning. Default false. */
  reuseBuffer?: boolean;
  /** Value of every frame's chunk_id. Default 0. */
  chunkId?: number;
  /**
   * Where chunk buffers come from (the first one, and a new one each time a flush hands the current one to
   * the sink). Default: a fresh `Uint8Array`. A sink that writes chunks asynchronously can give written ones
   * back through this, so a long run reuses a few buffers instead of leaving one per flush to the collector.
   * Ignored with `reuseBuffer`.
   */
  newChunk?: (size: number) => Uint8Array;
}

const encoder = new TextEncoder();
const TWO_32 = 2 ** 32;
/** Pieces at least this large are handed to the sink by {@link BxtbWriter.appendRaw} without a copy. */
const DIRECT_APPEND_BYTES = 16 * 1024;
function freshChunk(size: number): Uint8Array {
  return new Uint8Array(size);
}

/**
 * Encodes frames into a chunk buffer and hands full chunks to the sink. Call {@link BxtbWriter.flush} when
 * done (and after `done`). Strings are encoded straight into the chunk: a frame allocates nothing, which
 * matters at one `output_row` per written row.
 */
export class BxtbWriter {
  /** Frames written (the magic not counted). */
  frames = 0;

  readonly #sink: TraceSink;
  readonly #chunkSize: number;
  readonly #reuse: boolean;
  readonly #chunkId: number;
  readonly #newChunk: (size: number) => Uint8Array;
  #buf: Uint8Array;
  #view: DataView;
  #pos = 0;

  constructor(sink: TraceSink, options: BxtbWriterOptions = {}) {
    this.#sink = sink;
    this.#chunkSize = Math.max(64, options.chunkSize ?? 64 * 1024);
    this.#reuse = options.reuseBuffer ?? false;
    this.#chunkId = options.chunkId ?? 0;
    this.#newChunk = this.#reuse ? freshChunk : options.newChunk ?? freshChunk;
    this.#buf = this.#newChunk(this.#chunkSize);
    this.#view = new DataView(this.#buf.buffer, this.#buf.byteOffset, this.#buf.byteLength);
    if (options.writeMagic ?? true) {
      this.#ensure(4);
      this.#u32(BXTB_MAGIC);
    }
  }

  /** `file_start`: one per input file, before its rows. */
  fileStart(
    inputFormat: InputFormatName | number,
    template: string,
    path: string,
    headers: readonly string[],
  ): void {
    if (headers.length > 0xffff) throw new RangeError(`file_start: ${headers.length} headers exceed u16`);
    const format = typeof inputFormat === "number" ? inputFormat : InputFormat[inputFormat];
    const t = utf8Length(template);
    const p = utf8Length(path);
    const hs = headers.map(utf8Length);
    let len = 1 + 4 + t + 4 + p + 2;
    for (const h of hs) len += 4 + h;
    this.#header(FrameType.file_start, len);
    this.#u8(format);
    this.#str(template, t);
    this.#str(path, p);
    this.#u16(hs.length);
    for (let i = 0; i < hs.length; i++) this.#str(headers[i], hs[i]);
  }

  /** `file_end`: counts for the file just finished. */
  fileEnd(sourceRows: number, writtenRows: number, errors: number, warnings: number): void {
    this.#header(FrameType.file_end, 24);
    this.#u64(sourceRows);
    this.#u64(writtenRows);
    this.#u32(errors);
    this.#u32(warnings);
  }

  /** `output_row`: one per written output row. */
  outputRow(sourceLocator: number, outputIdx: number, ruleIdx: number, action: string): void {
    const a = utf8Length(action);
    this.#header(FrameType.output_row, 8 + 8 + 4 + 4 + a);
    this.#u64(sourceLocator);
    this.#u64(outputIdx);
    this.#i32(ruleIdx);
    this.#str(action, a);
  }

  /** `filtered_row`: a source row that produced no output, with the reason. */
  filteredRow(sourceLocator: number, reason: string): void {
    const r = utf8Length(reason);
    this.#header(FrameType.filtered_row, 8 + 4 + r);
    this.#u64(sourceLocator);
    this.#str(reason, r);
  }

  /** `error_row`: an expression failure on a row. */
  errorRow(sourceLocator: number, varName: string, errorKind: string, detail: string, origin: string): void {
    const v = utf8Length(varName);
    const k = utf8Length(errorKind);
    const d = utf8Length(detail);
    const o = utf8Length(origin);
    this.#header(FrameType.error_row, 8 + 16 + v + k + d + o);
    this.#u64(sourceLocator);
    this.#str(varName, v);
    this.#str(errorKind, k);
    this.#str(detail, d);
    this.#str(origin, o);
  }

  /** `prepass_entry`: one pre_pass table cell. */
  prepassEntry(name: string, key: string, field: string, value: string): void {
    const n = utf8Length(name);
    const k = utf8Length(key);
    const f = utf8Length(field);
    const v = utf8Length(value);
    this.#header(FrameType.prepass_entry, 16 + n + k + f + v);
    this.#str(name, n);
    this.#str(key, k);
    this.#str(field, f);
    this.#str(value, v);
  }

  /** `done`: exactly once, at the end of the run. */
  done(exitCode: number): void {
    this.#header(FrameType.done, 4);
    this.#i32(exitCode);
  }

  /**
   * Append already-encoded frames verbatim (e.g. a worker's buffer). Without `reuseBuffer`, a piece of
   * {@link DIRECT_APPEND_BYTES} or more goes to the sink as is, after what is buffered (no copy, no fresh
   * chunk buffer per piece): it becomes the sink's, so the caller must not change it afterwards.
   */
  appendRaw(bytes: Uint8Array): void {
    if (!this.#reuse && bytes.length >= DIRECT_APPEND_BYTES) {
      this.flush();
      this.#sink(bytes);
      return;
    }
    this.#ensure(bytes.length);
    this.#buf.set(bytes, this.#pos);
    this.#pos += bytes.length;
  }

  /** Hand buffered bytes to the sink. */
  flush(): void {
    if (this.#pos === 0) return;
    const chunk = this.#buf.subarray(0, this.#pos);
    this.#pos = 0;
    if (!this.#reuse) {
      this.#buf = this.#newChunk(this.#chunkSize);
      this.#view = new DataView(this.#buf.buffer, this.#buf.byteOffset, this.#buf.byteLength);
    }
    this.#sink(chunk);
  }

  /** A frame header; room for the whole frame is made first, so no flush splits it. */
  #header(type: number, payloadLength: number): void {
    this.#ensure(FRAME_HEADER_SIZE + payloadLength);
    this.#u8(type);
    this.#u16(this.#chunkId);
    this.#u32(payloadLength);
    this.frames++;
  }

  /** Make room for `n` more bytes: flush when the chunk is full, grow for a frame bigger than a chunk. */
  #ensure(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    this.flush();
    if (n > this.#buf.length) {
      this.#buf = new Uint8Array(n);
      this.#view = new DataView(this.#buf.buffer);
    }
  }

  #u8(v: number): void {
    this.#buf[this.#pos++] = v & 0xff;
  }

  #u16(v: number): void {
    this.#view.setUint16(this.#pos, v, true);
    this.#pos += 2;
  }

  #u32(v: number): void {
    this.#view.setUint32(this.#pos, v >>> 0, true);
    this.#pos += 4;
  }

  #i32(v: number): void {
    this.#view.setInt32(this.#pos, v | 0, true);
    this.#pos += 4;
  }

  #u64(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`BXTB u64 field out of range: ${v}`);
    this.#view.setUint32(this.#pos, v % TWO_32, true);
    this.#view.setUint32(this.#pos + 4, Math.floor(v / TWO_32), true);
    this.#pos += 8;
  }

  /** `u32 len` + UTF-8 encoded in place; `len` is {@link utf8Length}`(s)`, and equals `s.length` for ASCII. */
  #str(s: string, len: number): void {
    this.#u32(len);
    const buf = this.#buf;
    const at = this.#pos;
    // Short ASCII byte by byte: the usual action, reason or header is a few characters, and a call into the
    // encoder costs more than the loop.
    if (len === s.length && len <= 64) {
      for (let i = 0; i < len; i++) buf[at + i] = s.charCodeAt(i);
    } else {
      encoder.encodeInto(s, buf.subarray(at, at + len));
    }
    this.#pos = at + len;
  }
}

const decoder = new TextDecoder("utf-8");

/** Cursor over one frame payload; any read past its end is a format error. */
class PayloadCursor {
  #pos: number;
  readonly #end: number;
  readonly #view: DataView;
  readonly #bytes: Uint8Array;
  readonly #base: number;

  constructor(bytes: Uint8Array, start: number, end: number, base: number) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#pos = start;
    this.#end = end;
    this.#base = base;
  }

  #need(n: number, what: string): number {
    if (this.#pos + n > this.#end) {
      throw new BxtbFormatError(`frame payload too short for ${what}`, this.#base + this.#pos);
    }
    const at = this.#pos;
    this.#pos += n;
    return at;
  }

  u8(what: string): number {
    return this.#bytes[this.#need(1, what)];
  }

  u16(what: string): number {
    return this.#view.getUint16(this.#need(2, what), true);
  }

  u32(what: string): number {
    return this.#view.getUint32(this.#need(4, what), true);
  }

  i32(what: string): number {
    return this.#view.getInt32(this.#need(4, what), true);
  }

  u64(what: string): number {
    const at = this.#need(8, what);
    return this.#view.getUint32(at, true) + this.#view.getUint32(at + 4, true) * TWO_32;
  }

  str(what: string): string {
    const len = this.u32(`${what} length`);
    const at = this.#need(len, what);
    return decoder.decode(this.#bytes.subarray(at, at + len));
  }
}

function decodeFrame(
  type: number,
  chunkId: number,
  c: PayloadCursor,
): BxtbFrame | null {
  switch (type) {
    case FrameType.file_start: {
      const raw = c.u8("input_format");
      const template = c.str("template");
      const path = c.str("path");
      const count = c.u16("headers_count");
      const headers: string[] = [];
      for (let i = 0; i < count; i++) headers.push(c.str(`header ${i + 1}`));
      const inputFormat = INPUT_FORMAT_NAMES[raw] ?? raw;
      return { type: "file_start", chunkId, inputFormat, template, path, headers };
    }
    case FrameType.file_end:
      return {
        type: "file_end",
        chunkId,
        sourceRows: c.u64("source_rows"),
        writtenRows: c.u64("written_rows"),
        errors: c.u32("errors"),
        warnings: c.u32("warnings"),
      };
    case FrameType.output_row:
      return {
        type: "output_row",
        chunkId,
        sourceLocator: c.u64("source_locator"),
        outputIdx: c.u64("output_idx"),
        ruleIdx: c.i32("rule_idx"),
        action: c.str("action"),
      };
    case FrameType.filtered_row:
      return {
        type: "filtered_row",
        chunkId,
        sourceLocator: c.u64("source_locator"),
        reason: c.str("reason"),
      };
    case FrameType.error_row:
      return {
        type: "error_row",
        chunkId,
        sourceLocator: c.u64("source_locator"),
        varName: c.str("var_name"),
        errorKind: c.str("error_kind"),
        detail: c.str("detail"),
        origin: c.str("origin"),
      };
    case FrameType.prepass_entry:
      return {
        type: "prepass_entry",
        chunkId,
        name: c.str("name"),
        key: c.str("key"),
        field: c.str("field"),
        value: c.str("value"),
      };
    case FrameType.done:
      return { type: "done", chunkId, exitCode: c.i32("exit_code") };
    default:
      return null; // unknown type: skipped by pay_len
  }
}

/**
 * Incremental reader: push chunks as they arrive, get back the frames completed so far. Call
 * {@link BxtbReader.finish} at the end to detect a truncated stream.
 */
export class BxtbReader {
  /** Unknown frame types skipped so far. */
  skippedFrames = 0;

  #buf = new Uint8Array(0);
  #len = 0;
  #consumed = 0; // absolute offset of #buf[0]
  #magicSeen = false;

  /** Add bytes; returns every frame now complete, in order. */
  push(chunk: Uint8Array): BxtbFrame[] {
    this.#append(chunk);
    const frames: BxtbFrame[] = [];
    let pos = 0;
    if (!this.#magicSeen) {
      if (this.#len < 4) return frames;
      const magic = new DataView(this.#buf.buffer, this.#buf.byteOffset, 4).getUint32(0, true);
      if (magic !== BXTB_MAGIC) {
        throw new BxtbFormatError(
          `not a BXTB trace: bad magic 0x${
            magic.toString(16).padStart(8, "0")
          } (expected 0x42545842, "BXTB")`,
          this.#consumed,
        );
      }
      this.#magicSeen = true;
      pos = 4;
    }
    const view = new DataView(this.#buf.buffer, this.#buf.byteOffset, this.#len);
    while (this.#len - pos >= FRAME_HEADER_SIZE) {
      const type = this.#buf[pos];
      const chunkId = view.getUint16(pos + 1, true);
      const payloadLength = view.getUint32(pos + 3, true);
      const start = pos + FRAME_HEADER_SIZE;
      const end = start + payloadLength;
      if (end > this.#len) break;
      const cursor = new PayloadCursor(this.#buf, start, end, this.#consumed);
      const frame = decodeFrame(type, chunkId, cursor);
      if (frame === null) this.skippedFrames++;
      else frames.push(frame);
      pos = end;
    }
    this.#drop(pos);
    return frames;
  }

  /** End of stream: throws when bytes of an incomplete frame (or magic) remain. */
  finish(): void {
    if (!this.#magicSeen) {
      throw new BxtbFormatError(`not a BXTB trace: only ${this.#len} bytes, no magic`, this.#consumed);
    }
    if (this.#len > 0) {
      throw new BxtbFormatError(
        `truncated BXTB frame: ${this.#len} trailing bytes do not make a complete frame`,
        this.#consumed,
      );
    }
  }

  #append(chunk: Uint8Array): void {
    if (this.#len + chunk.length > this.#buf.length) {
      const grown = new Uint8Array(Math.max(this.#len + chunk.length, this.#buf.length * 2, 4096));
      grown.set(this.#buf.subarray(0, this.#len));
      this.#buf = grown;
    }
    this.#buf.set(chunk, this.#len);
    this.#len += chunk.length;
  }

  #drop(n: number): void {
    if (n === 0) return;
    this.#buf.copyWithin(0, n, this.#len);
    this.#len -= n;
    this.#consumed += n;
  }
}

/** Decode a whole trace. Throws {@link BxtbFormatError} on bad magic or a truncated frame. */
export function readBxtb(bytes: Uint8Array): BxtbFrame[] {
  const reader = new BxtbReader();
  const frames = reader.push(bytes);
  reader.finish();
  return frames;
}

/**
 * Adds `base` to the output index of every `output_row` frame in `bytes` (frames without magic), in place.
 * Parallel blocks number their output rows from 0; the engine rebases them to file-wide indexes.
 */
export function shiftOutputIndexes(bytes: Uint8Array, base: number): void {
  if (base === 0) return;
  // Bytes read and written one by one, not through a DataView: the engine releases these buffers by
  // detaching them, and a second view would make that drop V8's ArrayBufferDetaching protector.
  let pos = 0;
  while (pos + FRAME_HEADER_SIZE <= bytes.length) {
    const len = u32le(bytes, pos + 3);
    const end = pos + FRAME_HEADER_SIZE + len;
    if (end > bytes.length) throw new BxtbFormatError("truncated frame while rebasing output indexes", pos);
    if (bytes[pos] === FrameType.output_row) {
      // In doubles, not BigInt: one BigInt per row was most of what rebasing cost. Indexes stay far below
      // 2^53 (the writer refuses larger ones).
      const at = pos + FRAME_HEADER_SIZE + 8;
      const shifted = u32le(bytes, at) + u32le(bytes, at + 4) * TWO_32 + base;
      if (!Number.isSafeInteger(shifted)) throw new RangeError(`BXTB output index out of range: ${shifted}`);
      putU32le(bytes, at, shifted % TWO_32);
      putU32le(bytes, at + 4, Math.floor(shifted / TWO_32));
    }
    pos = end;
  }
}

function u32le(bytes: Uint8Array, at: number): number {
  return (bytes[at] | bytes[at + 1] << 8 | bytes[at + 2] << 16) + bytes[at + 3] * 0x1000000;
}

function putU32le(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
  bytes[at + 2] = (value >>> 16) & 0xff;
  bytes[at + 3] = (value >>> 24) & 0xff;
}
