/**
 * The byte budget of one outgoing message: no answer larger than the client can read in one go.
 *
 * @module
 */

import { utf8Length } from "../../util/utf8.ts";

/** Default answer budget: 8 MiB, below the 10 MiB the official TypeScript SDK's stdio reader accepts. */
export const DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * The UTF-8 size of `json` when it is over `maxBytes`, else null. Most answers are judged without
 * counting: a UTF-16 unit is at most 3 UTF-8 bytes.
 */
export function overBudget(json: string, maxBytes: number): number | null {
  if (json.length * 3 <= maxBytes) return null;
  const bytes = utf8Length(json);
  return bytes > maxBytes ? bytes : null;
}
