/**
 * UTF-8 sizes of JS strings, counted without encoding them.
 *
 * @example
 * ```ts
 * import { utf8Length } from "./utf8.ts";
 * import assert from "node:assert/strict";
 * assert.equal(utf8Length("aé€😀"), 10);
 * ```
 * @module
 */

/**
 * Bytes of `text` in UTF-8 exactly as `TextEncoder` writes it: a surrogate pair is 4 bytes, a lone
 * surrogate is the 3 bytes of its replacement character U+FFFD.
 *
 * @example
 * ```ts
 * import { utf8Length } from "./utf8.ts";
 * import assert from "node:assert/strict";
 * assert.equal(utf8Length("\ud800"), 3);
 * ```
 */
export function utf8Length(text: string): number {
  const end = text.length;
  let bytes = end; // one byte per unit, plus the extra bytes counted below
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: two units, four bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * Bytes the UTF-16 unit at `i` adds to {@link utf8Length}'s count, so that summing it over a prefix gives
 * the prefix's exact byte offset: a pair's high half carries its 4 bytes and its low half 0; a lone
 * surrogate, either half, the 3 bytes of U+FFFD.
 *
 * @example
 * ```ts
 * import { utf8UnitBytes } from "./utf8.ts";
 * import assert from "node:assert/strict";
 * assert.equal(utf8UnitBytes("😀", 0), 4);
 * assert.equal(utf8UnitBytes("😀", 1), 0);
 * assert.equal(utf8UnitBytes("\udc00", 0), 3);
 * ```
 */
export function utf8UnitBytes(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if ((c & 0xfc00) === 0xd800) return (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 4 : 3;
  if ((c & 0xfc00) === 0xdc00) return i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800 ? 0 : 3;
  return 3;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * True when `bytes` up to their last line feed (all of them when there is none) are strict UTF-8. A read
 * chunk may end inside a multi-byte character, so what follows the last line break is not judged; this is
 * how bxp-cli checks an input's first chunk.
 *
 * @example
 * ```ts
 * import { isValidUtf8Prefix } from "./utf8.ts";
 * import assert from "node:assert/strict";
 * const euro = new TextEncoder().encode("€"); // 3 bytes
 * assert.equal(isValidUtf8Prefix(new Uint8Array([0x61, 0x0a, euro[0], euro[1]])), true);
 * assert.equal(isValidUtf8Prefix(new Uint8Array([0xff, 0x0a, 0x61])), false);
 * assert.equal(isValidUtf8Prefix(new Uint8Array([euro[0], euro[1]])), false);
 * ```
 */
export function isValidUtf8Prefix(bytes: Uint8Array): boolean {
  let end = bytes.lastIndexOf(10);
  if (end < 0) end = bytes.length;
  try {
    strictUtf8.decode(bytes.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}
