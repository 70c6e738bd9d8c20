/**
 * `fill_down` (not bxp's): blank cells of the named input columns take the same column's value in the
 * previous record of the file, before any expression reads the record. Exports that write a date or an
 * account only on the first row of a group then read as if every row carried it. Blank means empty after
 * bxp's trimming; a short row's missing cells stay missing (the row has no such column to fill).
 *
 * State crosses records, so a template with `fill_down` converts serially (`blockInputBytes`) and the
 * partition modes refuse it: a block or piece cannot know the previous one's last row.
 *
 * Not run as a test: a fragment of a run: it needs the plan, context and sinks a conversion builds (tests/engine/ run it whole).
 *
 * @example
 * ```ts ignore
 * const fill = FillDown.of(plan, columns);
 * rows.evalRecord(fill === null ? fields : fill.apply(fields), ...);
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
