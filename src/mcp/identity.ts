/**
 * Who bxp-mcp says it is: the names in `serverInfo` and the `--version` line. Kept apart from `help.ts`
 * (which reads the whole tool catalog) so the main thread can name itself without loading the tools.
 *
 * @module
 */

import { VERSION } from "../version.ts";

/** The machine name in serverInfo and in `--version`. */
export const SERVER_NAME = "bxp-mcp";

/** The human-facing name in serverInfo. */
export const SERVER_TITLE = "bxp: CSV conversion tools";

/**
 * `bxp-mcp --version`.
 *
 * @example
 * ```ts
 * import { versionText } from "./identity.ts";
 * import assert from "node:assert/strict";
 * assert.equal(versionText().startsWith("bxp-mcp "), true);
 * ```
 */
export function versionText(): string {
  return `${SERVER_NAME} ${VERSION}\n`;
}
