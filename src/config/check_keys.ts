/**
 * Phase G7: keys the schema does not know, with a did-you-mean hint. The whitelist at every level comes
 * from the schema table; levels whose keys the user names (`input_schema`, `output_schema`, maps, rule rows,
 * pre_pass values, template ids, block names) are not checked. Annotation markers (`$err_`, `$warn_`,
 * `$info_`, `$comm_`) are skipped so an annotated file can be checked again.
 * @module
 */

import { type Diagnostic, joinPath } from "./diagnostic.ts";
import { getMember, type JsonNode } from "./json5.ts";
import { childKeyList } from "./schema.ts";
import { closestName } from "./similar.ts";

/** True for the reserved `$err_`/`$warn_`/`$info_`/`$comm_` marker keys. */
export function isAnnotationKey(key: string): boolean {
  // Every key of every config passes here; most do not start with `$` and need no regex.
  return key.charCodeAt(0) === 36 && /^\$(err|warn|info|comm)_/.test(key);
}

/**
 * A top-level `$schema` names the JSON Schema an editor checks the file against (see `json_schema.ts`);
 * it is accepted and ignored.
 */
export const SCHEMA_REFERENCE_KEY = "$schema";

function checkLevel(node: JsonNode | undefined, path: string, schemaPath: string, out: Diagnostic[]): void {
  if (node?.kind !== "object") return;
  const allowed = childKeyList(schemaPath);
  for (const { key } of node.entries) {
    if (isAnnotationKey(key) || allowed.includes(key)) continue;
    if (path === "" && key === SCHEMA_REFERENCE_KEY) continue;
    const hint = closestName(key, allowed);
    out.push({
      severity: "error",
      code: "config.unknown_key",
      path: joinPath(path, key),
      message: hint
        ? `unknown config key '${key}' — did you mean '${hint}'?`
        : `unknown config key '${key}' — typo or extraneous entry`,
      ...(hint ? { suggest: `did you mean '${hint}'?` } : {}),
    });
  }
}

/** Walk the raw config tree and report every unknown key. */
export function checkUnknownKeys(root: JsonNode): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (root.kind !== "object") return out;
  checkLevel(root, "", "", out);
  const templates = getMember(root, "conversion_templates");
  if (templates?.kind !== "object") return out;
  const T = "conversion_templates.*";
  for (const { key: id, value: template } of templates.entries) {
    if (isAnnotationKey(id) || template.kind !== "object") continue;
    const base = `conversion_templates.${id}`;
    checkLevel(template, base, T, out);
    checkLevel(getMember(template, "xlsx_sheet"), `${base}.xlsx_sheet`, `${T}.xlsx_sheet`, out);
    checkLevel(getMember(template, "zip_input"), `${base}.zip_input`, `${T}.zip_input`, out);
    const rules = getMember(template, "row_rules");
    if (rules?.kind === "array") {
      rules.items.forEach((rule, i) => checkLevel(rule, `${base}.row_rules.${i}`, `${T}.row_rules.*`, out));
    }
    const prePass = getMember(template, "pre_pass");
    if (prePass?.kind === "object") {
      const legacy = prePass.entries.some((e) =>
        !isAnnotationKey(e.key) && ["when", "key", "values"].includes(e.key)
      );
      if (legacy) {
        checkLevel(prePass, `${base}.pre_pass`, `${T}.pre_pass`, out);
      } else {
        for (const block of prePass.entries) {
          if (isAnnotationKey(block.key)) continue;
          checkLevel(block.value, `${base}.pre_pass.${block.key}`, `${T}.pre_pass.*`, out);
        }
      }
    }
  }
  return out;
}
