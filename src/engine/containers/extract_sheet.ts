/**
 * Extracts the `xlsx_sheet` specs of one workbook into their intermediate CSV files as streams: the sheet
 * part is read and inflated chunk by chunk, parsed as it arrives, and its CSV rows are written to a staged
 * output as they complete. Memory stays flat whatever the sheet's size (the shared strings and styles are
 * the only parts held whole).
 *
 * The intermediate CSV stays beside the workbook, as bxp leaves it (the templates read it from the data
 * folder), but a workbook may come from an attacker: like a zip member (see `targets.ts`), a sheet never
 * replaces a file this run did not write unless that file already holds its exact bytes (then nothing is
 * written), and never writes a file named like a bxp-cli config.
 *
 * @example
 * ```ts
 * import { extractWorkbook } from "./extract_sheet.ts";
 * import { ContainerThreads } from "./threads.ts";
 * import { MemoryFs } from "../memory_fs.ts";
 * import { zipSync } from "fflate";
 * import assert from "node:assert/strict";
 * const xml = (text: string) => new TextEncoder().encode(text);
 * const ns = "http://schemas.openxmlformats.org/", main = `xmlns="${ns}spreadsheetml/2006/main"`;
 * const fs = new MemoryFs("/p"); // a one-sheet workbook: "n" over 5, the parts an .xlsx needs at least
 * fs.put("data/a.xlsx", zipSync({
 *   "xl/workbook.xml": xml(`<workbook ${main} xmlns:r="${ns}officeDocument/2006/relationships"><sheets>` +
 *     `<sheet name="S" sheetId="1" r:id="r1"/></sheets></workbook>`),
 *   "xl/_rels/workbook.xml.rels": xml(`<Relationships xmlns="${ns}package/2006/relationships"><Relationship ` +
 *     `Id="r1" Type="${ns}officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`),
 *   "xl/worksheets/sheet1.xml": xml(`<worksheet ${main}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>n</t>` +
 *     `</is></c></row><row r="2"><c r="A2"><v>5</v></c></row></sheetData></worksheet>`),
 * }));
 * const specs = [{ name: "S", headerRow: 1, outputSuffix: "_s.csv" }];
 * const threads = new ContainerThreads(0); // 0: inflate on the calling thread
 * try {
 *   await extractWorkbook({ fs, dir: "data", book: "a.xlsx", specs, threads });
 * } finally {
 *   await threads.close();
 * }
 * assert.equal(new TextDecoder().decode(fs.get("data/a_s.csv")), "n\n5\n"); // beside the workbook
 * ```
 * @module
 */

import { intermediateCsvName, SheetCsv, XlsxError, XlsxWorkbook } from "../../formats/xlsx.ts";
import type { TemplateConfig } from "../../config/mod.ts";
import type { EngineFs, StagedOutput } from "../host.ts";
import { memberChunks } from "./member_stream.ts";
import type { ContainerThreads } from "./threads.ts";
import { collectGarbageHint } from "../gc_hint.ts";
import { isConfigName, SameContent, TargetRefusal, type TargetState, targetState } from "./targets.ts";

/** What {@link extractWorkbook} needs. */
export interface ExtractRequest {
  fs: EngineFs;
  dir: string;
  book: string;
  specs: readonly NonNullable<TemplateConfig["xlsxSheet"]>[];
  threads: ContainerThreads;
  /** Paths the run's container passes wrote: these may be replaced (filled in here). */
  written?: Set<string>;
}

type Spec = NonNullable<TemplateConfig["xlsxSheet"]>;

/** Where a sheet's CSV goes: a staged output, or a comparison with the file already holding its name. */
type SheetSink = Pick<StagedOutput, "write">;

/** CSV characters gathered before they are encoded and written (small strings die young). */
const WRITE_BATCH = 48 * 1024;

/**
 * Writes one intermediate CSV per spec whose sheet exists (in spec order). Throws {@link XlsxError} (bxp's
 * texts), or {@link TargetRefusal} before writing anything when a sheet may not be written where it goes; an
 * output being written when it fails is discarded.
 */
export async function extractWorkbook(req: ExtractRequest): Promise<void> {
  const { fs, dir, book } = req;
  const file = await fs.openRandomAccess(fs.join(dir, book));
  try {
    const workbook = await XlsxWorkbook.open(file);
    const written = req.written ?? new Set<string>();
    // Every spec's target is judged before any is written, and the comparisons run first, so a refused
    // sheet leaves nothing of this workbook behind.
    const jobs: { spec: Spec; sheetName: string; target: string; state: TargetState }[] = [];
    for (const spec of req.specs) {
      const sheetName = workbook.findSheet(spec.name);
      if (sheetName === null) continue;
      const name = intermediateCsvName(book, spec.outputSuffix);
      if (isConfigName(name)) {
        throw new TargetRefusal(
          `sheet '${sheetName}' maps to '${name}', the name of a bxp-cli config file; a workbook never writes one`,
        );
      }
      const target = fs.join(dir, name);
      // Two specs of one folder with one suffix: the later replaces the earlier, as in bxp.
      const state: TargetState = jobs.some((j) => j.target === target)
        ? { kind: "ours" }
        : await targetState(fs, target, written);
      jobs.push({ spec, sheetName, target, state });
    }
    const refusal = (sheetName: string, target: string) =>
      new TargetRefusal(
        `sheet '${sheetName}' would replace '${target}', which holds other content and was not written by ` +
          `this run; a workbook never replaces an existing file — move or delete '${target}' (an older ` +
          `extracted copy, for instance) and run again`,
      );
    for (const { spec, sheetName, target, state } of jobs) {
      if (state.kind !== "foreign") continue;
      // Someone else's file: the sheet is compared with it, never written over it.
      const { path, entry } = workbook.sheetPart(sheetName);
      const same = new SameContent(fs.readChunks(target));
      try {
        await writeSheet(file, workbook, path, entry, spec.headerRow, same, req.threads);
        if (!(await same.end())) throw refusal(sheetName, target);
      } catch (err) {
        throw asXlsxFailure(err);
      } finally {
        await same.close();
      }
    }
    for (const { spec, sheetName, target, state } of jobs) {
      if (state.kind === "foreign") continue;
      const { path, entry } = workbook.sheetPart(sheetName);
      // A free name is claimed only if still free at commit; a file this run wrote is replaced (bxp).
      const out = await fs.createOutput(target, state.kind === "free");
      if (out === "exists") throw refusal(sheetName, target);
      try {
        await writeSheet(file, workbook, path, entry, spec.headerRow, out, req.threads);
        collectGarbageHint(); // the sheet's dead pieces go before the conversion allocates its buffers
        await out.commit();
        written.add(target);
      } catch (err) {
        await out.abort().catch(() => {});
        throw asXlsxFailure(err);
      }
    }
  } finally {
    await file.close();
  }
}

/** What a failure while a sheet is read is reported as: its own refusal, else a damaged workbook. */
function asXlsxFailure(err: unknown): Error {
  if (err instanceof XlsxError || err instanceof TargetRefusal) return err;
  return new XlsxError("XlsxCorrupt", `cannot read xlsx archive: ${(err as Error).message}`);
}

async function writeSheet(
  file: XlsxWorkbook["reader"],
  workbook: XlsxWorkbook,
  path: string,
  entry: Parameters<typeof memberChunks>[1],
  headerRow: number,
  out: SheetSink,
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
