/**
 * Text encodings for CSV input and output: UTF-8 plus the European single-byte code pages bxp supports.
 *
 * Everything inside the pipeline is a JS string; this module only runs at the edges. Decoding never fails
 * (invalid UTF-8 becomes U+FFFD); encoding to a single-byte code page writes `?` for every code point the
 * page cannot represent, as bxp does.
 *
 * @example
 * ```ts
 * import { decodeBytes, encodeString } from "./encoding.ts";
 * import assert from "node:assert/strict";
 * assert.equal(decodeBytes(new Uint8Array([0x50, 0xf8]), "windows-1250"), "Př");
 * encodeString("Př€", "iso-8859-2"); // Uint8Array [0x50, 0xf8, 0x3f]
 * ```
 * @module
 */

/** Canonical names of the supported encodings (the values `csv_input_encoding` / `csv_output_encoding` take). */
export type EncodingName =
  | "utf-8"
  | "windows-1250"
  | "windows-1251"
  | "windows-1252"
  | "iso-8859-1"
  | "iso-8859-2"
  | "iso-8859-5"
  | "iso-8859-15";

/**
 * Every supported encoding, canonical spelling: bxp's, in its documentation order, then the Cyrillic pages
 * bxp lacks (Windows-1251, ISO-8859-5; Russian, Ukrainian and Bulgarian bank exports).
 */
export const SUPPORTED_ENCODINGS: readonly EncodingName[] = [
  "utf-8",
  "windows-1250",
  "windows-1252",
  "iso-8859-1",
  "iso-8859-2",
  "iso-8859-15",
  "windows-1251",
  "iso-8859-5",
];

const ALIASES: ReadonlyMap<string, EncodingName> = new Map([
  ["utf-8", "utf-8"],
  ["utf8", "utf-8"],
  ["windows-1250", "windows-1250"],
  ["windows1250", "windows-1250"],
  ["cp1250", "windows-1250"],
  ["win1250", "windows-1250"],
  ["windows-1251", "windows-1251"],
  ["windows1251", "windows-1251"],
  ["cp1251", "windows-1251"],
  ["win1251", "windows-1251"],
  ["windows-1252", "windows-1252"],
  ["windows1252", "windows-1252"],
  ["cp1252", "windows-1252"],
  ["win1252", "windows-1252"],
  ["iso-8859-1", "iso-8859-1"],
  ["iso8859-1", "iso-8859-1"],
  ["latin-1", "iso-8859-1"],
  ["latin1", "iso-8859-1"],
  ["iso-8859-2", "iso-8859-2"],
  ["iso8859-2", "iso-8859-2"],
  ["latin-2", "iso-8859-2"],
  ["latin2", "iso-8859-2"],
  ["iso-8859-15", "iso-8859-15"],
  ["iso8859-15", "iso-8859-15"],
  ["latin-9", "iso-8859-15"],
  ["latin9", "iso-8859-15"],
  ["iso-8859-5", "iso-8859-5"],
  ["iso8859-5", "iso-8859-5"],
]);

/**
 * Resolve a config spelling (case-insensitive, with bxp's aliases such as `cp1250` or `latin2`) to its
 * canonical name, or `null` when it is not supported.
 */
export function parseEncoding(name: string): EncodingName | null {
  return ALIASES.get(name.toLowerCase()) ?? null;
}

/** Like {@link parseEncoding} but throws a readable error naming the bad value. */
export function requireEncoding(name: string): EncodingName {
  const enc = parseEncoding(name);
  if (enc === null) {
    throw new RangeError(
      `unsupported encoding '${name}' (supported: ${SUPPORTED_ENCODINGS.join(", ")})`,
    );
  }
  return enc;
}

/** The three bytes of a UTF-8 byte-order mark. */
export const UTF8_BOM: Uint8Array = new Uint8Array([0xef, 0xbb, 0xbf]);

/** True when `bytes` starts with a UTF-8 byte-order mark. */
export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/**
 * `bytes` without a leading UTF-8 BOM (a view, no copy). bxp strips these three bytes at the start of a CSV
 * file whatever the declared input encoding, and only there.
 */
export function stripUtf8Bom(bytes: Uint8Array): Uint8Array {
  return hasUtf8Bom(bytes) ? bytes.subarray(3) : bytes;
}

/** True for the encodings whose every byte is one character (byte offsets equal string offsets). */
export function isSingleByte(enc: EncodingName): boolean {
  return enc !== "utf-8";
}

// The high half (0x80-0xFF) of each single-byte page as code points. Latin-1 is the identity; the WHATWG
// decoders in TextDecoder give the others, including identity C1 mappings for the undefined slots, which is
// what bxp does too. (TextDecoder's "iso-8859-1" label means windows-1252, so it cannot be used for Latin-1.)
const highTables = new Map<EncodingName, Uint16Array>();

