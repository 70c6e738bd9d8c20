/**
 * Explains one input record: the value of every rule's `when`, the winning rule, each variable's value
 * (input_schema, then the winning rule's overrides per output row), and the output rows the record produced
 * or the reason it was dropped.
 *
 * The outcome and the written rows come from the engine's own {@link RowEvaluator} run on the record (so the
 * explanation can never disagree with what bxp-cli writes); the per-expression details come from evaluating
 * the plan's compiled expressions one by one in the same context.
 *
 * @example
 * ```ts
 * import { explainRecord } from "./explain.ts";
 * import { planTemplate } from "../engine/mod.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$n: "[Amount] * 2"},
 *   row_rules: [{when: "[Type] = 'Buy'", rows: [{}]}], output_schema: {n: "$n"}}}}`, "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps);
 * const ex = explainRecord({ plan, columnNames: ["Type", "Amount"], fields: ["Buy", "10"], recordNum: 1 });
 * assert.equal(ex.outcome, "written");
 * assert.equal(ex.winner, 0); // the first rule matched
 * assert.deepEqual(ex.written, [["20"]]);
 * const sell = explainRecord({ plan, columnNames: ["Type", "Amount"], fields: ["Sell", "5"], recordNum: 2 });
 * assert.equal(sell.outcome, "no_rule_match");
 * ```
 * @module
 */

import { ExprError, type LookupTables } from "../lang/mod.ts";
import type { CompiledExpr, EvalContext } from "../lang/mod.ts";
import { newEvalContext } from "../engine/mod.ts";
import { outsideRange, UncomparableDateError } from "../engine/mod.ts";
import type { TemplatePlan } from "../engine/mod.ts";
import { RowEvaluator } from "../engine/mod.ts";
import type { RowWriter, TraceSink } from "../engine/mod.ts";

/** What happened to a record, in the words of bxp's trace (`date_filter_from_filename` shortened). */
export type RecordOutcome = "written" | "rule_skip" | "no_rule_match" | "date_filtered" | "fatal";

/** An expression's result: its text value, or the error it raised (value then ""). */
export interface Evaluated {
  readonly source: string;
  readonly value: string;
  readonly error: { readonly name: string; readonly detail: string } | null;
}

/** One `row_rules` entry as this record meets it. */
export interface RuleExplanation extends Evaluated {
  readonly index: number;
  /** The truth of `when` (false when it raised an error, as the engine treats it). */
  readonly matched: boolean;
  /** Whether the engine evaluates this rule for the record (rules after the winner are never looked at). */
  readonly reached: boolean;
}

/** One variable: an input_schema entry or an override of an output row. */
export interface VarExplanation extends Evaluated {
  readonly name: string;
  /** input_schema only: the winning rule overrides it in every output row, so the engine never evaluates it. */
  readonly skipped: boolean;
}

/** One output row of the winning rule. */
export interface RowExplanation {
  /** Index of the row inside the rule's `rows`. */
  readonly index: number;
  readonly overrides: readonly VarExplanation[];
  /** Output columns in `output_schema` order with the value each gets. */
  readonly values: readonly (readonly [header: string, value: string])[];
  readonly outcome: "written" | "date_filtered";
}

/** The whole explanation of one record. */
export interface RecordExplanation {
  readonly recordNum: number;
  /** Header names with this record's fields. */
  readonly fields: readonly (readonly [name: string, value: string])[];
  readonly rules: readonly RuleExplanation[];
  /** Index of the first matching rule, or -1. */
  readonly winner: number;
  /**
   * The filename date filter dropped the record on its input_schema `$date` before any rule was looked at
   * (the rules are still evaluated here, to show what would have happened).
   */
  readonly droppedBeforeRules: boolean;
  readonly variables: readonly VarExplanation[];
  readonly rows: readonly RowExplanation[];
  readonly outcome: RecordOutcome;
  /** One sentence saying why the record ended as it did. */
  readonly reason: string;
  /** Expression errors the engine recorded for this record (BXTB error frames). */
  readonly errors: number;
  /** The rows exactly as the engine wrote them (output_schema order). */
  readonly written: readonly (readonly string[])[];
}

/** The record and the file context it is read in. */
export interface ExplainInput {
  readonly plan: TemplatePlan;
  /** Header names of the file (trimmed, as the engine indexes them). */
  readonly columnNames: readonly string[];
  /** Column name -> field index as the engine resolves it; by default a repeated name means its rightmost column. */
  readonly columns?: ReadonlyMap<string, number>;
  readonly fields: readonly string[];
  /** 1-based number of the record among the data records (RECORD_NUM()). */
  readonly recordNum: number;
  /** FILENAME(): the input name without `file_pattern_in` ("" when unknown). */
  readonly stem?: string;
  /** pre_pass tables of the file (null when the template has none). */
  readonly lookups?: LookupTables | null;
  /** The filename date range (YYYY-MM-DD), "" for no bound. */
  readonly dateMin?: string;
  readonly dateMax?: string;
}

const FILTER_DATE = "date_filter_from_filename";

function evaluated(expr: CompiledExpr, ctx: EvalContext): Evaluated {
  try {
    return { source: expr.source, value: expr.evaluate(ctx), error: null };
  } catch (err) {
    if (!(err instanceof ExprError)) throw err;
    return { source: expr.source, value: "", error: { name: err.error, detail: err.detail } };
  }
}

function whenOf(expr: CompiledExpr, ctx: EvalContext): { matched: boolean; ev: Evaluated } {
  try {
    const matched = expr.evaluateBool(ctx);
    return { matched, ev: evaluated(expr, ctx) };
  } catch (err) {
    if (!(err instanceof ExprError)) throw err;
    return {
      matched: false,
      ev: { source: expr.source, value: "", error: { name: err.error, detail: err.detail } },
    };
  }
}

