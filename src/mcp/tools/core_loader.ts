/**
 * Loading the tool core (`tool_core.ts`: the language and what is built on it) once per thread, on first
 * need. A session's handshake does not wait for it: a cold start spends most of its time loading modules,
 * and the language is most of them. The server starts the load once its `initialize` answer is out,
 * usually seconds before a model's first call; a call that comes sooner waits for the same load.
 *
 * @example
 * ```ts
 * import { loadedToolCore, loadToolCore } from "./core_loader.ts";
 * import assert from "node:assert/strict";
 * const core = loadedToolCore() ?? await loadToolCore(); // no await once it has loaded
 * assert.equal(core.docsAnswer({ name: "UPPER" }).text !== undefined, true);
 * ```
 * @module
 */

/** The tool core's exports. */
export type ToolCore = typeof import("./tool_core.ts");

let loaded: ToolCore | null = null;
let loading: Promise<ToolCore> | null = null;

/**
 * The tool core, loading it if no one has yet. A failed load (a module missing from a broken install)
 * rejects every caller waiting for it, and the next call tries again.
 */
export function loadToolCore(): Promise<ToolCore> {
  if (loaded !== null) return Promise.resolve(loaded);
  loading ??= import("./tool_core.ts").then(
    (core) => loaded = core,
    (error) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/**
 * The tool core if it has loaded, else null: a handler holding it answers without awaiting, so an inline
 * answer costs no extra turn of the event loop.
 */
export function loadedToolCore(): ToolCore | null {
  return loaded;
}