function highTable(enc: EncodingName): Uint16Array {
  let table = highTables.get(enc);
  if (table) return table;
  table = new Uint16Array(128);
  if (enc === "iso-8859-1") {
    for (let i = 0; i < 128; i++) table[i] = 0x80 + i;
  } else {
    const bytes = new Uint8Array(128);
    for (let i = 0; i < 128; i++) bytes[i] = 0x80 + i;
    const text = new TextDecoder(enc).decode(bytes);
    for (let i = 0; i < 128; i++) table[i] = text.charCodeAt(i);
  }
  highTables.set(enc, table);
  return table;
}

// Strings for all 256 byte values, so single-byte decoding is one table lookup per byte.
const byteStringTables = new Map<EncodingName, string[]>();

function byteStrings(enc: EncodingName): string[] {
  let table = byteStringTables.get(enc);
  if (table) return table;
  const high = highTable(enc);
  table = new Array<string>(256);
  for (let b = 0; b < 256; b++) table[b] = String.fromCharCode(b < 0x80 ? b : high[b - 0x80]);
  byteStringTables.set(enc, table);
  return table;
}

const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const utf8Encoder = new TextEncoder();
const nativeDecoders = new Map<EncodingName, TextDecoder>();

/**
 * A decoder function for `enc`, bound once so hot loops avoid the lookup. Never strips a BOM: BOM handling
 * belongs to the reader, which knows where the file starts.
 */
export function createDecoder(enc: EncodingName): (bytes: Uint8Array) => string {
  if (enc === "utf-8") return (bytes) => utf8Decoder.decode(bytes);
  if (enc === "iso-8859-1") return decodeLatin1;
  let native = nativeDecoders.get(enc);
  if (!native) {
    native = new TextDecoder(enc, { ignoreBOM: true });
    nativeDecoders.set(enc, native);
  }
  const decoder = native;
  return (bytes) => decoder.decode(bytes);
}

function decodeLatin1(bytes: Uint8Array): string {
  // fromCharCode over bounded slices: Latin-1 bytes are their own code points.
  const step = 8192;
  if (bytes.length <= step) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  let out = "";
  for (let i = 0; i < bytes.length; i += step) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + step) as unknown as number[]);
  }
  return out;
}

/** Decode `bytes` in `enc` to a string (no BOM stripping, never throws). */
export function decodeBytes(bytes: Uint8Array, enc: EncodingName): string {
  return createDecoder(enc)(bytes);
}

/** Decode one byte of a single-byte page (for callers that walk bytes themselves). */
export function decodeSingleByte(byte: number, enc: EncodingName): string {
  return byteStrings(enc)[byte & 0xff];
}

// Reverse maps: code point (BMP) -> byte, 0 meaning "not representable" (0x00 is ASCII and never looked up).
const encodeTables = new Map<EncodingName, Uint8Array>();

function encodeTable(enc: EncodingName): Uint8Array {
  let table = encodeTables.get(enc);
  if (table) return table;
  table = new Uint8Array(0x10000);
  const high = highTable(enc);
  // Walk backwards so the lowest byte wins if a page ever mapped one code point twice.
  for (let i = 127; i >= 0; i--) table[high[i]] = 0x80 + i;
  encodeTables.set(enc, table);
  return table;
}

const QUESTION_MARK = 0x3f;

/**
 * Encode `text` into `out` starting at `pos` for a single-byte page; returns the new position, or -1 when
 * `out` is too small (nothing meaningful is written past its end). Every code point the page lacks becomes
 * one `?` (a surrogate pair is one code point).
 */
export function encodeSingleByteInto(
  text: string,
  enc: EncodingName,
  out: Uint8Array,
  pos: number,
): number {
  const table = encodeTable(enc);
  const n = text.length;
  if (out.length - pos < n) return -1; // one byte per UTF-16 unit is always enough
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      out[pos++] = c;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++; // astral: never in a single-byte page
      out[pos++] = QUESTION_MARK;
    } else {
      out[pos++] = table[c] || QUESTION_MARK;
    }
  }
  return pos;
}

/** Encode `text` to bytes in `enc`; unrepresentable code points become `?`. */
export function encodeString(text: string, enc: EncodingName): Uint8Array {
  if (enc === "utf-8") return utf8Encoder.encode(text);
  const out = new Uint8Array(text.length);
  const end = encodeSingleByteInto(text, enc, out, 0);
  return end === out.length ? out : out.subarray(0, end);
}

/** An encoder function for `enc` (see {@link encodeString}). */
export function createEncoder(enc: EncodingName): (text: string) => Uint8Array {
  return (text) => encodeString(text, enc);
}

/** Number of UTF-8 bytes `text` encodes to (lone surrogates count as the 3-byte U+FFFD). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
