/**
 * `fill_down` (not bxp's): blank cells of the named input columns take the same column's value in the
 * previous record of the file, before any expression reads the record. Exports that write a date or an
 * account only on the first row of a group then read as if every row carried it. Blank means empty after
 * bxp's trimming; a short row's missing cells stay missing (the row has no such column to fill).
 *
 * State crosses records, so a template with `fill_down` converts serially (`blockInputBytes`) and the
 * partition modes refuse it: a block or piece cannot know the previous one's last row.
 *
 * @example
 * ```ts
 * import { FillDown } from "./fill_down.ts";
 * import { planTemplate } from "./plan.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", fill_down: ["Date"], input_schema: {$v: "[Date]"},
 *   row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps);
 * const fill = FillDown.of(plan, new Map([["Date", 0], ["Amount", 1]]))!; // null: nothing to fill
 * assert.deepEqual(fill.apply(["2024-01-02", "5"]), ["2024-01-02", "5"]);
 * assert.deepEqual(fill.apply(["", "7"]), ["2024-01-02", "7"]);
 * ```
 * @module
 */

import type { TemplatePlan } from "./plan.ts";

/** The fill state of one pass over one file. */
export class FillDown {
  readonly #columns: readonly number[];
  readonly #last: string[];

  private constructor(columns: readonly number[]) {
    this.#columns = columns;
    this.#last = columns.map(() => "");
  }

  /** A fresh state for one pass, or null when the template fills nothing the file's header has. */
  static of(plan: TemplatePlan, columns: ReadonlyMap<string, number>): FillDown | null {
    const indexes: number[] = [];
    for (const name of plan.template.fillDown) {
      const i = columns.get(name);
      if (i !== undefined && !indexes.includes(i)) indexes.push(i);
    }
    return indexes.length === 0 ? null : new FillDown(indexes);
  }

  /** The record with its blank fill cells filled (a copy when one is; `fields` itself otherwise). */
  apply(fields: readonly string[]): readonly string[] {
    let out: string[] | null = null;
    const cols = this.#columns;
    for (let k = 0; k < cols.length; k++) {
      const i = cols[k];
      if (i >= fields.length) continue;
      const cell = fields[i];
      if (!isBlank(cell)) {
        this.#last[k] = cell;
      } else if (this.#last[k] !== "") {
        out ??= fields.slice();
        out[i] = this.#last[k];
      }
    }
    return out ?? fields;
  }
}

/** Empty or spaces only: what a `[Column]` read sees as empty (bxp trims spaces, not tabs). */
function isBlank(cell: string): boolean {
  for (let i = 0; i < cell.length; i++) if (cell.charCodeAt(i) !== 32) return false;
  return true;
}
