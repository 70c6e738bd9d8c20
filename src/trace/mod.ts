/**
 * Public API of the BXTB binary trace: writer, readers and the human view.
 *
 * @module
 */
// Entry points besides this face: the writer alone for a run, the reader and the views for the tools.
// @entry ./bxtb.ts
// @entry ./view.ts

export * from "./bxtb.ts";
export * from "./view.ts";
