/**
 * Whether a config kept under a project root only reads and writes inside that root. bxp-cli resolves
 * `data_dir` against the config file's folder (an absolute one as it is) and names its inputs, outputs
 * and intermediate files from `file_pattern_in`, `file_pattern_out`, `xlsx_sheet.output_suffix` and (for
 * the combined output) the template id. A config an agent saves in the root is run later by the user
 * (`bxp-cli` there, `--template <id>`), so a `data_dir` of `/etc` or `../..`, or a pattern holding a
 * separator, would let that run read and write outside the root. Pure.
 *
 * @example
 * ```ts
 * import { pathEscapes } from "./check_confine.ts";
 * import assert from "node:assert/strict";
 * assert.equal(pathEscapes("../../x", "sub"), "climbs out of the project root ('sub/../../x')");
 * assert.equal(pathEscapes("data", "sub"), null);
 * ```
 * @module
 */

import { normalize } from "../util/posix_path.ts";
import { type Diagnostic, joinPath, templatePath } from "./diagnostic.ts";
import type { TemplateConfig } from "./types.ts";

/** The stable code of these findings. */
export const OUTSIDE_ROOT_CODE = "config.path_outside_root";

/**
 * Why folder `value`, read relative to `configDir` (the config file's folder relative to the root, ""
 * for the root itself), would lead outside the root; null when it stays inside.
 */
export function pathEscapes(value: string, configDir: string): string | null {
  if (value.includes("\0")) return "holds a NUL byte";
  if (value.startsWith("~")) return "starts with '~' (a home folder, outside the project root)";
  // Backslashes separate folders on Windows, so they count as separators whatever the host.
  const slashed = value.replaceAll("\\", "/");
  if (slashed.startsWith("/") || /^[A-Za-z]:/.test(value)) return "is an absolute path";
  const base = configDir === "" || configDir === "." ? "" : configDir.replaceAll("\\", "/");
  const joined = normalize(base === "" ? slashed : `${base}/${slashed}`);
  if (joined === ".." || joined.startsWith("../")) {
    return `climbs out of the project root ('${base === "" ? slashed : `${base}/${slashed}`}')`;
  }
  return null;
}

/** Why `value`, a part of one file name, could name a file in another folder; null when it cannot. */
export function namePartEscapes(value: string): string | null {
  if (value.includes("\0")) return "holds a NUL byte";
  if (/[/\\]/.test(value)) return "holds a path separator";
  if (value.includes(":")) return "holds ':' (a drive or stream name on Windows)";
  if (value.includes("..")) return "holds '..'";
  return null;
}

/**
 * One warning per key of `templates` that would make a run read or write outside the project root, for
 * a config file whose folder is `configDir` relative to that root. Each names the template and the key.
 */
export function checkConfinement(templates: readonly TemplateConfig[], configDir: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const add = (id: string, key: string, shown: string, value: string, why: string) => {
    out.push({
      severity: "warning",
      code: OUTSIDE_ROOT_CODE,
      message: `template '${id}': ${shown} ${JSON.stringify(value.slice(0, 200))} ${why}; a run of this ` +
        "config would read or write outside the project root. Use a folder inside the root, relative to " +
        "the config file.",
      path: joinPath(templatePath(id), key),
    });
  };
  for (const t of templates) {
    t.dataDirs.forEach((d, i) => {
      const dir = pathEscapes(d, configDir);
      const key = t.dataDirs.length > 1 ? `data_dir.${i}` : "data_dir";
      if (dir !== null) add(t.id, key, "data_dir", d, dir);
    });
    const parts: [key: string, value: string][] = [
      ["file_pattern_in", t.filePatternIn],
      ["file_pattern_out", t.filePatternOut],
    ];
    if (t.xlsxSheet !== null) parts.push(["xlsx_sheet.output_suffix", t.xlsxSheet.outputSuffix]);
    for (const [key, value] of parts) {
      const why = namePartEscapes(value);
      if (why !== null) add(t.id, key, key, value, why);
    }
    if (t.combinedOutput) {
      const why = namePartEscapes(t.id);
      if (why !== null) {
        out.push({
          severity: "warning",
          code: OUTSIDE_ROOT_CODE,
          message: `template id ${JSON.stringify(t.id.slice(0, 200))} ${why}: with combined_output it ` +
            "names the combined output file, which would land outside data_dir. Use a plain id.",
          path: joinPath(templatePath(t.id), "combined_output"),
        });
      }
    }
  }
  return out;
}
