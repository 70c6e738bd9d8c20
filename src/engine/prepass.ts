/**
 * pre_pass: the first pass over a file that fills the lookup tables LOOKUP reads in the main pass.
 * Later rows overwrite earlier ones for the same block, key and field.
 *
 * @example
 * ```ts ignore
 * const pp = new PrePassCollector(plan, ctx, trace, debug);
 * pp.evalRecord(fields, recordNum);
 * pp.tables; // block -> key -> field -> value
 * ```
 * @module
 */

import { type EvalContext, ExprError, type LookupTables } from "../lang/mod.ts";
import type { TemplatePlan } from "./plan.ts";
import type { TraceSink } from "./sinks.ts";

function describe(err: unknown): string {
  if (err instanceof ExprError) return err.error;
  throw err;
}

/** Collects pre_pass tables record by record. */
export class PrePassCollector {
  /** The tables filled so far. */
  readonly tables: LookupTables = new Map();
  readonly #plan: TemplatePlan;
  readonly #ctx: EvalContext;
  readonly #trace: TraceSink;
  readonly #debug: ((text: string) => void) | null;

  constructor(
    plan: TemplatePlan,
    ctx: EvalContext,
    trace: TraceSink,
    debug: ((text: string) => void) | null,
  ) {
    this.#plan = plan;
    this.#ctx = ctx;
    this.#trace = trace;
    this.#debug = debug;
    for (const block of plan.prePass) this.tables.set(block.name, new Map());
  }

  /** Runs every block against one record. Expression errors skip the block (or field) silently. */
  evalRecord(fields: readonly string[], recordNum: number): void {
    const ctx = this.#ctx;
    ctx.fields = fields;
    ctx.recordNum = recordNum;
    for (const block of this.#plan.prePass) {
      let stage = "when";
      let source = block.whenSource;
      try {
        if (!block.when.evaluateBool(ctx)) continue;
        stage = "key";
        source = block.keySource;
        const key = block.key.evaluate(ctx);
        if (key === "") continue;
        const table = this.tables.get(block.name)!;
        let entry = table.get(key);
        for (const v of block.values) {
          let value: string;
          try {
            value = v.expr.evaluate(ctx);
          } catch (err) {
            this.#debug?.(
              `[pre_pass ${block.name} error] values.${v.name} = "${v.source}": ${describe(err)}\n`,
            );
            continue;
          }
          if (entry === undefined) {
            entry = new Map();
            table.set(key, entry);
          }
          entry.set(v.name, value);
          this.#trace.prepassEntry(block.name, key, v.name, value);
        }
      } catch (err) {
        this.#debug?.(`[pre_pass ${block.name} error] ${stage} = "${source}": ${describe(err)}\n`);
      }
    }
  }
}
