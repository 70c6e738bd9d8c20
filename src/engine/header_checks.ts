/**
 * What bxp warns about once it knows a file's header: too many columns, duplicate names (a `[Name]` reads
 * the rightmost), and field references that look like typos of a real column.
 *
 * @example
 * ```ts
 * import { checkHeader } from "./header_checks.ts";
 * import { planTemplate } from "./plan.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps);
 * const { names, warnings, typos } = checkHeader(["H", "x", "x"], plan, "a.csv");
 * assert.deepEqual(names, ["H", "x", "x"]);
 * assert.match(warnings[0], /duplicate column header 'x' at columns 2, 3/);
 * assert.match(typos[0], /unknown field 'h' .* did you mean 'H'\?/);
 * ```
 * @module
 */

import { firstTypo } from "./field_check.ts";
import { planSources, type TemplatePlan } from "./plan.ts";

/** bxp's ceiling on CSV columns: a wider header is truncated with a warning, a wider data row silently. */
export const MAX_COLUMNS = 16384;

/**
 * Drops the fields of a CSV data record beyond {@link MAX_COLUMNS}, in place, as bxp does (without a
 * warning: only the header's overflow is reported). Returns the same array.
 *
 * @example
 * ```ts
 * import { capDataFields, MAX_COLUMNS } from "./header_checks.ts";
 * import assert from "node:assert/strict";
 * assert.equal(capDataFields(new Array(MAX_COLUMNS + 5).fill("x")).length, 16384);
 * ```
 */
export function capDataFields(fields: string[]): string[] {
  if (fields.length > MAX_COLUMNS) fields.length = MAX_COLUMNS;
  return fields;
}

/** The usable header and the warnings it raises; each entry of `warnings` counts as one warning. */
export interface HeaderCheck {
  names: string[];
  /** Column name -> index; a repeated name resolves to its rightmost column. */
  columns: Map<string, number>;
  /** Each counts as one warning. */
  warnings: string[];
  /** Field typos: all printed, counted together as one warning. */
  typos: string[];
}

function duplicateWarnings(filename: string, names: readonly string[]): string[] {
  const out: string[] = [];
  const done = new Set<string>();
  for (const name of names) {
    if (name === "" || done.has(name)) continue;
    const cols: number[] = [];
    names.forEach((n, i) => n === name && cols.push(i + 1));
    if (cols.length < 2) continue;
    done.add(name);
    out.push(
      `warning: '${filename}' has a duplicate column header '${name}' at columns ${cols.join(", ")}; ` +
        `[${name}] reads column ${cols[cols.length - 1]} — use FIELDS(n) to read the others\n`,
    );
  }
  return out;
}

/** Checks a file's header against the template. */
export function checkHeader(header: readonly string[], plan: TemplatePlan, filename: string): HeaderCheck {
  const warnings: string[] = [];
  let names = [...header];
  if (names.length > MAX_COLUMNS) {
    warnings.push(`warning: '${filename}' has more than ${MAX_COLUMNS} columns; extra columns are ignored\n`);
    names = names.slice(0, MAX_COLUMNS);
  }
  warnings.push(...duplicateWarnings(filename, names));
  const columns = new Map<string, number>();
  names.forEach((n, i) => columns.set(n, i));
  const typos: string[] = [];
  for (const [where, src] of planSources(plan)) {
    const typo = firstTypo(src, columns);
    if (typo === null) continue;
    typos.push(
      `warning: unknown field '${typo.bad}' referenced in ${where} of '${filename}' — did you mean '${typo.suggest}'?\n`,
    );
  }
  return { names, columns, warnings, typos };
}
