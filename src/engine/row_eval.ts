/**
 * One source record through a template: input_schema, the first matching row rule, its output rows with
 * overrides, the filename date filter, and the output and trace events — bxp's per-row semantics.
 *
 * @example
 * ```ts ignore
 * const rows = new RowEvaluator(plan, ctx, sinks, options);
 * rows.evalRecord(fields, byteOffset, recordNum);
 * ```
 * @module
 */

import { type EvalContext, ExprError } from "../lang/mod.ts";
import { outsideRange, requireComparableDate } from "./date_range.ts";
import type { PlannedVar, TemplatePlan } from "./plan.ts";
import type { RowWriter, TraceSink } from "./sinks.ts";
import { newTally, type RowTally } from "./tally.ts";

/** Where a row's results go. */
export interface RowSinks {
  readonly out: RowWriter;
  /** The template's combined output, when `combined_output` is on. */
  readonly combined: RowWriter | null;
  readonly trace: TraceSink;
  /** `--debug` text sink, or null when debug is off. */
  readonly debug: ((text: string) => void) | null;
}

/** Per-file settings of the evaluation. */
export interface RowOptions {
  readonly dateMin: string;
  readonly dateMax: string;
  /** Header names, for the unmatched-row dump. */
  readonly columnNames: readonly string[];
}

const FILTER_DATE = "date_filter_from_filename";

function errorParts(err: unknown): { name: string; detail: string } {
  if (err instanceof ExprError) return { name: err.error, detail: err.detail };
  throw err;
}

function quoteFields(fields: readonly string[]): string {
  let s = "  fields:";
  for (const f of fields) s += ` "${f}"`;
  return s + "\n";
}

/** Evaluates records of one file; counters accumulate across calls. */
export class RowEvaluator {
  /** Output rows written so far in this file (also the next BXTB output index). */
  rowsWritten = 0;
  /** input_schema evaluation failures in this file. */
  exprErrors = 0;
  /** Filter counts and the observations findings are made of. */
  readonly tally: RowTally;

  readonly #plan: TemplatePlan;
  readonly #ctx: EvalContext;
  readonly #sinks: RowSinks;
  readonly #opts: RowOptions;
  readonly #fastDate: boolean;
  readonly #filterDates: boolean;
  /** input_schema values of the current record, by slot ("" where not set). */
  readonly #base: string[];
  /** The output row being assembled: base values plus the rule row's overrides. */
  readonly #row: string[];
  readonly #values: string[];
  /** Output columns not yet seen non-empty (the per-row check stops once all are). */
  #unfilled: number;
  /** The output delimiter, checked in values only while csv_text_quote_out is none; else null. */
  readonly #bareDelimiter: string | null;
  /** Date checks by input var index. */
  readonly #dateCheckAt: (number | undefined)[];

  constructor(plan: TemplatePlan, ctx: EvalContext, sinks: RowSinks, opts: RowOptions) {
    this.#plan = plan;
    this.#ctx = ctx;
    this.#sinks = sinks;
    this.#opts = opts;
    this.#filterDates = opts.dateMin !== "" || opts.dateMax !== "";
    this.#fastDate = this.#filterDates && plan.dateVar !== null && !plan.dateOverridden;
    this.#base = new Array(plan.slotNames.length).fill("");
    this.#row = new Array(plan.slotNames.length).fill("");
    this.#values = new Array(plan.outputSlots.length).fill("");
    this.tally = newTally(plan.outputSlots.length, plan.dateChecks.length);
    this.#unfilled = plan.outputSlots.length;
    const t = plan.template;
    this.#bareDelimiter = t.fileTypeOut !== "json" && t.csvTextQuoteOut === "none" ? t.csvDelimiterOut : null;
    this.#dateCheckAt = plan.inputVars.map(() => undefined);
    plan.dateChecks.forEach((c, i) => this.#dateCheckAt[c.inputIndex] = i);
  }

  /** Runs one record. `locator` is the byte offset of the record in its source file. */
  evalRecord(fields: readonly string[], locator: number, recordNum: number): void {
    const ctx = this.#ctx;
    ctx.fields = fields;
    ctx.recordNum = recordNum;
    const plan = this.#plan;
    const trace = this.#sinks.trace;

    if (this.#fastDate) {
      let date = "";
      try {
        date = plan.dateVar!.expr.evaluate(ctx);
      } catch (err) {
        errorParts(err);
      }
      this.#requireComparable(date, recordNum);
      if (outsideRange(date, this.#opts.dateMin, this.#opts.dateMax)) {
        trace.filteredRow(locator, FILTER_DATE);
        this.tally.dateFilter++;
        return;
      }
    }

    let matched = -1;
    for (let r = 0; r < plan.rules.length; r++) {
      const rule = plan.rules[r];
      try {
        if (rule.when.evaluateBool(ctx)) {
          matched = r;
          break;
        }
      } catch (err) {
        const e = errorParts(err);
        this.#sinks.debug?.(
          e.detail
            ? `[row_rules when error] "${rule.whenSource}": ${e.name} (${e.detail})\n`
            : `[row_rules when error] "${rule.whenSource}": ${e.name}\n`,
        );
      }
    }

    this.#evalInputSchema(fields, locator, matched >= 0 ? plan.rules[matched].skip : null);

    let emitted = false;
    if (matched >= 0) {
      const rule = plan.rules[matched];
      const base = this.#base;
      const merged = this.#row;
      for (const row of rule.rows) {
        for (let i = 0; i < base.length; i++) merged[i] = base[i];
        this.#applyOverrides(row, merged, locator);
        if (this.#filterDates) this.#requireComparable(merged[plan.dateSlot], recordNum);
        if (
          this.#filterDates && outsideRange(merged[plan.dateSlot], this.#opts.dateMin, this.#opts.dateMax)
        ) {
          trace.filteredRow(locator, FILTER_DATE);
          this.tally.dateFilter++;
          emitted = true;
          continue;
        }
        this.#write(merged, recordNum);
        trace.outputRow(locator, this.rowsWritten, matched, merged[plan.actionSlot]);
        emitted = true;
        this.rowsWritten++;
      }
    } else if (plan.template.rowRulesDebugMissing && this.#sinks.debug) {
      this.#sinks.debug(this.#unmatchedDump(fields));
    }
    if (!emitted) {
      trace.filteredRow(locator, matched >= 0 ? "rule_skip" : "no_rule_match");
      if (matched >= 0) this.tally.ruleSkip++;
      else this.tally.noRuleMatch++;
    }
  }

  /** A live date filter that cannot place a row stops the run (bxp's `requireComparableDate`). */
  #requireComparable(date: string, recordNum: number): void {
    requireComparableDate(date, this.#opts.dateMin, this.#opts.dateMax, {
      template: this.#plan.template.id,
      file: this.#ctx.filename,
      recordNum,
    });
  }