/** The engine's own verdict on the record: rows written, filter events, error frames, or a fatal. */
interface EngineVerdict {
  written: string[][];
  filtered: string[];
  errors: number;
  fatal: string | null;
}

function engineVerdict(input: ExplainInput, ctx: EvalContext): EngineVerdict {
  const verdict: EngineVerdict = { written: [], filtered: [], errors: 0, fatal: null };
  const out: RowWriter = {
    writeHeader() {},
    writeRow(values) {
      verdict.written.push([...values]);
    },
    writeFragment() {},
    finish() {},
    drain: () => null,
  };
  const trace: TraceSink = {
    enabled: true,
    fileStart() {},
    fileEnd() {},
    outputRow() {},
    filteredRow(_locator, reason) {
      verdict.filtered.push(reason);
    },
    errorRow() {
      verdict.errors++;
    },
    prepassEntry() {},
    done() {},
    appendFrames() {},
    flush: () => Promise.resolve(),
  };
  const rows = new RowEvaluator(input.plan, ctx, { out, combined: null, trace, debug: null }, {
    dateMin: input.dateMin ?? "",
    dateMax: input.dateMax ?? "",
    columnNames: input.columnNames,
  });
  try {
    rows.evalRecord(input.fields, 0, input.recordNum);
  } catch (err) {
    if (!(err instanceof UncomparableDateError)) throw err;
    verdict.fatal = err.message;
  }
  return verdict;
}

function contextFor(input: ExplainInput): EvalContext {
  const columns = input.columns ?? new Map(input.columnNames.map((name, i) => [name, i]));
  const ctx = newEvalContext(input.plan, columns, input.stem ?? "");
  ctx.lookups = input.lookups ?? null;
  ctx.fields = input.fields;
  ctx.recordNum = input.recordNum;
  return ctx;
}

function reasonFor(
  outcome: RecordOutcome,
  winner: number,
  rules: number,
  verdict: EngineVerdict,
  input: ExplainInput,
): string {
  const range = `${input.dateMin || "…"} to ${input.dateMax || "…"}`;
  switch (outcome) {
    case "written":
      return `rule ${winner} matched first and wrote ${verdict.written.length} row(s)`;
    case "rule_skip":
      return `rule ${winner} matched first and has no output rows (rows: []), so the record is skipped`;
    case "no_rule_match":
      return rules === 0
        ? "the template has no row_rules"
        : `none of the ${rules} row_rules matched (every when is false or raised an error)`;
    case "date_filtered":
      return `$date is outside the file name's date range (${range}), date_filter_from_filename drops it`;
    case "fatal":
      return `the run stops here: ${verdict.fatal}`;
  }
}

/** Explains one record of a file; pure, evaluates only what the record needs. */
export function explainRecord(input: ExplainInput): RecordExplanation {
  const { plan } = input;
  const verdict = engineVerdict(input, contextFor(input));
  const ctx = contextFor(input);

  let winner = -1;
  const rules: RuleExplanation[] = plan.rules.map((rule, index) => {
    const { matched, ev } = whenOf(rule.when, ctx);
    const reached = winner < 0;
    if (matched && winner < 0) winner = index;
    return { ...ev, index, matched, reached };
  });

  const skip = winner >= 0 ? plan.rules[winner].skip : new Set<string>();
  const base: string[] = new Array(plan.slotNames.length).fill("");
  const variables: VarExplanation[] = plan.inputVars.map((v) => {
    const ev = evaluated(v.expr, ctx);
    const skipped = skip.has(v.name);
    if (!skipped) base[v.slot] = ev.value;
    return { ...ev, name: v.name, skipped };
  });

  const filtering = (input.dateMin ?? "") !== "" || (input.dateMax ?? "") !== "";
  const rows: RowExplanation[] = winner < 0 ? [] : plan.rules[winner].rows.map((row, index) => {
    const merged = [...base];
    const overrides = row.map((o) => {
      const ev = evaluated(o.expr, ctx);
      merged[o.slot] = ev.value;
      return { ...ev, name: o.name, skipped: false };
    });
    const dropped = filtering &&
      outsideRange(merged[plan.dateSlot], input.dateMin ?? "", input.dateMax ?? "");
    return {
      index,
      overrides,
      values: plan.outputHeaders.map((h, i) => [h, merged[plan.outputSlots[i]]] as const),
      outcome: dropped ? "date_filtered" : "written",
    };
  });

  let outcome: RecordOutcome;
  if (verdict.fatal !== null) outcome = "fatal";
  else if (verdict.written.length > 0) outcome = "written";
  else if (verdict.filtered.includes(FILTER_DATE)) outcome = "date_filtered";
  else if (verdict.filtered.includes("rule_skip")) outcome = "rule_skip";
  else outcome = "no_rule_match";

  // With $date declared and never overridden, the engine drops the record before it looks at any rule.
  const droppedBeforeRules = outcome === "date_filtered" && plan.dateVar !== null && !plan.dateOverridden;
  return {
    recordNum: input.recordNum,
    fields: input.columnNames.map((name, i) => [name, input.fields[i] ?? ""] as const),
    rules: droppedBeforeRules ? rules.map((r) => ({ ...r, reached: false })) : rules,
    winner,
    droppedBeforeRules,
    variables,
    rows,
    outcome,
    reason: reasonFor(outcome, winner, plan.rules.length, verdict, input),
    errors: verdict.errors,
    written: verdict.written,
  };
}
