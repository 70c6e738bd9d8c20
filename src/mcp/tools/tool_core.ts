/**
 * What the tool handlers call in the core beyond argument handling: the evaluation jobs, the annotated
 * validation, the reference, the template library and the drafter. Together they pull in the expression
 * language, about seventy modules, so no module a session loads at its start imports this one: it is
 * loaded on first need (or once `initialize` is answered) through `core_loader.ts`, and a session
 * answers `initialize` and `tools/list` without it.
 *
 * @example
 * ```ts
 * import { loadToolCore } from "./core_loader.ts";
 * import assert from "node:assert/strict";
 * const core = await loadToolCore();
 * assert.equal(
 *   core.runInline({ kind: "eval", expr: "1 + 2", headers: null, fields: null })?.text,
 *   '{"ok":true,"value":"3"}',
 * );
 * ```
 * @module
 */

export { annotateConfig, docsAnswer, outsideRootFindings, runEvalJob, runInline } from "../../inspect/mod.ts";
export { builtinLibrary, fetchLibraryAnswer, findTemplate, listLibraryJson } from "../../templates/mod.ts";
// The library as bxp-cli resolves it (built-ins, then the program's and the user's templates folders).
export { readLibrary } from "../../host/mod.ts";
export { draftConfig } from "../../draft/mod.ts";
export { sniffCsv } from "../../draft/mod.ts";
