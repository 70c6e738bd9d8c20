/**
 * Extracts the `xlsx_sheet` specs of one workbook into their intermediate CSV files as streams: the sheet
 * part is read and inflated chunk by chunk, parsed as it arrives, and its CSV rows are written to a staged
 * output as they complete. Memory stays flat whatever the sheet's size (the shared strings and styles are
 * the only parts held whole).
 *
 * @example
 * ```ts ignore
 * await extractWorkbook({ fs, dir: "data", book: "a.xlsx", specs, threads });
 * ```
 * @module
 */

import { intermediateCsvName, SheetCsv, XlsxError, XlsxWorkbook } from "../../formats/xlsx.ts";
import type { TemplateConfig } from "../../config/model.ts";
import type { EngineFs, StagedOutput } from "../host.ts";
import { memberChunks } from "./member_stream.ts";
import type { ContainerThreads } from "./threads.ts";
import { collectGarbageHint } from "../gc_hint.ts";

/** What {@link extractWorkbook} needs. */
export interface ExtractRequest {
  fs: EngineFs;
  dir: string;
  book: string;
  specs: readonly NonNullable<TemplateConfig["xlsxSheet"]>[];
  threads: ContainerThreads;
}

/** CSV characters gathered before they are encoded and written (small strings die young). */
const WRITE_BATCH = 48 * 1024;

/**
 * Writes one intermediate CSV per spec whose sheet exists (in spec order). Throws {@link XlsxError} (bxp's
 * texts); an output being written when it fails is discarded.
 */
export async function extractWorkbook(req: ExtractRequest): Promise<void> {
  const { fs, dir, book } = req;
  const file = await fs.openRandomAccess(fs.join(dir, book));
  try {
    const workbook = await XlsxWorkbook.open(file);
    for (const spec of req.specs) {
      const sheetName = workbook.findSheet(spec.name);
      if (sheetName === null) continue;
      const { path, entry } = workbook.sheetPart(sheetName);
      const out = await fs.createOutput(fs.join(dir, intermediateCsvName(book, spec.outputSuffix)), false);
      if (out === "exists") continue; // not asked for (non-exclusive)
      try {
        await writeSheet(file, workbook, path, entry, spec.headerRow, out, req.threads);
        collectGarbageHint(); // the sheet's dead pieces go before the conversion allocates its buffers
        await out.commit();
      } catch (err) {
        await out.abort().catch(() => {});
        if (err instanceof XlsxError) throw err;
        throw new XlsxError("XlsxCorrupt", `cannot read xlsx archive: ${(err as Error).message}`);
      }
    }
  } finally {
    await file.close();
  }
}

async function writeSheet(
  file: XlsxWorkbook["reader"],
  workbook: XlsxWorkbook,
  path: string,
  entry: Parameters<typeof memberChunks>[1],
  headerRow: number,
  out: StagedOutput,
  threads: ContainerThreads,
): Promise<void> {
  // Inflating is a small part of the work (parsing is most of it) and a worker's isolate and buffers cost
  // more memory than it saves time: the sheet inflates on the calling thread, between parsing steps.
  const pool = threads.local;
  const sheet = new SheetCsv(workbook.sheetContext(path, headerRow));
  const encoder = new TextEncoder();
  let pending = "";
  for await (const piece of memberChunks(file, entry, pool.session({ ...entry }))) {
    pending += sheet.push(piece);
    if (pending.length >= WRITE_BATCH) {
      await out.write(encoder.encode(pending));
      pending = "";
    }
  }
  pending += sheet.finish();
  if (pending.length > 0) await out.write(encoder.encode(pending));
}
