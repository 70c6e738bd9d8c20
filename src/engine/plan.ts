/**
 * A template compiled for the engine: every expression compiled once, rule skip-sets and output columns
 * resolved, so the per-row work is evaluation only.
 *
 * @example
 * ```ts
 * import { planTemplate } from "./plan.ts";
 * import { loadConfig } from "../config/mod.ts";
 * import assert from "node:assert/strict";
 * const config = loadConfig(`{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv",
 *   file_pattern_out: ".o", input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
 *   output_schema: {v: "$v"}}}}`, "c.json").config!;
 * const plan = planTemplate(config.templates[0], config.maps); // throws ExprError on a broken expression
 * assert.deepEqual(plan.outputHeaders, ["v"]);
 * assert.equal(plan.slotNames[plan.outputSlots[0]], "$v");
 * ```
 * @module
 */

import {
  type CompiledExpr,
  compileExpression,
  compileExpressionGeneral,
  compileWithReads,
  type FieldReads,
  fieldReads,
} from "../lang/mod.ts";
import type { PrePassAggregate, PrePassBlock, TemplateConfig } from "../config/mod.ts";
import { type DateCheck, planDateChecks } from "./tally.ts";

/** One `$var: expression` of input_schema or of a rule's output row. */
export interface PlannedVar {
  readonly name: string;
  /** Index of the variable in the per-row value slots (see {@link TemplatePlan.slotNames}). */
  readonly slot: number;
  readonly source: string;
  readonly expr: CompiledExpr;
}

/** One row rule. */
export interface PlannedRule {
  readonly whenSource: string;
  readonly when: CompiledExpr;
  /** One entry per output row; each lists its overrides in declaration order. */
  readonly rows: readonly (readonly PlannedVar[])[];
  /**
   * input_schema vars that every output row of this rule overrides. When the rule wins they are not
   * evaluated (bxp skips them, so their errors are not counted either).
   */
  readonly skip: ReadonlySet<string>;
  /** One output row without overrides: it is the input_schema values as they are. */
  readonly plain: boolean;
}

/** One pre_pass block. */
export interface PlannedPrePass {
  readonly name: string;
  readonly when: CompiledExpr;
  readonly whenSource: string;
  readonly key: CompiledExpr;
  readonly keySource: string;
  readonly values: readonly PlannedVar[];
  /** How each of `values` combines several records writing one key (`aggregate`; default `last`). */
  readonly ops: readonly PrePassAggregate[];
  /**
   * True when a value keeps last-wins without the config saying so: a key written by several records then
   * loses values silently (two fee rows of one order), which the `prepass_key_collision` finding reports.
   */
  readonly collides: boolean;
}

/** A template ready to run. */
export interface TemplatePlan {
  readonly template: TemplateConfig;
  readonly inputVars: readonly PlannedVar[];
  /** The `$date` entry of input_schema, when declared. */
  readonly dateVar: PlannedVar | null;
  readonly rules: readonly PlannedRule[];
  /** True when some rule row overrides `$date` (then the date filter must wait for the overrides). */
  readonly dateOverridden: boolean;
  readonly prePass: readonly PlannedPrePass[];
  readonly outputHeaders: readonly string[];
  readonly outputVars: readonly string[];
  /** Global maps with the template's own maps merged over them. */
  readonly maps: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Every variable name the template mentions; rows keep their values in arrays indexed like this. */
  readonly slotNames: readonly string[];
  /** Slot of each output column's variable. */
  readonly outputSlots: readonly number[];
  /** Slot of `$date` and `$action` (always allocated). */
  readonly dateSlot: number;
  readonly actionSlot: number;
  /** Whole-expression `DATE_CONVERT` variables of input_schema, watched for a format that never matches. */
  readonly dateChecks: readonly DateCheck[];
  /**
   * Per input var: the column of a bare `$v: [Column]` whose value the main pass may copy from the input
   * line as is (see row_eval.ts), else null. `$date` and `$action` never are (the filter and the trace read
   * them), nor a slot that another input var also writes.
   */
  readonly verbatimColumns: readonly (string | null)[];
  /**
   * Columns the main pass's expressions read, apart from those copies; null when some expression reads
   * fields by position (`FIELDS(n)`), so every field may be read.
   */
  readonly readColumns: readonly string[] | null;
  /** True when some main-pass expression calls `RECORD_NUM()`. */
  readonly readsRecordNumber: boolean;
  /** Planned in the reference mode ({@link PlanOptions.reference}): no lazy fields, no copies at all. */
  readonly reference: boolean;
}

