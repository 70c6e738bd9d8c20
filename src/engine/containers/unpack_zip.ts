/**
 * Unpacks one archive's selected members into staged outputs beside it. Members are inflated concurrently
 * (one per inflate thread) and streamed to disk; the outputs are committed together, in archive order, once
 * every member has been inflated and checked, so a damaged archive leaves no member behind (as when members
 * were inflated whole before any was written).
 *
 * Members stay beside the archive as bxp leaves them (templates read them from the data folder; `--fresh`
 * and the partition modes rely on them), but an archive may come from an attacker, so a member never
 * replaces a file (see `targets.ts`): a name taken by a file with other bytes, a bxp-cli config's name, or a
 * name another archive of the folder unpacks to as well stops the run before any member is written. A file
 * already holding the member's exact bytes (an earlier run's copy) is compared, not rewritten.
 *
 * @example
 * ```ts
 * import { unpackArchive } from "./unpack_zip.ts";
 * import { ContainerThreads } from "./threads.ts";
 * import { MemoryFs } from "../memory_fs.ts";
 * import { zipSync } from "fflate";
 * import assert from "node:assert/strict";
 * const csv = new TextEncoder().encode("h\nx\n");
 * const fs = new MemoryFs("/p");
 * fs.put("data/a.zip", zipSync({ "in/a.csv": csv, "notes.txt": new Uint8Array(3) }));
 * const options = { entryPattern: ".csv", dirMode: "basename" as const, pathSeparator: "_" };
 * const threads = new ContainerThreads(0); // 0: inflate on the calling thread
 * try {
 *   const unpacked = await unpackArchive({ fs, dir: "data", zipName: "a.zip", options, threads, fresh: false });
 *   assert.equal(unpacked, 1);
 *   assert.deepEqual(fs.get("data/a.csv"), csv);
 * } finally {
 *   await threads.close();
 * }
 * ```
 * @module
 */

import {
  planArchive,
  unpackFailure,
  ZipInputError,
  type ZipInputOptions,
  type ZipPlanMember,
} from "../../formats/zip.ts";
import type { EngineFs, RandomAccessFile, StagedOutput } from "../host.ts";
import { memberChunks } from "./member_stream.ts";
import type { ContainerThreads } from "./threads.ts";
import type { InflatePool } from "./pool.ts";
import { collectGarbageHint } from "../gc_hint.ts";
import { isConfigName, SameContent, targetState } from "./targets.ts";

/** What {@link unpackArchive} needs. */
export interface UnpackRequest {
  fs: EngineFs;
  dir: string;
  zipName: string;
  options: Omit<ZipInputOptions, "zipName">;
  /** The run's inflate threads; started only for an archive worth them (see {@link wantsThreads}). */
  threads: ContainerThreads;
  fresh: boolean;
  /**
   * Output names earlier archives of this folder unpacked in this run, and which archive (filled in here):
   * two archives never write one name, as two members of one archive never do.
   */
  claimed?: Map<string, string>;
  /** Paths the run's container passes wrote (filled in here, read by the xlsx pass). */
  written?: Set<string>;
}

/** One member to unpack: written where its name is free, or compared with the file already there. */
interface Job {
  member: ZipPlanMember;
  path: string;
  compare: boolean;
}

/** The refusal of a member whose name is taken by a file with other bytes. */
function replaceRefusal(zipName: string, m: ZipPlanMember, path: string): ZipInputError {
  return new ZipInputError(
    "refused_target",
    `zip '${zipName}': member '${m.entryName}' would replace '${path}', which holds other content and was not ` +
      `written by this run; an archive never replaces an existing file — move or delete '${path}' (an older ` +
      `unpacked copy, for instance) and run again`,
  );
}

/** Refuses, before anything is inflated, the members that must not be written (see the module comment). */
async function planJobs(req: UnpackRequest, plan: readonly ZipPlanMember[]): Promise<Job[]> {
  const { fs, dir, zipName } = req;
  for (const m of plan) {
    if (isConfigName(m.outputName)) {
      throw new ZipInputError(
        "refused_target",
        `zip '${zipName}': member '${m.entryName}' maps to '${m.outputName}', the name of a bxp-cli config ` +
          `file; an archive never writes one (it would steer later runs over this folder)`,
      );
    }
    const earlier = req.claimed?.get(m.outputName);
    if (earlier !== undefined) {
      throw new ZipInputError(
        "duplicate_name",
        `zip '${zipName}': member '${m.entryName}' maps to '${m.outputName}', which '${earlier}' unpacks too — ` +
          `one would replace the other; keep one of the archives in the folder`,
      );
    }
  }
  for (const m of plan) req.claimed?.set(m.outputName, zipName);
  const jobs: Job[] = [];
  for (const m of plan) {
    const path = fs.join(dir, m.outputName);
    const state = await targetState(fs, path, req.written ?? new Set());
    if (req.fresh && state.kind !== "free") continue; // bxp: --fresh keeps a member whose file exists
    if (state.kind === "foreign" && state.size !== m.entry.size) throw replaceRefusal(zipName, m, path);
    jobs.push({ member: m, path, compare: state.kind === "foreign" });
  }
  return jobs;
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
    const todo = await planJobs(req, plan);
    if (todo.length === 0) return 0;
    const pool = wantsThreads(todo.map((j) => j.member)) ? await req.threads.pool() : req.threads.local;
    for (let i = 0; i < todo.length; i++) staged.push(null);
    let next = 0;
    let failure: unknown = null;
    const lane = async () => {
      while (failure === null && next < todo.length) {
        const i = next++;
        const { member: m, path, compare } = todo[i];
        try {
          if (compare) {
            await compareMember(req, file, pool, todo[i]);
            continue;
          }
          // Exclusive: the name is claimed at commit only if still free (a file appearing meanwhile stays).
          const out = await fs.createOutput(path, true);
          if (out === "exists") throw replaceRefusal(zipName, m, path);
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
      const out = staged[i];
      if (out === null) continue;
      await out.commit();
      staged[i] = null;
      req.written?.add(todo[i].path);
    }
    return todo.length;
  } catch (err) {
    for (const out of staged) await out?.abort().catch(() => {});
    throw unpackFailure(zipName, err);
  } finally {
    await file.close();
  }
}

/** Inflates a member whose name is taken and compares it with the file there; refuses it when they differ. */
async function compareMember(
  req: UnpackRequest,
  file: RandomAccessFile,
  pool: InflatePool,
  job: Job,
): Promise<void> {
  const same = new SameContent(req.fs.readChunks(job.path));
  try {
    for await (const piece of memberChunks(file, job.member.entry, pool.session({ ...job.member.entry }))) {
      await same.write(piece);
      if (same.differs) break;
    }
    if (!(await same.end())) throw replaceRefusal(req.zipName, job.member, job.path);
  } finally {
    await same.close();
  }
}
