/**
 * What both programs read from the machine they run on, in one place so that bxp-cli and bxp-mcp agree: the
 * template library's folders (built-ins, the program's `templates/`, the user's). This is host code (it
 * reads `Deno.*`); the core never imports it (`tests/architecture_test.ts` checks it).
 *
 * @example
 * ```ts
 * import { libraryFolders } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.equal(libraryFolders()[0].source, "program");
 * ```
 * @module
 */

// @entry ./pid_probe.ts

export { libraryFolders, loadLibrary, readLibrary } from "./template_library.ts";
export { pidRunning } from "./pid_probe.ts";
