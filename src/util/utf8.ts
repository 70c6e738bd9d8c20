/**
 * UTF-8 sizes of JS strings, counted without encoding them.
 *
 * @example
 * ```ts
 * import { utf8Length } from "./utf8.ts";
 * utf8Length("aé€😀"); // 10
 * ```
 * @module
 */

/**
 * Bytes of `text` in UTF-8 exactly as `TextEncoder` writes it: a surrogate pair is 4 bytes, a lone
 * surrogate is the 3 bytes of its replacement character U+FFFD.
 *
 * @example
 * ```ts
 * utf8Length("\ud800"); // 3
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
