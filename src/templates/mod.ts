/**
 * The template library: bxp's twelve built-in conversions (broker exports → Wealthfolio and the
 * brycht.app tracker), embedded in the code so a compiled binary carries them, plus templates found on
 * disk (a `templates/` folder beside the program, the per-user folder), which override built-ins by id.
 * Pure: the adapters read the folders and hand the texts in.
 *
 * Each library entry is a whole config (its `maps` and exactly one `conversion_templates` entry), so it
 * runs as it is: `bxp-cli --template ID` without a config, or `--fetch-template ID > bxp-cli.json`.
 *
 * @example
 * ```ts
 * import { builtinLibrary, findTemplate } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const lib = builtinLibrary();
 * assert.equal(
 *   findTemplate(lib, "revolutx_to_wealthfolio")?.description,
 *   "Revolut X (crypto) -> Wealthfolio",
 * );
 * ```
 * @module
 */

import { emitJson, fromPlain, type OutValue } from "../config/mod.ts";
import { getMember, parseJson5 } from "../config/mod.ts";
import { fetchTemplate, listTemplates, rootErrorJson, type TemplateResult } from "../inspect/mod.ts";
import { TEXT as ANYCOIN_WF } from "./builtin/anycoin_to_wealthfolio.ts";
import { TEXT as REVOLUTX_WF } from "./builtin/revolutx_to_wealthfolio.ts";
import { TEXT as T212_WF } from "./builtin/trading212_to_wealthfolio.ts";
import { TEXT as XTB1_CLOSED_WF } from "./builtin/xtb1_closed_to_wealthfolio.ts";
import { TEXT as XTB1_CASH_WF } from "./builtin/xtb1_cash_to_wealthfolio.ts";
import { TEXT as XTB2_CLOSED_WF } from "./builtin/xtb2_closed_to_wealthfolio.ts";
import { TEXT as XTB2_CASH_WF } from "./builtin/xtb2_cash_to_wealthfolio.ts";
import { TEXT as ANYCOIN_BA } from "./builtin/anycoin_to_brychtapp.ts";
import { TEXT as REVOLUTX_BA } from "./builtin/revolutx_to_brychtapp.ts";
import { TEXT as T212_BA } from "./builtin/trading212_to_brychtapp.ts";
import { TEXT as XTB2_CASH_BA } from "./builtin/xtb2_cash_to_brychtapp.ts";
import { TEXT as XTB2_CLOSED_BA } from "./builtin/xtb2_closed_to_brychtapp.ts";

/** Where a library entry came from; later sources override earlier ones by id. */
export type TemplateSource = "builtin" | "program" | "user";

/** One library entry: a complete config holding one template. */
export interface LibraryTemplate {
  id: string;
  description: string;
  source: TemplateSource;
  /** Where it was read from (`builtin:<id>` for embedded ones). */
  origin: string;
  /** The config, JSON5 text, exactly as stored. */
  text: string;
}

/** A library: entries in listing order (built-ins in bxp's order, then others by id). */
export interface TemplateLibrary {
  templates: readonly LibraryTemplate[];
  /** Files that could not be used, with the reason (shown by `--list-templates`, never fatal). */
  problems: readonly string[];
}

/** The embedded texts, in bxp's documentation order. */
export const BUILTIN_TEXTS: readonly string[] = [
  ANYCOIN_WF,
  REVOLUTX_WF,
  T212_WF,
  XTB1_CLOSED_WF,
  XTB1_CASH_WF,
  XTB2_CLOSED_WF,
  XTB2_CASH_WF,
  ANYCOIN_BA,
  REVOLUTX_BA,
  T212_BA,
  XTB2_CASH_BA,
  XTB2_CLOSED_BA,
];

/** File-name ending of a library template on disk: `<id>.json5` (or `.json`). */
export const TEMPLATE_FILE = /^([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})\.json5?$/;

/**
 * Reads one library text: it must parse and hold exactly one conversion template. Returns the entry or
 * a reason.
 */
export function readLibraryText(
  text: string,
  source: TemplateSource,
  origin: string,
): LibraryTemplate | { error: string } {
  const parsed = parseJson5(text);
  if (!parsed.value) {
    const e = parsed.error;
    const at = e ? `:${e.line}:${e.col}` : "";
    return { error: `${origin}${at}: ${e?.message ?? "not JSON5"}` };
  }
  const templates = getMember(parsed.value, "conversion_templates");
  if (templates?.kind !== "object" || templates.entries.length !== 1) {
    return { error: `${origin}: a library file holds exactly one entry in conversion_templates` };
  }
  const { key, value } = templates.entries[0];
  const description = getMember(value, "description");
  return {
    id: key,
    description: description?.kind === "string" ? description.value : "",
    source,
    origin,
    text,
  };
}

/** The library of the twelve built-ins only. */
export function builtinLibrary(): TemplateLibrary {
  return buildLibrary([]);
}

