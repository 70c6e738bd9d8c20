/**
 * Public API of the input/output formats: CSV reader and writer with bxp's dialect rules, encodings,
 * JSON array input and output, zip unpacking (`zip_input`) and the xlsx sheet reader (`xlsx_sheet`).
 *
 * @module
 */

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
