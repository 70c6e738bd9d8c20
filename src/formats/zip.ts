/**
 * `zip_input`: unpack the members of a zip whose names end with `entry_pattern` into flat intermediate files.
 *
 * bxp's rules:
 * - Backslashes in member names are read as `/`; directory entries (names ending in `/`) are ignored.
 * - A member is selected when its full in-zip name ends with `entry_pattern` (case-sensitive, literal).
 * - Output name: `basename` mode keeps the last path component (`CSV/obec_A.csv` -> `obec_A.csv`);
 *   `keep_path` mode replaces every `/` with `path_separator` (`CSV/obec_A.csv` -> `CSV_obec_A.csv`).
 * - An output name that is empty, `.`, `..` or still contains `/` is refused (zip-slip guard), and so are
 *   two members mapping to the same output name. Safer than bxp: output names holding `\\`, `:` or NUL, or
 *   that could climb on any platform ({@link climbingPath}), are refused too, and in `keep_path` mode so are
 *   member names that are absolute or hold `..` segments. Both are fatal for the run; names are checked for every
 *   selected member before any member is inflated.
 * - Only store and deflate members can be read; any other member makes bxp skip the whole archive with a
 *   warning ({@link ZipInputError} kind `unsupported_compression`).
 *
 * The messages of {@link ZipInputError} are bxp's texts without the leading `fatal error: ` / `warning: `.
 *
 * The archive is read by ranges ({@link planArchive} reads only its central directory); members are inflated
 * as streams by the caller (`src/engine/containers/`), or whole by {@link unzipMembers} for small inputs.
 * Unlike fflate before it, every member's size and CRC-32 are checked.
 *
 * @example
 * ```ts
 * import { zipSync } from "fflate";
 * import { unzipMembers } from "./zip.ts";
 * import assert from "node:assert/strict";
 * const zip = zipSync({ "CSV/a.csv": new TextEncoder().encode("x\n") });
 * assert.deepEqual(
 *   await unzipMembers(zip, { entryPattern: ".csv", dirMode: "basename", pathSeparator: "_" }),
 *   [{ entryName: "CSV/a.csv", outputName: "a.csv", bytes: new Uint8Array([120, 10]) }],
 * );
 * ```
 * @module
 */

import {
  bytesReader,
  memberDataOffset,
  type RangeReader,
  readZipEntries,
  type ZipEntry,
} from "./zip/archive.ts";
import { MemberInflater } from "./zip/member_inflater.ts";

export type { RangeReader, ZipEntry } from "./zip/archive.ts";

/** How member paths become flat file names (`zip_input.dir_mode`). */
export type ZipDirMode = "basename" | "keep_path";

/** The `zip_input` settings. */
export interface ZipInputOptions {
  /** Literal suffix a member name must end with (`zip_input.entry_pattern`, default `.csv`). */
  entryPattern: string;
  /** `zip_input.dir_mode` (default `basename`). */
  dirMode: ZipDirMode;
  /** `zip_input.path_separator` for `keep_path` (default `_`). */
  pathSeparator: string;
  /** The archive's file name, for messages. */
  zipName?: string;
}

/** Defaults of `zip_input`. */
export const ZIP_INPUT_DEFAULTS: Readonly<ZipInputOptions> = {
  entryPattern: ".csv",
  dirMode: "basename",
  pathSeparator: "_",
};

/** Why an archive cannot be unpacked. */
export type ZipInputErrorKind =
  | "unsafe_name"
  | "duplicate_name"
  | "unsupported_compression"
  | "corrupt"
  /** A member whose output name is taken by a file it must not replace, or is a config's name. */
  | "refused_target";

/** A refused archive or member; `message` is bxp's text (without its `fatal error: ` prefix). */
export class ZipInputError extends Error {
  readonly kind: ZipInputErrorKind;
  constructor(kind: ZipInputErrorKind, message: string) {
    super(message);
    this.name = "ZipInputError";
    this.kind = kind;
  }
}

/** A selected member and the flat name it unpacks to. */
export interface ZipPlanEntry {
  entryName: string;
  outputName: string;
}

/** An unpacked member. */
export interface ZipMember extends ZipPlanEntry {
  bytes: Uint8Array;
}

function normaliseName(name: string): string {
  return name.replaceAll("\\", "/");
}

function basename(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  const start = path.lastIndexOf("/", end - 1) + 1;
  return path.substring(start, end);
}

/**
 * True when a path could leave its folder or be absolute on any platform, whatever the host: a `..` segment
 * under `/` or `\\`, a leading `/` or `\\`, a drive letter (`C:`), or a NUL byte.
 *
 * @example
 * ```ts
 * import { climbingPath } from "./zip.ts";
 * import assert from "node:assert/strict";
 * assert.equal(climbingPath("a\\..\\b.csv"), true);
 * assert.equal(climbingPath("a_b.csv"), false);
 * ```
 */
export function climbingPath(path: string): boolean {
  if (path.includes("\0") || /^[\\/]/.test(path) || /^[A-Za-z]:/.test(path)) return true;
  return path.split(/[\\/]/).some((segment) => segment === "..");
}

function printable(name: string): string {
  return name.replaceAll("\0", "\\0");
}

/** The flat output name for one member name (already `/`-normalised). */
export function zipOutputName(entryName: string, options: ZipInputOptions): string {
  return options.dirMode === "keep_path"
    ? entryName.replaceAll("/", options.pathSeparator)
    : basename(entryName);
}

