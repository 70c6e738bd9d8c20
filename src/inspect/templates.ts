/**
 * Template listing and fetching on raw config text (the `bxp_list_templates` / `bxp_fetch_template` tool
 * results), plus the input-shape introspection `bxp_simulate` needs. No semantic validation: a broken
 * template is still listed, with an `error` field.
 *
 * @example
 * ```ts
 * import { listTemplates } from "./templates.ts";
 * import assert from "node:assert/strict";
 * const text = listTemplates('{ conversion_templates: { a: { data_dir: "." } } }');
 * assert.equal(JSON.parse(text).templates[0].id, "a");
 * assert.equal(JSON.parse(text).templates[0].data_dir, ".");
 * assert.match(text, /^\{\n  "templates": \[/); // two-space indented
 * ```
 * @module
 */

import { emitJson, fromNode, type OutValue } from "../config/emit.ts";
import { getMember, type JsonNode, parseJson5 } from "../config/json5.ts";

/** Result of {@link fetchTemplate}: `notFound` is true only when the id is missing. */
export interface TemplateResult {
  json: string;
  exitCode: 0 | 1;
  notFound: boolean;
}

/** A template's input shape, for staging a simulated run. Defaults apply when `found` is false. */
export interface TemplateIo {
  found: boolean;
  /** Input file-name ending; "" when absent. */
  filePatternIn: string;
  /** True when file_type_in is absent or "csv". */
  csvInput: boolean;
  /** True when the template declares an `xlsx_sheet` object. */
  hasXlsxSheet: boolean;
}

/** bxp's legacy root-error document: `{"$err_1":"<message>"}` (bare string value). */
export function rootErrorJson(message: string): string {
  return emitJson({ t: "object", entries: [["$err_1", { t: "string", v: message }]] }, 0);
}

/** Parse config text the lenient way (duplicate keys: last wins). Returns the error name on failure. */
export function parseConfigText(text: string): { root: JsonNode } | { errorName: string } {
  const parsed = parseJson5(text);
  if (parsed.value) return { root: parsed.value };
  const e = parsed.error;
  if (e?.code === "json5.too_large") return { errorName: "StreamTooLong" };
  if (e?.message.startsWith("unexpected end")) return { errorName: "UnexpectedEndOfInput" };
  return { errorName: "SyntaxError" };
}

function optString(node: JsonNode, key: string): OutValue {
  const v = getMember(node, key);
  return v?.kind === "string" ? { t: "string", v: v.value } : { t: "null" };
}

/** `{"templates":[...]}` for every entry of `conversion_templates`, in declaration order. */
export function listTemplates(configText: string): string {
  const parsed = parseConfigText(configText);
  if ("errorName" in parsed) return rootErrorJson(parsed.errorName);
  const items: OutValue[] = [];
  const templates = getMember(parsed.root, "conversion_templates");
  if (templates?.kind === "object") {
    for (const { key, value } of templates.entries) {
      const entries: [string, OutValue][] = [["id", { t: "string", v: key }]];
      if (value.kind === "object") {
        const fileType = (k: string): OutValue => {
          const v = getMember(value, k);
          return { t: "string", v: v?.kind === "string" ? v.value : "csv" };
        };
        entries.push(
          ["data_dir", optString(value, "data_dir")],
          ["file_pattern_in", optString(value, "file_pattern_in")],
          ["file_pattern_out", optString(value, "file_pattern_out")],
          ["file_type_in", fileType("file_type_in")],
          ["file_type_out", fileType("file_type_out")],
          ["description", optString(value, "description")],
        );
      } else {
        entries.push(["error", { t: "string", v: "template entry is not an object" }]);
      }
      items.push({ t: "object", entries });
    }
  }
  return emitJson({ t: "object", entries: [["templates", { t: "array", items }]] }, 2);
}

/** One template's JSON (two-space indented), or a `{"$err_1": ...}` document. */
export function fetchTemplate(configText: string, id: string): TemplateResult {
  const fail = (message: string, notFound = false): TemplateResult => ({
    json: rootErrorJson(message),
    exitCode: 1,
    notFound,
  });
  const parsed = parseConfigText(configText);
  if ("errorName" in parsed) return fail(parsed.errorName);
  if (parsed.root.kind !== "object") return fail("config root is not an object");
  const templates = getMember(parsed.root, "conversion_templates");
  if (templates === undefined) return fail("no conversion_templates in config");
  if (templates.kind !== "object") return fail("conversion_templates is not an object");
  const template = getMember(templates, id);
  if (template === undefined) return fail(`template id '${id}' not found`, true);
  return { json: emitJson(fromNode(template), 2), exitCode: 0, notFound: false };
}

/** Input shape of one template; `found` is false when the id is missing or the text does not parse. */
export function templateIo(configText: string, id: string): TemplateIo {
  const notFound: TemplateIo = { found: false, filePatternIn: "", csvInput: true, hasXlsxSheet: false };
  const parsed = parseConfigText(configText);
  if ("errorName" in parsed) return notFound;
  const template = getMember(getMember(parsed.root, "conversion_templates"), id);
  if (template?.kind !== "object") return notFound;
  const typeIn = getMember(template, "file_type_in");
  const pattern = getMember(template, "file_pattern_in");
  return {
    found: true,
    filePatternIn: pattern?.kind === "string" ? pattern.value : "",
    csvInput: typeIn === undefined || typeIn.kind !== "string" || typeIn.value === "csv",
    hasXlsxSheet: getMember(template, "xlsx_sheet")?.kind === "object",
  };
}
