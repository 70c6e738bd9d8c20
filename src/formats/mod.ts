/**
 * Public API of the input/output formats: CSV reader and writer with bxp's dialect rules, encodings,
 * JSON array input and output, zip unpacking (`zip_input`) and the xlsx sheet reader (`xlsx_sheet`).
 *
 * @module
 */
// Entry points besides this face: each format alone, as std's packages export subpaths. A block worker
// reads CSV and writes CSV or JSON without loading the zip and xlsx readers, and bxp-mcp's session worker
// parses an `encoding` argument without loading any reader.
// @entry ./csv_reader.ts
// @entry ./csv_writer.ts
// @entry ./encoding.ts
// @entry ./json_input.ts
// @entry ./json_output.ts
// @entry ./xlsx.ts
// @entry ./zip.ts
// @entry ./zip/archive.ts
// @entry ./zip/member_inflater.ts

export * from "./encoding.ts";
export * from "./csv_reader.ts";
export * from "./csv_writer.ts";
export * from "./number_text.ts";
export * from "./json_input.ts";
export * from "./json_output.ts";
export * from "./zip.ts";
export * from "./xlsx.ts";
export { memberDataOffset } from "./zip/archive.ts";
export { type MemberFacts, memberInflateStream } from "./zip/member_inflater.ts";