/** A selected member: its plan entry, its index in the central directory and its directory record. */
export interface ZipPlanMember extends ZipPlanEntry {
  entry: ZipEntry;
}

function planIndexed(
  entryNames: readonly string[],
  options: ZipInputOptions,
): (ZipPlanEntry & { index: number })[] {
  const zipName = options.zipName ?? "";
  const seen = new Set<string>();
  const plan: (ZipPlanEntry & { index: number })[] = [];
  for (const [index, rawName] of entryNames.entries()) {
    const entryName = normaliseName(rawName);
    if (entryName.length === 0 || entryName.endsWith("/")) continue;
    if (!entryName.endsWith(options.entryPattern)) continue;
    if (options.dirMode === "keep_path" && climbingPath(rawName)) {
      throw new ZipInputError(
        "unsafe_name",
        `zip '${zipName}': member '${
          printable(rawName)
        }' has an absolute or '..' path; keep_path refuses it ` +
          `(it could name a file outside data_dir on some platform)`,
      );
    }
    const outputName = zipOutputName(entryName, options);
    if (
      outputName === "" || outputName.includes("/") || outputName === "." || outputName === ".." ||
      climbingPath(outputName) || /[\\:\0]/.test(outputName)
    ) {
      throw new ZipInputError(
        "unsafe_name",
        `zip '${zipName}': member '${printable(entryName)}' maps to an unsafe output name '${
          printable(outputName)
        }'`,
      );
    }
    if (seen.has(outputName)) {
      throw new ZipInputError(
        "duplicate_name",
        `zip '${zipName}': two members map to the same output file '${outputName}' — set zip_input.dir_mode to "keep_path"`,
      );
    }
    seen.add(outputName);
    plan.push({ index, entryName, outputName });
  }
  return plan;
}

/**
 * Select and name members from the archive's member names (in central-directory order), applying the
 * zip-slip and collision guards. Throws {@link ZipInputError} on the first refused name.
 */
export function planZipMembers(entryNames: readonly string[], options: ZipInputOptions): ZipPlanEntry[] {
  return planIndexed(entryNames, options).map(({ entryName, outputName }) => ({ entryName, outputName }));
}

/**
 * Reads the archive's central directory (only its tail is read) and plans the members to unpack, in archive
 * order. Throws {@link ZipInputError}: `corrupt` when the structure cannot be read, `unsupported_compression`
 * when any member (selected or not, as bxp) is neither stored nor deflated, and the name refusals of
 * {@link planZipMembers}. Nothing is inflated.
 */
export async function planArchive(reader: RangeReader, options: ZipInputOptions): Promise<ZipPlanMember[]> {
  const zipName = options.zipName ?? "";
  let entries: ZipEntry[];
  try {
    entries = await readZipEntries(reader);
  } catch (err) {
    throw new ZipInputError("corrupt", `cannot read zip '${zipName}': ${(err as Error).message}`);
  }
  if (entries.some((e) => e.method !== 0 && e.method !== 8)) {
    // bxp refuses the archive as a whole, even when the odd member is not one it would unpack.
    throw new ZipInputError(
      "unsupported_compression",
      `skipping '${zipName}': uses an unsupported compression method (only store + deflate are read)`,
    );
  }
  return planIndexed(entries.map((e) => e.name), options).map(({ index, entryName, outputName }) => ({
    entryName,
    outputName,
    entry: entries[index],
  }));
}

/** The error a member that fails while unpacking is reported with (bxp's text, no prefix). */
export function unpackFailure(zipName: string, err: unknown): ZipInputError {
  if (err instanceof ZipInputError) return err;
  return new ZipInputError(
    "corrupt",
    `zip '${zipName}': failed unpacking: ${err instanceof Error ? err.message : String(err)}`,
  );
}

/** Inflates one planned member whole (small members; large ones are streamed by the engine). */
export async function readMemberWhole(reader: RangeReader, entry: ZipEntry): Promise<Uint8Array> {
  const start = await memberDataOffset(reader, entry);
  const compressed = await reader.read(start, entry.compressedSize);
  const pieces = (await MemberInflater.open({ ...entry, name: entry.name })).push(compressed, true);
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(entry.size);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Unpack the selected members of `zipBytes` whole, in archive order. Names are validated for all members
 * before any is inflated.
 */
export async function unzipMembers(zipBytes: Uint8Array, options: ZipInputOptions): Promise<ZipMember[]> {
  const reader = bytesReader(zipBytes);
  const plan = await planArchive(reader, options);
  const out: ZipMember[] = [];
  for (const p of plan) {
    try {
      out.push({
        entryName: p.entryName,
        outputName: p.outputName,
        bytes: await readMemberWhole(reader, p.entry),
      });
    } catch (err) {
      throw unpackFailure(options.zipName ?? "", err);
    }
  }
  return out;
}

/** Unpack and hand each member to `onMember` in archive order (same guards as {@link unzipMembers}). */
export async function unzipEachMember(
  zipBytes: Uint8Array,
  options: ZipInputOptions,
  onMember: (member: ZipMember) => void,
): Promise<number> {
  const members = await unzipMembers(zipBytes, options);
  for (const m of members) onMember(m);
  return members.length;
}
