/**
 * CRC-32 (IEEE 802.3, the zip checksum), computed incrementally eight bytes at a time (slicing-by-8), so
 * checking a member costs far less than inflating it.
 *
 * @example
 * ```ts
 * import { crc32 } from "./crc32.ts";
 * import assert from "node:assert/strict";
 * assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
 * ```
 * @module
 */

const TABLES: Uint32Array[] = (() => {
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  const tables = [t0];
  for (let i = 1; i < 8; i++) {
    const prev = tables[i - 1];
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n++) t[n] = (prev[n] >>> 8) ^ t0[prev[n] & 0xff];
    tables.push(t);
  }
  return tables;
})();

/**
 * Continues a CRC-32 over `bytes`: pass the previous result as `crc` (0 to start).
 *
 * @example
 * ```ts
 * import { crc32 } from "./crc32.ts";
 * import assert from "node:assert/strict";
 * const whole = crc32(new Uint8Array([1, 2, 3]));
 * assert.equal(crc32(new Uint8Array([3]), crc32(new Uint8Array([1, 2]))) === whole, true);
 * ```
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
  let c = ~crc;
  let i = 0;
  const n = bytes.length;
  const end8 = n - (n % 8);
  for (; i < end8; i += 8) {
    const a = c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    c = t7[a & 0xff] ^ t6[(a >>> 8) & 0xff] ^ t5[(a >>> 16) & 0xff] ^ t4[a >>> 24] ^
      t3[bytes[i + 4]] ^ t2[bytes[i + 5]] ^ t1[bytes[i + 6]] ^ t0[bytes[i + 7]];
  }
  for (; i < n; i++) c = t0[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
