/**
 * What an evaluation takes from a template, so an expression tried in `bxp_eval` reads a row as the run
 * reads it: the decimal separator field reads normalize (`csv_decimal_separator_in`), the global maps with
 * the template's own laid over them, `SHEET_NAME()` and what `'''` is (`csv_text_quote_out`). Read with
 * the config loader (defaults applied, as the engine gets them), without the validation a run adds:
 * bxp_validate says what else a run would refuse.
 *
 * @example
 * ```ts
 * import { templateSettings, type TemplateSettings } from "./template_settings.ts";
 * import assert from "node:assert/strict";
 * const config = '{conversion_templates: {bank: {csv_decimal_separator_in: ",", output_schema: {}}}}';
 * assert.equal((templateSettings(config, "bank") as TemplateSettings).decimalSeparator, ",");
 * assert.equal(
 *   templateSettings(config, "card"),
 *   "template 'card' not found in the config; its templates: bank",
 * );
 * ```
 * @module
 */

import type { Diagnostic } from "../config/mod.ts";
import { parseJson5 } from "../config/mod.ts";
import { loadTemplates } from "../config/mod.ts";

/** The evaluation context's members a template decides. */
export interface TemplateSettings {
  /** Global maps with the template's own maps laid over them by name (the engine's merge). */
  maps: Map<string, ReadonlyMap<string, string>>;
  /** `csv_decimal_separator_in`. */
  decimalSeparator: string;
  /** The `xlsx_sheet` name, "" without one. */
  sheetName: string;
  /** What `'''` evaluates to: the `csv_text_quote_out` character, "" for none. */
  quoteOut: string;
}

/** Ids listed in a refusal, at most this many (a config could hold thousands). */
const MAX_LISTED_IDS = 50;

/** The ids for a message: quoted names joined by commas, clipped after {@link MAX_LISTED_IDS}. */
function listed(ids: readonly string[]): string {
  if (ids.length === 0) return "none";
  const shown = ids.slice(0, MAX_LISTED_IDS).join(", ");
  return ids.length > MAX_LISTED_IDS ? `${shown} (and ${ids.length - MAX_LISTED_IDS} more)` : shown;
}

// One entry: an agent tries expression after expression with the same config, and parsing it is most of a
// small call's cost. The settings are only read by evaluations, never changed.
let last: { text: string; id: string | null; settings: TemplateSettings | string } | null = null;

/**
 * The settings of template `id` of `configText` (`id` null: the config's only template), or the refusal
 * naming what is wrong: text that does not parse or load, an unknown id (with the config's ids), no id
 * for a config holding several templates.
 */
export function templateSettings(configText: string, id: string | null): TemplateSettings | string {
  if (last !== null && last.text === configText && last.id === id) return last.settings;
  const settings = readSettings(configText, id);
  last = { text: configText, id, settings };
  return settings;
}

function readSettings(configText: string, id: string | null): TemplateSettings | string {
  const parsed = parseJson5(configText);
  if (parsed.value === null) {
    const e = parsed.error;
    return `config does not parse${e ? ` (line ${e.line}, column ${e.col}: ${e.message})` : ""}`;
  }
  const diagnostics: Diagnostic[] = [];
  const loaded = loadTemplates(parsed.value, diagnostics);
  const ids = [...new Set(loaded.templates.map((t) => t.config.id))];
  if (loaded.abort !== null) {
    const first = diagnostics.find((d) => d.severity === "error");
    return `the config does not load (${loaded.abort}${first ? `: ${first.message}` : ""}); ` +
      "bxp_validate names every problem";
  }
  if (ids.length === 0) return "the config has no conversion_templates";
  if (id === null && ids.length > 1) {
    return `'template' must name the template to take the dialect from, one of: ${listed(ids)}`;
  }
  // The last of a repeated id, as the lenient parse keeps the last duplicate key.
  const template = (id === null ? loaded.templates[0] : loaded.templates.findLast((t) => t.config.id === id))
    ?.config;
  if (template === undefined) {
    return `template '${clip(id ?? "")}' not found in the config; its templates: ${listed(ids)}`;
  }
  const maps = new Map<string, ReadonlyMap<string, string>>(loaded.maps);
  for (const [name, map] of template.maps) maps.set(name, map);
  const quote = template.csvTextQuoteOut;
  return {
    maps,
    decimalSeparator: template.csvDecimalSeparatorIn,
    sheetName: template.xlsxSheet?.name ?? "",
    quoteOut: quote === "double" ? '"' : quote === "single" ? "'" : "",
  };
}

/** A name for a message, at most 64 characters. */
function clip(name: string): string {
  return name.length <= 64 ? name : `${name.slice(0, 64)}...`;
}