const DATE_VAR = "$date";
const ACTION_VAR = "$action";

/** Hands out one slot per distinct variable name. */
class Slots {
  readonly names: string[] = [];
  readonly #index = new Map<string, number>();
  of(name: string): number {
    let i = this.#index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.#index.set(name, i);
      this.names.push(name);
    }
    return i;
  }
}

/**
 * The fields each main-pass expression reads, by source, noted while compiling it (one parse for both);
 * kept only while planning.
 */
type ReadsBySource = Map<string, FieldReads>;

/** How a plan is compiled (see {@link PlanOptions}). */
interface Compiler {
  readonly fast: boolean;
  readonly reads: ReadsBySource | null;
}

function compileNoting(source: string, c: Compiler): CompiledExpr {
  if (c.reads === null) return c.fast ? compileExpression(source) : compileExpressionGeneral(source);
  const compiled = compileWithReads(source, c.fast);
  c.reads.set(source, compiled.reads);
  return compiled.expr;
}

function planVars(
  entries: readonly (readonly [string, string])[],
  slots: Slots,
  c: Compiler,
): PlannedVar[] {
  return entries.map(([name, source]) => ({
    name,
    slot: slots.of(name),
    source,
    expr: compileNoting(source, c),
  }));
}

/** Which input vars are bare column copies, and which columns everything else reads (see TemplatePlan). */
function planFieldReads(
  inputVars: readonly PlannedVar[],
  others: readonly string[],
  noted: ReadsBySource,
): { verbatimColumns: (string | null)[]; readColumns: string[] | null; readsRecordNumber: boolean } {
  const fieldReadsOf = (src: string) => noted.get(src) ?? fieldReads(src);
  const writers = new Map<number, number>();
  for (const v of inputVars) writers.set(v.slot, (writers.get(v.slot) ?? 0) + 1);
  const read = new Set<string>();
  let positional = false;
  let readsRecordNumber = false;
  const note = (src: string) => {
    const r = fieldReadsOf(src);
    positional ||= r.positional;
    readsRecordNumber ||= r.recordNumber;
    for (const c of r.columns) read.add(c);
  };
  const verbatimColumns = inputVars.map((v) => {
    const r = fieldReadsOf(v.source);
    if (r.column !== null && v.name !== DATE_VAR && v.name !== ACTION_VAR && writers.get(v.slot) === 1) {
      return r.column;
    }
    note(v.source);
    return null;
  });
  for (const src of others) note(src);
  return { verbatimColumns, readColumns: positional ? null : [...read], readsRecordNumber };
}

function skipSet(rows: readonly (readonly PlannedVar[])[], inputNames: ReadonlySet<string>): Set<string> {
  const skip = new Set<string>();
  if (rows.length === 0) return skip;
  for (const v of rows[0]) {
    if (!inputNames.has(v.name)) continue;
    if (rows.every((row) => row.some((o) => o.name === v.name))) skip.add(v.name);
  }
  return skip;
}

/** How {@link planTemplate} compiles. */
export interface PlanOptions {
  /**
   * The reference plan: every expression compiled without fast paths (no folding, no specialisation), no
   * bare-column copies, and every field read, so the CSV parser decodes all of them. Slow and plainly
   * bxp's semantics: the differential tests hold every fast path to it (`BXP_REFERENCE=1` in bxp-cli).
   */
  readonly reference?: boolean;
}

