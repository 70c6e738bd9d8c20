/**
 * Unpacks one archive's selected members into staged outputs beside it. Members are inflated concurrently
 * (one per inflate thread) and streamed to disk; the outputs are committed together, in archive order, once
 * every member has been inflated and checked, so a damaged archive leaves no member behind (as when members
 * were inflated whole before any was written).
 *
 * @example
 * ```ts ignore
 * const unpacked = await unpackArchive({ fs, dir: "data", zipName: "a.zip", options, threads, fresh: false });
 * ```
 * @module
 */

import { planArchive, unpackFailure, type ZipInputOptions, type ZipPlanMember } from "../../formats/zip.ts";
import type { EngineFs, StagedOutput } from "../host.ts";
import { memberChunks } from "./member_stream.ts";
import type { ContainerThreads } from "./threads.ts";
import { collectGarbageHint } from "../gc_hint.ts";

/** What {@link unpackArchive} needs. */
export interface UnpackRequest {
  fs: EngineFs;
  dir: string;
  zipName: string;
  options: Omit<ZipInputOptions, "zipName">;
  /** The run's inflate threads; started only for an archive worth them (see {@link wantsThreads}). */
  threads: ContainerThreads;
  fresh: boolean;
}

/** Compressed bytes of selected members from which threads pay for their start. */
export const THREADED_MIN_BYTES = 4 * 1024 * 1024;

/** True when members are worth inflating on threads: several of them, and enough bytes. */
export function wantsThreads(members: readonly ZipPlanMember[]): boolean {
  const bytes = members.reduce((n, m) => n + m.entry.compressedSize, 0);
  return members.length >= 2 && bytes >= THREADED_MIN_BYTES;
}

/**
 * Unpacks the archive and answers how many members were written (members whose output exists are skipped
 * under `fresh`). Throws `ZipInputError` for the archive's refusals and failures (bxp's texts).
 */
export async function unpackArchive(req: UnpackRequest): Promise<number> {
  const { fs, dir, zipName } = req;
  const file = await fs.openRandomAccess(fs.join(dir, zipName));
  const staged: (StagedOutput | null)[] = [];
  try {
    const plan = await planArchive(file, { ...req.options, zipName });
    const todo: ZipPlanMember[] = [];
    for (const m of plan) {
      if (req.fresh && await fs.exists(fs.join(dir, m.outputName))) continue;
      todo.push(m);
    }
    if (todo.length === 0) return 0;
    const pool = wantsThreads(todo) ? await req.threads.pool() : req.threads.local;
    for (let i = 0; i < todo.length; i++) staged.push(null);
    let next = 0;
    let failure: unknown = null;
    const lane = async () => {
      while (failure === null && next < todo.length) {
        const i = next++;
        const m = todo[i];
        try {
          const out = await fs.createOutput(fs.join(dir, m.outputName), false);
          if (out === "exists") continue; // not asked for (non-exclusive)
          staged[i] = out;
          for await (const piece of memberChunks(file, m.entry, pool.session({ ...m.entry }))) {
            if (failure !== null) break;
            await out.write(piece);
          }
          // Done: its buffers go while it waits for the archive's other members.
          await out.flush?.();
        } catch (err) {
          failure ??= err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(pool.size, todo.length) }, lane));
    collectGarbageHint(); // the dead pieces go before the conversion allocates its buffers

    if (failure !== null) throw failure;
    for (let i = 0; i < staged.length; i++) {
      await staged[i]?.commit();
      staged[i] = null;
    }
    return todo.length;
  } catch (err) {
    for (const out of staged) await out?.abort().catch(() => {});
    throw unpackFailure(zipName, err);
  } finally {
    await file.close();
  }
}
