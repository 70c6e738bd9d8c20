/**
 * One source record through a template: input_schema, the first matching row rule, its output rows with
 * overrides, the filename date filter, and the output and trace events — bxp's per-row semantics.
 *
 * @example
 * ```ts
 * import { RowEvaluator } from "./row_eval.ts";
 * import { newEvalContext } from "./context.ts";
 * import { planTemplate } from "./plan.ts";
 * import { createRowWriter } from "./row_writers.ts";
 * import { NULL_TRACE } from "./sinks.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h] & '!'"}, row_rules: [{when: "[h] = 'x'", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps);
 * const ctx = newEvalContext(plan, new Map([["h", 0]]), "a");
 * const out = createRowWriter(plan.template, plan.outputHeaders);
 * const sinks = { out, combined: null, trace: NULL_TRACE, debug: null };
 * const rows = new RowEvaluator(plan, ctx, sinks, { dateMin: "", dateMax: "", columnNames: ["h"] });
 * rows.evalRecord(["x"], 2, 1); // fields, byte offset, record number
 * rows.evalRecord(["y"], 4, 2); // no rule matches
 * assert.equal(new TextDecoder().decode(out.drain()!), "x!\n");
 * assert.equal(rows.tally.noRuleMatch, 1);
 * ```
 * @module
 */

import { type EvalContext, ExprError } from "../lang/mod.ts";
import { outsideRange, requireComparableDate } from "./date_range.ts";
import type { PlannedVar, TemplatePlan } from "./plan.ts";
import type { RowWriter, TraceSink } from "./sinks.ts";
import { newTally, type RowTally } from "./tally.ts";
import { type FieldBounds, quoteChar } from "../formats/csv_reader.ts";
import type { CopySource } from "../formats/csv_writer.ts";
import { CharFinder } from "../util/char_finder.ts";
import {
  jsonVerbatimRules,
  type VerbatimRules,
  verbatimRules,
  verbatimSafe,
  verbatimSafeInCleanLine,
} from "./verbatim.ts";

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

/** The copy source before any record has copies. */
const NO_SOURCE: CopySource = { text: "", bytes: null, byteBase: 0 };

