/**
 * Row and source context: FIELDS, FILENAME, RECORD_NUM, SHEET_NAME.
 *
 * @module
 */

import { fromInt } from "../decimal.ts";
import type { EagerImpl } from "../spec.ts";
import { intArg } from "./shared.ts";

/** FIELDS(n): value at 1-based position n, "" past the end. */
export const fieldsImpl: EagerImpl = (args, ctx) => {
  const n = intArg(args[0]);
  if (n > BigInt(ctx.fields.length)) return "";
  return ctx.fields[Number(n) - 1] ?? "";
};

/** FILENAME(): input file stem. */
export const filenameImpl: EagerImpl = (_args, ctx) => ctx.filename;

/** RECORD_NUM(): 1-based record number, 0 when stateless. */
export const recordNumImpl: EagerImpl = (_args, ctx) => fromInt(ctx.recordNum);

/** SHEET_NAME(): xlsx sheet name or "". */
export const sheetNameImpl: EagerImpl = (_args, ctx) => ctx.sheetName;
