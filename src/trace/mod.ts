/**
 * Public API of the BXTB binary trace: writer, readers and the human view.
 *
 * @module
 */

export * from "./bxtb.ts";
export * from "./view.ts";
