/**
 * A zip archive read by ranges: the end-of-central-directory record and the central directory come from the
 * file's tail, each member's data from its own range, so no archive is ever whole in memory. Zip64 sizes and
 * offsets are understood. Member names are decoded as fflate decoded them before (UTF-8 when the entry's
 * flag bit 11 says so, else one byte per character), so names and messages stay what they were.
 *
 * A stored (uncompressed) member's data is its bytes, at the offset its local header leads to:
 *
 * @example
 * ```ts
 * import { zipSync } from "fflate";
 * import { bytesReader, memberDataOffset, readZipEntries } from "./archive.ts";
 * import assert from "node:assert/strict";
 * const reader = bytesReader(zipSync({ "a.csv": new TextEncoder().encode("x,y\n") }, { level: 0 }));
 * const entries = await readZipEntries(reader);
 * assert.deepEqual(entries.map((e) => [e.name, e.method, e.size]), [["a.csv", 0, 4]]);
 * const at = await memberDataOffset(reader, entries[0]);
 * assert.equal(new TextDecoder().decode(await reader.read(at, entries[0].compressedSize)), "x,y\n");
 * ```
 * @module
 */

/** What the zip readers need from a file: its size and reads at any offset. */
export interface RangeReader {
  readonly size: number;
  /** `length` bytes from `offset` (fewer only where the file ends), in an array the caller owns. */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** One member as the central directory describes it. */
export interface ZipEntry {
  /** The stored name (not normalised). */
  name: string;
  /** 0 store, 8 deflate; anything else cannot be read. */
  method: number;
  compressedSize: number;
  /** Uncompressed size. */
  size: number;
  /** CRC-32 of the uncompressed bytes. */
  crc32: number;
  /** Offset of the member's local header. */
  localOffset: number;
}

/** The archive's structure is broken (not a zip, truncated, offsets outside the file). */
export class ZipFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ZipFormatError";
  }
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
/** EOCD (22 bytes) plus the longest comment (65535). */
const TAIL_MAX = 22 + 0xffff;
/** A central directory larger than this is refused rather than read into memory. */
const MAX_CENTRAL_DIRECTORY = 256 * 1024 * 1024;

const utf8 = new TextDecoder("utf-8");

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 16384) {
    out += String.fromCharCode(...bytes.subarray(i, Math.min(bytes.length, i + 16384)));
  }
  return out;
}

function u64(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * 0x100000000;
}

async function readExact(reader: RangeReader, offset: number, length: number, what: string) {
  if (offset < 0 || offset + length > reader.size) {
    throw new ZipFormatError(`invalid zip data (${what} lies outside the file)`);
  }
  const bytes = await reader.read(offset, length);
  if (bytes.length !== length) throw new ZipFormatError(`invalid zip data (${what} is truncated)`);
  return bytes;
}

/**
 * The members listed in the central directory, in its order (directories included). Throws
 * {@link ZipFormatError} when the structure is broken.
 */
