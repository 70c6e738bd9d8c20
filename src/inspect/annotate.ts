/**
 * `bxp_validate`: annotate config text with diagnostics (see `src/config/annotate.ts` for the format).
 *
 * @example
 * ```ts
 * import { annotateConfig } from "./annotate.ts";
 * import assert from "node:assert/strict";
 * const { json, exitCode } = annotateConfig("{}", "<config>");
 * assert.equal(exitCode, 1);
 * assert.match(json, /no conversion_templates defined/);
 * ```
 * @module
 */

import { annotateOutcome, type AnnotateResult } from "../config/mod.ts";
import type { FsProbe } from "../config/mod.ts";
import { langExprTools } from "../config/mod.ts";
import { validateConfig, validateConfigAsync } from "../config/mod.ts";
import { OUTSIDE_ROOT_CODE } from "../config/mod.ts";
import type { Diagnostic } from "../config/mod.ts";

export type { AnnotateResult } from "../config/mod.ts";
export type { DirProbe, FsProbe } from "../config/mod.ts";

/** Options for {@link annotateConfigAsync}: the filesystem phase runs when `fs` is set and `checkFsSeconds` > 0. */
export interface AnnotateOptions {
  fs?: FsProbe;
  checkFsSeconds?: number;
}

/**
 * Annotated JSON for config text, without filesystem checks. `label` only names the source. Exit code 0
 * when nothing is an error (warnings allowed), 1 otherwise.
 */
export function annotateConfig(text: string, label: string): AnnotateResult {
  void label;
  return annotateOutcome(validateConfig(text, { exprTools: langExprTools }));
}

/** {@link annotateConfig} with the optional filesystem phase (bxp's `check_fs` seconds). */
export async function annotateConfigAsync(
  text: string,
  label: string,
  opts: AnnotateOptions = {},
): Promise<AnnotateResult> {
  void label;
  const outcome = await validateConfigAsync(text, {
    exprTools: langExprTools,
    fs: opts.fs,
    checkFsMs: (opts.checkFsSeconds ?? 0) * 1000,
  });
  return annotateOutcome(outcome);
}

/**
 * The `config.path_outside_root` findings of config text saved at `configDir` (its folder relative to the
 * project root, "" for the root): the keys that would make a run read or write outside the root.
 */
export function outsideRootFindings(text: string, configDir: string): Diagnostic[] {
  return validateConfig(text, { configDir }).diagnostics.filter((d) => d.code === OUTSIDE_ROOT_CODE);
}
