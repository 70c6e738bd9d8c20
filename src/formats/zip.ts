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
 * @example
 * ```ts
 * import { zipSync } from "fflate";
 * import { unzipMembers } from "./zip.ts";
 * const zip = zipSync({ "CSV/a.csv": new TextEncoder().encode("x\n") });
 * unzipMembers(zip, { entryPattern: ".csv", dirMode: "basename", pathSeparator: "_" });
 * // [{ entryName: "CSV/a.csv", outputName: "a.csv", bytes: Uint8Array [120, 10] }]
 * ```
 * @module
 */

import { unzipSync } from "fflate";

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
export type ZipInputErrorKind = "unsafe_name" | "duplicate_name" | "unsupported_compression" | "corrupt";

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
 * climbingPath("a\\..\\b.csv"); // true
 * climbingPath("a_b.csv"); // false
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

/**
 * Select and name members from the archive's member names (in central-directory order), applying the
 * zip-slip and collision guards. Throws {@link ZipInputError} on the first refused name.
 */
export function planZipMembers(entryNames: readonly string[], options: ZipInputOptions): ZipPlanEntry[] {
  const zipName = options.zipName ?? "";
  const seen = new Set<string>();
  const plan: ZipPlanEntry[] = [];
  for (const rawName of entryNames) {
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
    plan.push({ entryName, outputName });
  }
  return plan;
}

/**
 * Unpack the selected members of `zipBytes`, in archive order. Names are validated for all members before
 * any is inflated.
 */
export function unzipMembers(zipBytes: Uint8Array, options: ZipInputOptions): ZipMember[] {
  const zipName = options.zipName ?? "";
  const names: string[] = [];
  const rawByNormalised = new Map<string, string>();
  let unsupported = false;
  // First pass reads the central directory only: the filter sees every member and inflates none.
  try {
    unzipSync(zipBytes, {
      filter(file) {
        names.push(file.name);
        rawByNormalised.set(normaliseName(file.name), file.name);
        if (file.compression !== 0 && file.compression !== 8) unsupported = true;
        return false;
      },
    });
  } catch (err) {
    throw new ZipInputError("corrupt", `cannot read zip '${zipName}': ${(err as Error).message}`);
  }
  if (unsupported) {
    // bxp refuses the archive as a whole, even when the odd member is not one it would unpack.
    throw new ZipInputError(
      "unsupported_compression",
      `skipping '${zipName}': uses an unsupported compression method (only store + deflate are read)`,
    );
  }
  const plan = planZipMembers(names, options);
  if (plan.length === 0) return [];
  const wanted = new Set(plan.map((p) => rawByNormalised.get(p.entryName) ?? p.entryName));
  let unpacked: Record<string, Uint8Array>;
  try {
    unpacked = unzipSync(zipBytes, { filter: (file) => wanted.has(file.name) });
  } catch (err) {
    throw new ZipInputError("corrupt", `zip '${zipName}': failed unpacking: ${(err as Error).message}`);
  }
  return plan.map((p) => ({
    ...p,
    bytes: unpacked[rawByNormalised.get(p.entryName) ?? p.entryName] ?? new Uint8Array(0),
  }));
}

/** Unpack and hand each member to `onMember` in archive order (same guards as {@link unzipMembers}). */
export function unzipEachMember(
  zipBytes: Uint8Array,
  options: ZipInputOptions,
  onMember: (member: ZipMember) => void,
): number {
  const members = unzipMembers(zipBytes, options);
  for (const m of members) onMember(m);
  return members.length;
}
