/**
 * Config loading for the engine: parse + validate config text and return the typed model with every
 * default applied, or the diagnostics that make it unusable.
 *
 * @example
 * ```ts
 * import { loadConfig } from "./model.ts";
 * import { formatDiagnostic } from "./diagnostic.ts";
 * import assert from "node:assert/strict";
 * const { config, diagnostics } = loadConfig("{}", "bxp-cli.json");
 * assert.equal(config, null);
 * assert.match(
 *   formatDiagnostic("bxp-cli.json", diagnostics[0]),
 *   /^bxp-cli\.json: error: no conversion_templates defined/,
 * );
 * ```
 * @module
 */

import type { Diagnostic } from "./diagnostic.ts";
import { langExprTools } from "./lang_tools.ts";
import type { BxpConfig, LoadResult } from "./types.ts";
import {
  outcomeDiagnostics,
  outcomeHasError,
  type ValidateAsyncOptions,
  validateConfig,
  validateConfigAsync,
  type ValidationOutcome,
} from "./validate.ts";

export type {
  BxpConfig,
  LoadResult,
  NamedMaps,
  PrePassAggregate,
  PrePassBlock,
  QuoteStyle,
  RowRule,
  TemplateConfig,
} from "./types.ts";
export type { Diagnostic, Severity } from "./diagnostic.ts";
export { bxpCliLine, countsAsRunWarning, formatDiagnostic, hasError } from "./diagnostic.ts";

function toResult(outcome: ValidationOutcome): LoadResult {
  const diagnostics: Diagnostic[] = outcomeDiagnostics(outcome);
  if (outcomeHasError(outcome) || !outcome.loaded) return { config: null, diagnostics };
  const config: BxpConfig = {
    maps: outcome.loaded.maps,
    templates: outcome.loaded.templates.map((t) => t.config),
  };
  return { config, diagnostics };
}

/**
 * Parse and validate config text (no filesystem checks). `label` names the source in messages only.
 * `config` is null when any diagnostic is an error; warnings come back alongside a usable config.
 */
export function loadConfig(text: string, label: string): LoadResult {
  void label; // positions are reported as line/col; the caller prefixes the label when printing
  return toResult(validateConfig(text, { exprTools: langExprTools }));
}

/** {@link loadConfig} plus the filesystem phase (`fs` probe, `checkFsMs` deadline; 0 skips it). */
export async function loadConfigChecked(
  text: string,
  label: string,
  opts: Pick<ValidateAsyncOptions, "fs" | "checkFsMs">,
): Promise<LoadResult> {
  void label;
  return toResult(await validateConfigAsync(text, { ...opts, exprTools: langExprTools }));
}