/** Compiles a template; throws `ExprError` when an expression does not compile. */
export function planTemplate(
  template: TemplateConfig,
  globalMaps: ReadonlyMap<string, ReadonlyMap<string, string>>,
  options: PlanOptions = {},
): TemplatePlan {
  const reference = options.reference === true;
  const slots = new Slots();
  const dateSlot = slots.of(DATE_VAR);
  const actionSlot = slots.of(ACTION_VAR);
  const noted: ReadsBySource = new Map();
  const main: Compiler = { fast: !reference, reads: noted };
  const inputVars = planVars(template.inputSchema, slots, main);
  const inputNames = new Set(inputVars.map((v) => v.name));
  const rules: PlannedRule[] = (template.rowRules ?? []).map((rule) => {
    const rows = rule.rows.map((row) => planVars(row, slots, main));
    return {
      whenSource: rule.when,
      when: compileNoting(rule.when, main),
      rows,
      skip: skipSet(rows, inputNames),
      plain: rows.length === 1 && rows[0].length === 0,
    };
  });
  const side: Compiler = { fast: !reference, reads: null };
  const prePass = template.prePass.map((block) => planPrePass(block, side));
  const dateChecks = planDateChecks(inputVars);
  const others: string[] = dateChecks.map((c) => c.input.source);
  for (const r of rules) {
    others.push(r.whenSource);
    for (const row of r.rows) for (const o of row) others.push(o.source);
  }
  const maps = new Map<string, ReadonlyMap<string, string>>(globalMaps);
  for (const [name, map] of template.maps) maps.set(name, map);
  return {
    template,
    inputVars,
    dateVar: inputVars.find((v) => v.name === DATE_VAR) ?? null,
    rules,
    dateOverridden: rules.some((r) => r.rows.some((row) => row.some((o) => o.name === DATE_VAR))),
    prePass,
    outputHeaders: template.outputSchema.map(([header]) => header),
    outputVars: template.outputSchema.map(([, v]) => v),
    maps,
    outputSlots: template.outputSchema.map(([, v]) => slots.of(v)),
    slotNames: slots.names,
    dateSlot,
    actionSlot,
    dateChecks,
    ...(reference
      ? { verbatimColumns: inputVars.map(() => null), readColumns: null, readsRecordNumber: true, reference }
      : template.fillDown.length > 0
      // Filled cells are not in the record's text: no verbatim copies, every field decoded.
      ? {
        ...planFieldReads(inputVars, others, noted),
        verbatimColumns: inputVars.map(() => null),
        readColumns: null,
        reference,
      }
      : { ...planFieldReads(inputVars, others, noted), reference }),
  };
}

function planPrePass(block: PrePassBlock, side: Compiler): PlannedPrePass {
  // A field named twice keeps its later word, as JSON5 keeps a repeated key's later value.
  const how = new Map(block.aggregate ?? []);
  return {
    name: block.name,
    whenSource: block.when,
    when: compileNoting(block.when, side),
    keySource: block.key,
    key: compileNoting(block.key, side),
    values: planVars(block.values, new Slots(), side),
    ops: block.values.map(([f]) => how.get(f) ?? "last"),
    collides: block.values.some(([f]) => !how.has(f)),
  };
}

/** Every expression source of the plan with where it sits, for the per-file unknown-field check. */
export function* planSources(plan: TemplatePlan): Generator<[where: string, source: string]> {
  for (const v of plan.inputVars) yield ["input_schema", v.source];
  for (const r of plan.rules) {
    yield ["row_rules.when", r.whenSource];
    for (const row of r.rows) for (const o of row) yield ["row_rules override", o.source];
  }
  for (const p of plan.prePass) {
    yield ["pre_pass.when", p.whenSource];
    yield ["pre_pass.key", p.keySource];
    for (const v of p.values) yield ["pre_pass.values", v.source];
  }
}