  #evalInputSchema(fields: readonly string[], locator: number, skip: ReadonlySet<string> | null): void {
    const base = this.#base;
    base.fill("");
    const ctx = this.#ctx;
    const vars = this.#plan.inputVars;
    for (let k = 0; k < vars.length; k++) {
      const v = vars[k];
      if (skip !== null && skip.has(v.name)) continue;
      let value = "";
      try {
        value = v.expr.evaluate(ctx);
      } catch (err) {
        const e = errorParts(err);
        this.exprErrors++;
        this.#sinks.debug?.(
          (e.detail
            ? `[expr error] ${v.name} = "${v.source}": ${e.name} (${e.detail})\n`
            : `[expr error] ${v.name} = "${v.source}": ${e.name}\n`) + quoteFields(fields),
        );
        this.#sinks.trace.errorRow(locator, v.name, e.name, e.detail, "input_schema");
      }
      base[v.slot] = value;
      const check = this.#dateCheckAt[k];
      if (check !== undefined) this.#watchDate(check, value);
    }
  }

  /** Counts a watched DATE_CONVERT result; an empty one is judged by its input (evaluated only then). */
  #watchDate(check: number, value: string): void {
    const d = this.tally.dates[check];
    if (value !== "") {
      d.converted++;
      return;
    }
    if (d.converted > 0) return;
    let input = "";
    try {
      input = this.#plan.dateChecks[check].input.evaluate(this.#ctx);
    } catch {
      return;
    }
    if (input.trim() === "") return;
    d.emptied++;
    if (d.sample === "") d.sample = input;
  }

  #applyOverrides(row: readonly PlannedVar[], merged: string[], locator: number): void {
    for (const o of row) {
      let value = "";
      try {
        value = o.expr.evaluate(this.#ctx);
      } catch (err) {
        const e = errorParts(err);
        this.#sinks.debug?.(
          e.detail
            ? `[row_rules error] ${o.name} = "${o.source}": ${e.name} (${e.detail})\n`
            : `[row_rules error] ${o.name} = "${o.source}": ${e.name}\n`,
        );
        this.#sinks.trace.errorRow(locator, o.name, e.name, e.detail, "row_rules");
      }
      merged[o.slot] = value;
    }
  }

  #write(merged: readonly string[], recordNum: number): void {
    const slots = this.#plan.outputSlots;
    const values = this.#values;
    for (let i = 0; i < slots.length; i++) values[i] = merged[slots[i]];
    if (this.#unfilled > 0) this.#markFilled(values);
    if (this.#bareDelimiter !== null && this.tally.unquoted === null) this.#checkBare(values, recordNum);
    this.#sinks.out.writeRow(values);
    this.#sinks.combined?.writeRow(values);
  }

  #markFilled(values: readonly string[]): void {
    const filled = this.tally.filled;
    for (let i = 0; i < values.length; i++) {
      if (!filled[i] && values[i] !== "") {
        filled[i] = true;
        this.#unfilled--;
      }
    }
  }

  #checkBare(values: readonly string[], recordNum: number): void {
    const delimiter = this.#bareDelimiter!;
    // A character loop beats three includes() on the short values rows hold (this runs on every row).
    const d = delimiter.length === 1 ? delimiter.charCodeAt(0) : -1;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      let breaks = d < 0 && v.includes(delimiter);
      for (let j = 0; !breaks && j < v.length; j++) {
        const c = v.charCodeAt(j);
        breaks = c === d || c === 10 || c === 13;
      }
      if (breaks) {
        this.tally.unquoted = { column: i, record: recordNum };
        return;
      }
    }
  }

  #unmatchedDump(fields: readonly string[]): string {
    const names = this.#opts.columnNames;
    let s = `[${this.#plan.template.id}] unmatched row (no row_rules entry):\n{\n`;
    for (let i = 0; i < names.length; i++) {
      s += `  "${names[i]}": "${i < fields.length ? fields[i] : ""}"${i + 1 < names.length ? "," : ""}\n`;
    }
    return s + "}\n";
  }
}
