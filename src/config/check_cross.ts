/**
 * Phase E (templates that read the same files) and phase F (filesystem checks, only when asked).
 *
 * The filesystem is reached through a small {@link FsProbe} the adapter supplies, so this module stays free
 * of `Deno.*`; the probe resolves `data_dir` relative to the config file.
 * @module
 */

import { type Diagnostic, joinPath, templatePath } from "./diagnostic.ts";
import type { TemplateConfig } from "./types.ts";

/** True when one non-empty suffix ends the other: both patterns then match a common file. */
export function suffixesOverlap(a: string, b: string): boolean {
  if (a === "" || b === "") return false;
  return a.endsWith(b) || b.endsWith(a);
}

/** Warn on the first of every pair of templates with the same data_dir and overlapping file_pattern_in. */
export function checkPatternCollisions(templates: readonly TemplateConfig[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  templates.forEach((a, i) => {
    for (const b of templates.slice(i + 1)) {
      const shared = a.dataDirs.find((d) => b.dataDirs.includes(d));
      if (shared === undefined || !suffixesOverlap(a.filePatternIn, b.filePatternIn)) continue;
      out.push({
        severity: "warning",
        code: "config.pattern_collision",
        path: joinPath(templatePath(a.id), "file_pattern_in"),
        message:
          `data_dir+file_pattern_in matches the same files as template '${b.id}' (data_dir='${shared}', patterns: '${a.filePatternIn}' vs '${b.filePatternIn}')`,
      });
    }
  });
  return out;
}

/** What the adapter found at a data_dir. `files` are plain file names (files and symlinks only). */
export type DirProbe =
  | { kind: "ok"; files: string[] }
  | { kind: "missing" }
  | { kind: "unreadable"; error: string };

/** Filesystem access for phase F, supplied by the adapter. */
export interface FsProbe {
  /** Inspect a template's data_dir as written in the config (the probe resolves it). */
  inspectDir(dataDir: string): Promise<DirProbe> | DirProbe;
}

async function probeAll(templates: readonly TemplateConfig[], fs: FsProbe): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const t of templates) {
    // Every folder of a data_dir list is probed; a list's "no input files" means none in any folder.
    const several = t.dataDirs.length > 1;
    let matching = 0;
    let listed = 0;
    for (let i = 0; i < t.dataDirs.length; i++) {
      const dataDir = t.dataDirs[i];
      const at = joinPath(templatePath(t.id), several ? `data_dir.${i}` : "data_dir");
      let probe: DirProbe;
      try {
        probe = await fs.inspectDir(dataDir);
      } catch (err) {
        probe = { kind: "unreadable", error: err instanceof Error ? err.message : String(err) };
      }
      if (probe.kind === "missing") {
        out.push({
          severity: "error",
          code: "fs.dir_not_found",
          path: at,
          message: `data_dir does not exist: '${dataDir}'`,
        });
      } else if (probe.kind === "unreadable") {
        out.push({
          severity: "warning",
          code: "fs.dir_unreadable",
          path: at,
          message: `data_dir cannot be opened (${probe.error}): '${dataDir}'`,
        });
      } else {
        listed++;
        if (probe.files.some((f) => f.endsWith(t.filePatternIn))) matching++;
      }
    }
    if (listed === t.dataDirs.length && listed > 0 && matching === 0) {
      const shown = t.dataDirs.map((d) => `'${d}'`).join(", ");
      out.push({
        severity: "warning",
        code: "fs.no_input_files",
        path: joinPath(templatePath(t.id), "data_dir"),
        message: `data_dir ${shown} contains no files matching '${t.filePatternIn}'`,
      });
    }
  }
  return out;
}

/**
 * Phase F: check every data_dir within `timeoutMs` (0 disables the check). On timeout one root-level
 * `fs.timeout` warning replaces the partial results.
 */
export async function checkFilesystem(
  templates: readonly TemplateConfig[],
  fs: FsProbe,
  timeoutMs: number,
): Promise<Diagnostic[]> {
  if (timeoutMs <= 0) return [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    const result = await Promise.race([probeAll(templates, fs), timeout]);
    if (result !== null) return result;
    return [{
      severity: "warning",
      code: "fs.timeout",
      path: "",
      message: `[fs.timeout] filesystem check exceeded ${timeoutMs}ms — data_dir existence not verified`,
    }];
  } finally {
    clearTimeout(timer);
  }
}