export async function readZipEntries(reader: RangeReader): Promise<ZipEntry[]> {
  if (reader.size < 22) throw new ZipFormatError("invalid zip data (no end of central directory record)");
  const tailStart = Math.max(0, reader.size - TAIL_MAX);
  const tail = await readExact(reader, tailStart, reader.size - tailStart, "the end record");
  const tv = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let e = tail.length - 22;
  while (e >= 0 && tv.getUint32(e, true) !== EOCD_SIG) e--;
  if (e < 0) throw new ZipFormatError("invalid zip data (no end of central directory record)");
  let count = tv.getUint16(e + 10, true);
  let cdSize = tv.getUint32(e + 12, true);
  let cdOffset = tv.getUint32(e + 16, true);
  // Zip64: the locator sits right before the end record and points at the zip64 end record.
  const eocdAbs = tailStart + e;
  if (eocdAbs >= 20) {
    const loc = e >= 20
      ? tail.subarray(e - 20, e)
      : await readExact(reader, eocdAbs - 20, 20, "zip64 locator");
    const lv = new DataView(loc.buffer, loc.byteOffset, loc.byteLength);
    if (lv.getUint32(0, true) === ZIP64_LOCATOR_SIG) {
      const at = u64(lv, 8);
      const rec = await readExact(reader, at, 56, "the zip64 end record");
      const rv = new DataView(rec.buffer, rec.byteOffset, rec.byteLength);
      if (rv.getUint32(0, true) !== ZIP64_EOCD_SIG) {
        throw new ZipFormatError("invalid zip data (zip64 end record)");
      }
      count = u64(rv, 32);
      cdSize = u64(rv, 40);
      cdOffset = u64(rv, 48);
    }
  }
  if (count === 0) return [];
  if (cdSize > MAX_CENTRAL_DIRECTORY) {
    throw new ZipFormatError(`central directory of ${cdSize} bytes is larger than bxp reads`);
  }
  const cd = await readExact(reader, cdOffset, cdSize, "the central directory");
  const cv = new DataView(cd.buffer, cd.byteOffset, cd.byteLength);
  const entries: ZipEntry[] = [];
  let o = 0;
  for (let i = 0; i < count; i++) {
    if (o + 46 > cd.length || cv.getUint32(o, true) !== CENTRAL_SIG) {
      throw new ZipFormatError(`invalid zip data (central directory entry ${i + 1} of ${count})`);
    }
    const flags = cv.getUint16(o + 8, true);
    const method = cv.getUint16(o + 10, true);
    const crc = cv.getUint32(o + 16, true);
    let compressedSize = cv.getUint32(o + 20, true);
    let size = cv.getUint32(o + 24, true);
    const nameLen = cv.getUint16(o + 28, true);
    const extraLen = cv.getUint16(o + 30, true);
    const commentLen = cv.getUint16(o + 32, true);
    let localOffset = cv.getUint32(o + 42, true);
    const nameStart = o + 46;
    const extraStart = nameStart + nameLen;
    const next = extraStart + extraLen + commentLen;
    if (next > cd.length) throw new ZipFormatError(`invalid zip data (central directory entry ${i + 1})`);
    const rawName = cd.subarray(nameStart, extraStart);
    const name = flags & 0x800 ? utf8.decode(rawName) : latin1(rawName);
    // Zip64 extra field (id 1): the 64-bit values, in this order, of those stored as 0xffffffff.
    const needSize = size === 0xffffffff, needCsize = compressedSize === 0xffffffff;
    const needOffset = localOffset === 0xffffffff;
    if (needSize || needCsize || needOffset) {
      for (let x = extraStart; x + 4 <= extraStart + extraLen;) {
        const id = cv.getUint16(x, true);
        const len = cv.getUint16(x + 2, true);
        if (id === 1) {
          let f = x + 4;
          const take = () => {
            if (f + 8 > x + 4 + len) throw new ZipFormatError(`invalid zip data (zip64 field of '${name}')`);
            const v = u64(cv, f);
            f += 8;
            return v;
          };
          if (needSize) size = take();
          if (needCsize) compressedSize = take();
          if (needOffset) localOffset = take();
          break;
        }
        x += 4 + len;
      }
    }
    entries.push({ name, method, compressedSize, size, crc32: crc, localOffset });
    o = next;
  }
  return entries;
}

/**
 * Where a member's compressed bytes start: after its local header, whose own name and extra lengths count
 * (they may differ from the central directory's).
 */
export async function memberDataOffset(reader: RangeReader, entry: ZipEntry): Promise<number> {
  const head = await readExact(reader, entry.localOffset, 30, `the local header of '${entry.name}'`);
  const hv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (hv.getUint32(0, true) !== LOCAL_SIG) {
    throw new ZipFormatError(`invalid zip data (no local header for '${entry.name}')`);
  }
  const start = entry.localOffset + 30 + hv.getUint16(26, true) + hv.getUint16(28, true);
  if (start + entry.compressedSize > reader.size) {
    throw new ZipFormatError(`invalid zip data ('${entry.name}' runs past the end of the file)`);
  }
  return start;
}

/**
 * A {@link RangeReader} over bytes already in memory (tests, small callers).
 *
 * @example
 * ```ts
 * import { bytesReader } from "./archive.ts";
 * const r = bytesReader(new Uint8Array([1, 2, 3]));
 * import assert from "node:assert/strict";
 * assert.deepEqual(await r.read(1, 5), new Uint8Array([2, 3])); // cut at the end
 * ```
 */
export function bytesReader(bytes: Uint8Array): RangeReader {
  return {
    size: bytes.length,
    read: (offset, length) => Promise.resolve(bytes.slice(offset, Math.min(bytes.length, offset + length))),
  };
}
