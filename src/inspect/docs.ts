/**
 * The docs catalog (`bxp_docs`): the language reference followed by the config schema, two-space indented
 * with a trailing newline ({@link docsJson}, bxp's text), and the answer an agent reads ({@link docsAnswer}:
 * compact, without the fields only bxp's GUI config editor reads, optionally narrowed to one `section`
 * and/or one `name`). Top-level keys in bxp's order: functions, keywords, operators, tokens, date_tokens,
 * precedence, config_schema.
 *
 * @example
 * ```ts
 * import { docsAnswer, docsJson } from "./docs.ts";
 * import assert from "node:assert/strict";
 * assert.equal(JSON.parse(docsJson()).config_schema[0].key, "maps");
 * assert.equal(JSON.parse(docsAnswer({ name: "upper" }).text!).functions[0].name, "UPPER");
 * ```
 * @module
 */

import { emitJson, fromNode, fromPlain, type OutValue } from "../config/mod.ts";
import { type JsonNode, parseJson5 } from "../config/mod.ts";
import { CONFIG_SCHEMA, docFields } from "../config/mod.ts";
import { closestName } from "../config/mod.ts";
import { languageDocs } from "../lang/mod.ts";
import { DOCS_SECTIONS, type DocsSection } from "./docs_sections.ts";

export { DOCS_SECTIONS, type DocsSection } from "./docs_sections.ts";

const LANGUAGE_SECTIONS = DOCS_SECTIONS.filter((s) => s !== "config_schema");

/** The `config_schema` array: each entry's FieldDoc fields, insert templates emitted as JSON values. */
export function configSchemaValue(): OutValue {
  return {
    t: "array",
    items: CONFIG_SCHEMA.map((f) => {
      const { insert_template, ...rest } = docFields(f);
      const entries = (fromPlain(rest) as Extract<OutValue, { t: "object" }>).entries;
      const template: OutValue = insert_template === null
        ? { t: "null" }
        : fromNode(parseJson5(insert_template).value as JsonNode);
      // insert_template sits between insert_order and validator in bxp's field order.
      const at = entries.findIndex(([k]) => k === "validator");
      entries.splice(at, 0, ["insert_template", template]);
      return { t: "object", entries };
    }),
  };
}

/** The full docs JSON text. */
export function docsJson(): string {
  const docs = languageDocs() as unknown as Record<string, unknown>;
  const entries: [string, OutValue][] = LANGUAGE_SECTIONS.map((k) => [k, fromPlain(docs[k] ?? [])]);
  entries.push(["config_schema", configSchemaValue()]);
  return emitJson({ t: "object", entries }, 2) + "\n";
}

/**
 * Members of a `config_schema` entry that only bxp's GUI editor uses (how to order and insert a key in
 * the form, which widget validates or completes it); left out of the MCP answer.
 */
export const GUI_ONLY_FIELDS = ["ordered", "insert_order", "insert_template", "validator", "autocomplete"];

type Entry = Record<string, unknown>;
type Docs = Record<DocsSection, Entry[]>;

let cached: Docs | null = null;

/** The reference without GUI-only fields (parsed once; the catalog does not change at run time). */
function agentDocs(): Docs {
  if (cached !== null) return cached;
  const docs = JSON.parse(docsJson()) as Docs;
  docs.config_schema = docs.config_schema.map((entry) =>
    Object.fromEntries(Object.entries(entry).filter(([k]) => !GUI_ONLY_FIELDS.includes(k)))
  );
  cached = docs;
  return docs;
}

/** The name an entry is found by: a function's name, a config key (plus its last segment). */
function namesOf(section: DocsSection, entry: Entry): string[] {
  if (section === "functions") return [String(entry.name)];
  if (section === "config_schema") {
    const key = String(entry.key);
    const last = key.split(".").filter((s) => s !== "*").at(-1) ?? key;
    return last === key ? [key] : [key, last];
  }
  return [];
}

/** The sections a `name` filter searches. */
const NAMED_SECTIONS: readonly DocsSection[] = ["functions", "config_schema"];

/**
 * The bxp_docs answer for the filters, or `{ error }` naming the valid choices.
 *
 * @example
 * ```ts
 * import { docsAnswer } from "./docs.ts";
 * import assert from "node:assert/strict";
 * assert.equal(JSON.parse(docsAnswer({ name: "upper" }).text!).functions[0].name, "UPPER");
 * assert.match(
 *   docsAnswer({ name: "UPPR" }).error!,
 *   /^no function or config key named 'UPPR' \(did you mean 'UPPER'\?\); names: IF, /,
 * );
 * ```
 */
export function docsAnswer(filters: { section?: string; name?: string }): { text?: string; error?: string } {
  const docs = agentDocs();
  const sections = filters.section === undefined
    ? DOCS_SECTIONS
    : DOCS_SECTIONS.filter((s) => s === filters.section);
  if (filters.name === undefined) {
    return { text: JSON.stringify(Object.fromEntries(sections.map((s) => [s, docs[s]]))) };
  }
  const wanted = filters.name.toLowerCase();
  const searched = sections.filter((s) => NAMED_SECTIONS.includes(s));
  const found: [DocsSection, Entry[]][] = [];
  for (const section of searched) {
    const hits = docs[section].filter((e) => namesOf(section, e).some((n) => n.toLowerCase() === wanted));
    if (hits.length > 0) found.push([section, hits]);
  }
  if (found.length > 0) return { text: JSON.stringify(Object.fromEntries(found)) };
  return { error: unknownName(filters.name, searched, docs) };
}

function unknownName(name: string, searched: readonly DocsSection[], docs: Docs): string {
  const shown = name.length > 64 ? `${name.slice(0, 64)}...` : name;
  if (searched.length === 0) {
    return "'name' looks up functions and config keys: leave out 'section', or choose functions or " +
      "config_schema";
  }
  const names = [...new Set(searched.flatMap((s) => docs[s].flatMap((e) => namesOf(s, e))))];
  const hint = name.length <= 64 ? closestName(name, names) : null;
  const what = searched.length === 2
    ? "function or config key"
    : searched[0] === "functions"
    ? "function"
    : "config key";
  return `no ${what} named '${shown}'${hint === null ? "" : ` (did you mean '${hint}'?)`}; names: ${
    names.join(", ")
  }`;
}