/** Evaluates records of one file; counters accumulate across calls. */
export class RowEvaluator {
  /** Output rows written so far in this file (also the next BXTB output index). */
  rowsWritten = 0;
  /** input_schema evaluation failures in this file. */
  exprErrors = 0;
  /** Filter counts and the observations findings are made of. */
  tally: RowTally;

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
  /**
   * Output columns this evaluator has seen non-empty, over every block it served (1 = seen); the tally lists
   * each once. The per-row check stops once all are.
   */
  readonly #seenFilled: Uint8Array;
  /** Output columns not yet seen non-empty. */
  #unfilled: number;
  /** The output delimiter, checked in values only while csv_text_quote_out is none; else null. */
  readonly #bareDelimiter: string | null;
  /**
   * The output writer reports the values holding the delimiter, CR or LF (`specialColumn`): true when that
   * is exactly the bare-delimiter check (no decimal separator rewrite before its test), so it need not run.
   */
  readonly #writerFindsBare: boolean;
  /** Date checks by input var index. */
  readonly #dateCheckAt: (number | undefined)[];
  /**
   * Verbatim copies (see {@link RowEvaluator.lazyFields}): per input var the column index it copies, -1 when
   * it is evaluated; null when this evaluator never copies.
   */
  readonly #copyColumn: Int32Array | null = null;
  readonly #copyRules: VerbatimRules | null = null;
  /** Indexes of the input vars that may be copied (copy column >= 0), and of the others. */
  readonly #copyVars: Int32Array = new Int32Array(0);
  readonly #otherVars: Int32Array = new Int32Array(0);
  /** Per entry of `#copyVars`: its column and its slot (read once per copy var of every row). */
  readonly #copyVarColumn: Int32Array = new Int32Array(0);
  readonly #copyVarSlot: Int32Array = new Int32Array(0);
  /** Per slot: where the value sits in the record's text when copied (start -1: it is the string). */
  readonly #baseStart: Int32Array;
  readonly #baseEnd: Int32Array;
  readonly #rowStart: Int32Array;
  readonly #rowEnd: Int32Array;
  readonly #outStart: Int32Array;
  readonly #outEnd: Int32Array;
  /**
   * Characters no copied value may hold that a line can still contain (CR, the output quote, an output
   * delimiter other than the input one; for JSON, `"`, `\\`, TAB and CR): lines free of them need no
   * per-character check of their fields (beyond, for JSON, the rarer control characters).
   */
  #lineChars: CharFinder | null = null;
  /** The same for the fields of an ASCII line with quoted fields, which may hold the output delimiter too. */
  #fieldChars: CharFinder | null = null;
  /** The record being evaluated has copied values (taken from `#rawSource`, the parser's field bounds). */
  #copied = false;
  #rawSource: CopySource = NO_SOURCE;
  /**
   * Which fields the evaluator reads as strings when records come with their field bounds (a `lazyFields`
   * option for the CSV parser), or null when it needs every field as a string.
   */
  readonly lazyFields: Uint8Array | null = null;

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
    this.tally = newTally(plan.dateChecks.length);
    this.#seenFilled = new Uint8Array(plan.outputSlots.length);
    this.#unfilled = plan.outputSlots.length;
    const t = plan.template;
    this.#bareDelimiter = t.fileTypeOut !== "json" && t.csvTextQuoteOut === "none" ? t.csvDelimiterOut : null;
    this.#writerFindsBare = this.#bareDelimiter !== null && sinks.out.specialColumn !== undefined &&
      (t.csvDecimalSeparatorOut === "." || t.csvDecimalSeparatorOut === "");
    this.#dateCheckAt = plan.inputVars.map(() => undefined);
    plan.dateChecks.forEach((c, i) => this.#dateCheckAt[c.inputIndex] = i);
    const slotCount = plan.slotNames.length;
    this.#baseStart = new Int32Array(slotCount).fill(-1);
    this.#baseEnd = new Int32Array(slotCount).fill(-1);
    this.#rowStart = new Int32Array(slotCount).fill(-1);
    this.#rowEnd = new Int32Array(slotCount).fill(-1);
    this.#outStart = new Int32Array(plan.outputSlots.length).fill(-1);
    this.#outEnd = new Int32Array(plan.outputSlots.length).fill(-1);
    // The reference mode decodes every field and copies none whatever the plan's reads say: it must not
    // rest on the lazy-field code it checks (a FIELDS(n) bug there once emptied the reference's fields too).
    if (plan.reference) return;
    // Copies need every writer to take copied values, and no debug output (its dumps show every field).
    const copies = sinks.debug === null && typeof sinks.out.writeRowRaw === "function" &&
      (sinks.combined === null || typeof sinks.combined.writeRowRaw === "function");
    // A positional read (FIELDS(n)) may read any field, also past the header's width or with no header at
    // all: then every field is decoded as a string (no lazy fields, so no copies either).
    if (!copies || plan.readColumns === null) return;
    const columns = ctx.columns;
    this.#copyColumn = Int32Array.from(plan.verbatimColumns, (c) => c === null ? -1 : columns.get(c) ?? -1);
    const indexes = plan.inputVars.map((_, k) => k);
    this.#copyVars = Int32Array.from(indexes.filter((k) => this.#copyColumn![k] >= 0));
    this.#otherVars = Int32Array.from(indexes.filter((k) => this.#copyColumn![k] < 0));
    this.#copyVarColumn = Int32Array.from(this.#copyVars, (k) => this.#copyColumn![k]);
    this.#copyVarSlot = Int32Array.from(this.#copyVars, (k) => plan.inputVars[k].slot);
    if (t.fileTypeOut === "json") {
      this.#copyRules = jsonVerbatimRules(t.csvDecimalSeparatorIn);
      // JSON escapes `"`, `\\` and control characters wherever they are (the input delimiter in a quoted
      // field needs nothing). Lines are searched for the ones text holds (TAB, CR); the rarer controls are
      // looked for in each copied field (see verbatimSafeInCleanLine): a search for a class of characters
      // cost 1-2 ns a character, more than the copy saved.
      this.#lineChars = this.#fieldChars = new CharFinder(['"', "\\", "\t", "\r"]);
    } else {
      this.#copyRules = verbatimRules({
        delimiterOut: t.csvDelimiterOut,
        quoteOut: quoteChar(t.csvTextQuoteOut),
        decimalIn: t.csvDecimalSeparatorIn,
        decimalOut: t.csvDecimalSeparatorOut,
      });
      const lineChars = ["\r"];
      const quoteOut = quoteChar(t.csvTextQuoteOut);
      if (quoteOut !== "") lineChars.push(quoteOut);
      // The input delimiter separates the fields, so an unquoted field never holds it (a quoted one may:
      // such a line is never clean, see #lineClean).
      if (t.csvDelimiterOut !== t.csvDelimiterIn) lineChars.push(t.csvDelimiterOut);
      this.#lineChars = new CharFinder(lineChars);
      this.#fieldChars = new CharFinder(
        t.csvDelimiterOut === t.csvDelimiterIn ? [...lineChars, t.csvDelimiterOut] : lineChars,
      );
    }
    let width = 0;
    for (const i of columns.values()) width = Math.max(width, i + 1);
    const wanted = new Uint8Array(width);
    for (const name of plan.readColumns) {
      const i = columns.get(name);
      if (i !== undefined) wanted[i] = 1;
    }
    this.lazyFields = wanted;
  }

  /**
   * Starts counting afresh (rows written, expression errors, the tally) so one evaluator can serve block
   * after block of a file: each block reports its own counts, merged later in block order. Building an
   * evaluator costs arrays the size of the template; a wide one cut into blocks of a few lines made that
   * most of the garbage. Filled columns are not forgotten: a block lists only those this evaluator had not
   * seen filled before, and the merged tally is the same.
   */
  resetCounts(): void {
    this.rowsWritten = 0;
    this.exprErrors = 0;
    this.tally = newTally(this.#plan.dateChecks.length);
  }

  /**
   * Runs one record. `locator` is the byte offset of the record in its source file. `raw` is the parser's
   * field bounds when it was created with {@link RowEvaluator.lazyFields}: then `fields` holds only those
   * fields (the evaluator fills in others it turns out to need) and bare column copies may be written
   * straight from the record's text.
   */
  evalRecord(
    fields: readonly string[],
    locator: number,
    recordNum: number,
    raw: FieldBounds | null = null,
  ): void {
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

    const ruleSkip = matched >= 0 ? plan.rules[matched].skip : null;
    const skip = ruleSkip !== null && ruleSkip.size > 0 ? ruleSkip : null;
    if (raw !== null && raw.count >= 0 && this.#copyColumn !== null) {
      // Lazy records come in the parser's own (mutable) array, which may be filled in.
      this.#evalInputSchemaCopying(fields as string[], raw, locator, skip);
    } else {
      this.#copied = false;
      this.#evalInputSchema(fields, locator, skip);
    }

    let emitted = false;
    if (matched >= 0) {
      const rule = plan.rules[matched];
      const base = this.#base;
      // A rule emitting one row without overrides writes the input_schema values as they are: no copy.
      const plain = rule.plain;
      const merged = plain ? base : this.#row;
      const starts = plain ? this.#baseStart : this.#rowStart;
      const ends = plain ? this.#baseEnd : this.#rowEnd;
      for (const row of rule.rows) {
        if (!plain) {
          for (let i = 0; i < base.length; i++) merged[i] = base[i];
          if (this.#copied) {
            starts.set(this.#baseStart);
            ends.set(this.#baseEnd);
          }
          this.#applyOverrides(row, merged, locator);
        }
        if (this.#filterDates) this.#requireComparable(merged[plan.dateSlot], recordNum);
        if (
          this.#filterDates && outsideRange(merged[plan.dateSlot], this.#opts.dateMin, this.#opts.dateMax)
        ) {
          trace.filteredRow(locator, FILTER_DATE);
          this.tally.dateFilter++;
          emitted = true;
          continue;
        }
        this.#write(merged, starts, ends, recordNum);
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
    this.#base.fill("");
    this.#evalVars(fields, locator, skip, null);
  }

  /**
   * Evaluates the input vars listed in `order` (indexes, ascending), or all of them, into `#base`; a
   * skipped var's slot is "".
   */
  #evalVars(
    fields: readonly string[],
    locator: number,
    skip: ReadonlySet<string> | null,
    order: Int32Array | null,
  ): void {
    const base = this.#base;
    const ctx = this.#ctx;
    const vars = this.#plan.inputVars;
    const n = order === null ? vars.length : order.length;
    for (let i = 0; i < n; i++) {
      const k = order === null ? i : order[i];
      const v = vars[k];
      if (skip !== null && skip.has(v.name)) {
        base[v.slot] = ""; // not evaluated: bxp leaves it empty
        continue;
      }
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

  /**
   * input_schema with copies: a bare `[Column]` whose field the writer would print unchanged is not
   * evaluated but remembered by position; any other field it falls back to is decoded first.
   */
  #evalInputSchemaCopying(
    fields: string[],
    raw: FieldBounds,
    locator: number,
    skip: ReadonlySet<string> | null,
  ): void {
    const copyVars = this.#copyVars;
    const copyVarColumn = this.#copyVarColumn;
    const copyVarSlot = this.#copyVarSlot;
    const rules = this.#copyRules!;
    const start = this.#baseStart;
    const end = this.#baseEnd;
    const text = raw.text;
    const bounds = raw.bounds;
    const width = Math.min(raw.count, fields.length);
    let copied = false;
    const clean = raw.count > 0 && this.#lineClean(raw);
    // Quoted fields of an ASCII line: each field is checked for the characters, not scanned.
    const quotedAscii = !clean && raw.ascii && raw.quoted;
    const base = this.#base;
    const ctx = this.#ctx;
    const vars = this.#plan.inputVars;
    // Every slot a copy var owns is written here (it owns it alone), so `#base` needs no reset: the other
    // vars write theirs below, and slots no input var writes stay "". Only these slots ever get a start
    // (`#baseStart` of every other slot stays -1), so each is set either way and nothing else is reset.
    for (let i = 0; i < copyVars.length; i++) {
      const col = copyVarColumn[i];
      const slot = copyVarSlot[i];
      if (col >= width || (skip !== null && skip.has(vars[copyVars[i]].name))) {
        start[slot] = -1;
        base[slot] = ""; // a field past the record's end reads "", as a skipped var is
        continue;
      }
      const a = bounds[2 * col];
      const b = bounds[2 * col + 1];
      if (
        clean || quotedAscii && this.#fieldChars!.noneIn(text, a, b)
          ? verbatimSafeInCleanLine(text, a, b, rules)
          : verbatimSafe(text, a, b, rules)
      ) {
        start[slot] = a;
        end[slot] = b;
        base[slot] = "";
        copied = true;
      } else {
        start[slot] = -1;
        if (fields[col] === "" && b > a) fields[col] = text.substring(a, b);
        // A bare column reference cannot fail (a field is at most 10 MiB, far below the work budget).
        base[slot] = vars[copyVars[i]].expr.evaluate(ctx);
      }
    }
    this.#copied = copied;
    this.#rawSource = raw;
    this.#evalVars(fields, locator, skip, this.#otherVars);
  }

  /**
   * True when the record's text is ASCII, has no quoted field, and holds none of `#lineChars` between its
   * first and last field.
   */
  #lineClean(raw: FieldBounds): boolean {
    // A quoted field may hold anything but a line break, the input delimiter included: check each field.
    if (!raw.ascii || raw.quoted) return false;
    return this.#lineChars!.noneIn(raw.text, raw.bounds[0], raw.bounds[2 * raw.count - 1]);
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
      this.#rowStart[o.slot] = -1;
    }
  }

  /** Writes one output row; `starts`/`ends`: the copied ranges of `merged`'s slots (see `#copied`). */
  #write(merged: readonly string[], starts: Int32Array, ends: Int32Array, recordNum: number): void {
    const slots = this.#plan.outputSlots;
    const values = this.#values;
    if (this.#copied) {
      // Copied slots hold "" in `merged`; the writer takes their text from the record.
      const start = this.#outStart;
      const end = this.#outEnd;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i];
        values[i] = merged[slot];
        start[i] = starts[slot];
        end[i] = ends[slot];
      }
      if (this.#unfilled > 0) this.#markFilled(values, start, end);
      // Copied values hold no delimiter or line break, so the bare-delimiter check may skip them ("").
      const check = this.#bareDelimiter !== null && this.tally.unquoted === null;
      if (check && !this.#writerFindsBare) this.#checkBare(values, recordNum);
      this.#sinks.out.writeRowRaw!(values, start, end, this.#rawSource);
      if (check && this.#writerFindsBare) this.#noteBare(recordNum);
      this.#sinks.combined?.writeRowRaw?.(values, start, end, this.#rawSource);
      return;
    }
    for (let i = 0; i < slots.length; i++) values[i] = merged[slots[i]];
    if (this.#unfilled > 0) this.#markFilled(values, null, null);
    const check = this.#bareDelimiter !== null && this.tally.unquoted === null;
    if (check && !this.#writerFindsBare) this.#checkBare(values, recordNum);
    this.#sinks.out.writeRow(values);
    if (check && this.#writerFindsBare) this.#noteBare(recordNum);
    this.#sinks.combined?.writeRow(values);
  }

  /** The bare-delimiter check from what the writer saw in the row it just wrote. */
  #noteBare(recordNum: number): void {
    const column = this.#sinks.out.specialColumn!;
    if (column >= 0) this.tally.unquoted = { column, record: recordNum };
  }

  #markFilled(values: readonly string[], start: Int32Array | null, end: Int32Array | null): void {
    const seen = this.#seenFilled;
    for (let i = 0; i < values.length; i++) {
      if (seen[i] === 0 && (values[i] !== "" || (start !== null && start[i] >= 0 && end![i] > start[i]))) {
        seen[i] = 1;
        this.tally.filled.push(i);
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
