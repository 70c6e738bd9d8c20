/**
 * The byte budget of one outgoing message: no answer larger than the client can read in one go.
 *
 * @module
 */

/** Default answer budget: 8 MiB, below the 10 MiB the official TypeScript SDK's stdio reader accepts. */
export const DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * Bytes of `text` in UTF-8, counted without encoding it (a lone surrogate counts as the 3 bytes of its
 * replacement character).
 *
 * @example
 * ```ts
 * utf8Length("aé€😀"); // 10
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 2; // a surrogate pair (2 units) is 4 bytes
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * The UTF-8 size of `json` when it is over `maxBytes`, else null. Most answers are judged without
 * counting: a UTF-16 unit is at most 3 UTF-8 bytes.
 */
export function overBudget(json: string, maxBytes: number): number | null {
  if (json.length * 3 <= maxBytes) return null;
  const bytes = utf8Length(json);
  return bytes > maxBytes ? bytes : null;
}
