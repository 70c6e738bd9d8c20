/**
 * Where bxp-mcp keeps its scratch folders (the simulate workspaces' parent, the temp folder the generated
 * token's folder goes under): named here, apart from the simulate part, because the server's main thread
 * loads nothing else of that part. The session worker removes its simulate workspaces when the session
 * ends; the token's folder is `token_folder.ts`'s (the main thread's alone).
 *
 * @module
 */

/** Folder under the system temp folder that holds every workspace. */
export const SIM_ROOT_NAME = "bxp-mcp-sim";

/** How the scratch parent is named in messages (never the server's absolute temp path). */
export const SIM_ROOT_SHOWN = `$TMPDIR/${SIM_ROOT_NAME}`;

/**
 * The system temp folder: the first non-empty of TMPDIR, TMP and TEMP, else `/tmp`.
 *
 * @example
 * ```ts
 * import { tempBase } from "./temp_folders.ts";
 * import assert from "node:assert/strict";
 * assert.equal(tempBase((name) => name === "TMP" ? "/var/tmp" : undefined), "/var/tmp");
 * ```
 */
export function tempBase(readEnv: (name: string) => string | undefined): string {
  for (const name of ["TMPDIR", "TMP", "TEMP"]) {
    const value = readEnv(name);
    if (value !== undefined && value !== "") return value;
  }
  return "/tmp";
}