/** One file found in a library folder. */
export interface LibraryFile {
  source: TemplateSource;
  /** Path or label used in messages. */
  origin: string;
  /** The file's base name (must be `<id>.json5` or `<id>.json`). */
  name: string;
  text: string;
}

/**
 * Builds the library: the built-ins, then `files` in order (program folder before user folder), each
 * replacing an entry of the same id. A file whose name is not `<id>.json5` for the id it declares is
 * refused, so the name on disk always says which template it overrides.
 */
export function buildLibrary(files: readonly LibraryFile[]): TemplateLibrary {
  const byId = new Map<string, LibraryTemplate>();
  const problems: string[] = [];
  for (const text of BUILTIN_TEXTS) {
    const entry = readLibraryText(text, "builtin", "builtin");
    if ("error" in entry) throw new Error(`built-in template does not load: ${entry.error}`);
    byId.set(entry.id, { ...entry, origin: `builtin:${entry.id}` });
  }
  for (const f of files) {
    const m = TEMPLATE_FILE.exec(f.name);
    if (!m) continue;
    const entry = readLibraryText(f.text, f.source, f.origin);
    if ("error" in entry) {
      problems.push(`skipped ${entry.error}`);
      continue;
    }
    if (entry.id !== m[1]) {
      problems.push(
        `skipped ${f.origin}: declares template '${entry.id}' but the file is named for '${m[1]}'`,
      );
      continue;
    }
    byId.set(entry.id, entry);
  }
  // Map insertion order keeps an overridden built-in in its built-in place.
  const builtinOrder = [...byId.values()].filter((t) => isBuiltinId(t.id));
  const others = [...byId.values()].filter((t) => !isBuiltinId(t.id)).sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  );
  return { templates: [...builtinOrder, ...others], problems };
}

/** The built-ins' ids, read on first need: parsing the twelve texts at import cost every start 5-10 ms. */
let builtinIds: readonly string[] | null = null;

/** True for the id of one of the twelve built-ins. */
export function isBuiltinId(id: string): boolean {
  builtinIds ??= BUILTIN_TEXTS.map((text) => {
    const entry = readLibraryText(text, "builtin", "builtin");
    return "error" in entry ? "" : entry.id;
  });
  return builtinIds.includes(id);
}

/** The file name at the end of an origin path (either separator), never the folders leading to it. */
export function originFileName(origin: string): string {
  return origin.split(/[\\/]/).pop() ?? origin;
}

/** The entry with this id, or undefined. */
export function findTemplate(lib: TemplateLibrary, id: string): LibraryTemplate | undefined {
  return lib.templates.find((t) => t.id === id);
}

/** `--list-templates` text: one `id<TAB>description` line per template, then problems as `# ` lines. */
export function listText(lib: TemplateLibrary): string {
  const width = Math.max(0, ...lib.templates.map((t) => t.id.length));
  const lines = lib.templates.map((t) =>
    `${t.id.padEnd(width)}  ${t.description}${t.source === "builtin" ? "" : `  [${t.source}: ${t.origin}]`}`
  );
  for (const p of lib.problems) lines.push(`# ${p}`);
  return lines.join("\n") + "\n";
}

/**
 * `bxp_list_templates` without a config: bxp's `{"templates":[...]}` document (each entry's id, data_dir,
 * patterns, file types and description), over the whole library; an entry read from a templates folder
 * adds `source` ("program" or "user") and `file` (its file name).
 */
export function listLibraryJson(lib: TemplateLibrary): string {
  const items: OutValue[] = [];
  for (const t of lib.templates) {
    const doc = JSON.parse(listTemplates(t.text)) as { templates?: Record<string, unknown>[] };
    for (const item of doc.templates ?? []) {
      // A template from a templates folder says so (and which file, by name only): it replaces a built-in.
      if (t.source !== "builtin") Object.assign(item, { source: t.source, file: originFileName(t.origin) });
      items.push(fromPlain(item));
    }
  }
  return emitJson({ t: "object", entries: [["templates", { t: "array", items }]] }, 2);
}

/**
 * `bxp_fetch_template` without a config: the template's JSON (bxp's fetch shape), or bxp's
 * `template id '…' not found` document.
 */
export function fetchLibraryJson(lib: TemplateLibrary, id: string): TemplateResult {
  const t = findTemplate(lib, id);
  if (t === undefined) {
    return { json: rootErrorJson(`template id '${id}' not found`), exitCode: 1, notFound: true };
  }
  return fetchTemplate(t.text, id);
}

/**
 * `bxp_fetch_template`'s answer text without a config: the template's JSON, or bxp's not-found document
 * with the library's ids beside it (`{"$err_1":"template id 'x' not found","available":[...]}`), as the
 * config-based answer does.
 */
export function fetchLibraryAnswer(lib: TemplateLibrary, id: string): string {
  const fetched = fetchLibraryJson(lib, id);
  if (!fetched.notFound) return fetched.json;
  const json = fetched.json.trimEnd();
  return `${json.slice(0, -1)},"available":${JSON.stringify(lib.templates.map((t) => t.id))}}`;
}
