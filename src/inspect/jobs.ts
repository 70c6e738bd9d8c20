/**
 * The work of the stateless evaluation tools (bxp_validate, bxp_validate_expr, bxp_eval, bxp_eval_batch,
 * bxp_eval_trace) as plain, cloneable jobs and results, so an adapter can run one on a worker thread that a
 * time limit or a cancellation can terminate (bxp-mcp's `tools/eval_pool.ts`), or on its own thread when
 * it is cheap by construction (`inline_jobs.ts`).
 *
 * @module
 */

import {
  EVAL_OPTION_NAMES,
  evalBatch,
  evalExpr,
  type EvalOptions,
  evalTrace,
  validateExprJson,
} from "./eval.ts";

import { annotateOutcome } from "../config/mod.ts";
import { outcomeDiagnostics, validateConfig } from "../config/mod.ts";
import type { Diagnostic } from "../config/mod.ts";
import { langExprTools } from "../config/mod.ts";

/** Optional named maps, lookup tables and the template's dialect for an expression (bxp_eval_batch's shapes). */
export type EvalExtras = EvalOptions;

/** One unit of work. */
export type EvalJob =
  | { kind: "validate_expr"; expr: string }
  | ({ kind: "eval"; expr: string; headers: string[] | null; fields: string[] | null } & EvalExtras)
  | ({ kind: "eval_trace"; expr: string; headers: string[] | null; fields: string[] | null } & EvalExtras)
  | { kind: "eval_batch"; request: unknown }
  | { kind: "validate"; text: string; label: string; configDir?: string };

/** One flat finding of bxp_validate's verdict. */
export interface Finding {
  severity: "error" | "warning" | "info";
  code: string;
  message: string;
  /** Dotted config path, "" for the root. */
  path: string;
  line?: number;
  column?: number;
  /** Byte span inside an expression string. */
  off?: number;
  len?: number;
  suggest?: string;
}

/** bxp_validate's verdict (the annotated config is added beside it by the caller). */
export interface Verdict {
  ok: boolean;
  errors: number;
  warnings: number;
  infos: number;
  findings: Finding[];
}

/** What a job answers: the tool text, whether it is a failure, and bxp_validate's verdict. */
export interface EvalOutcome {
  text: string;
  isError?: boolean;
  verdict?: Verdict;
  /** `text` is known to be canonical JSON (what `JSON.stringify` prints for its parse): spliced as it is. */
  canonical?: boolean;
}

/** The options of a job, or null when it names none (the plain bxp path). */
function optionsOf(job: EvalExtras): EvalOptions | null {
  const options: EvalOptions = {};
  let any = false;
  for (const name of EVAL_OPTION_NAMES) {
    if (job[name] === undefined) continue;
    options[name] = job[name];
    any = true;
  }
  return any ? options : null;
}

/** A malformed option is a tool failure with bxp's wording, not a crash. */
function withOptions(run: () => EvalOutcome): EvalOutcome {
  try {
    return run();
  } catch (error) {
    if (error instanceof TypeError) return { text: `error: ${error.message}`, isError: true };
    throw error;
  }
}

/**
 * Run one job.
 *
 * @example
 * ```ts
 * import { runEvalJob } from "./jobs.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   runEvalJob({ kind: "eval", expr: "1 + 2", headers: null, fields: null }).text,
 *   '{"ok":true,"value":"3"}',
 * );
 * ```
 */
export function runEvalJob(job: EvalJob): EvalOutcome {
  switch (job.kind) {
    case "validate_expr":
      return { text: validateExprJson(job.expr) };
    case "eval":
      return withOptions(() => ({ text: evalExpr(job.expr, job.headers, job.fields, optionsOf(job)) }));
    case "eval_trace":
      return withOptions(() => {
        const traced = evalTrace(job.expr, job.headers, job.fields, optionsOf(job));
        // The error sentinel is part of the answer: the trace itself was produced.
        return { text: traced.errorJson === null ? traced.lines : `${traced.lines}${traced.errorJson}\n` };
      });
    case "eval_batch": {
      const result = evalBatch(job.request);
      return result.errorMessage === undefined
        ? { text: result.json }
        : { text: `error: ${result.errorMessage}`, isError: true };
    }
    case "validate":
      return validate(job.text, job.label, job.configDir);
  }
}

/**
 * bxp_validate: what `annotateConfig` answers, from one validation pass that also gives the verdict. With
 * `configDir` (a config read from under the project root) keys leading outside the root are warned about.
 */
function validate(text: string, _label: string, configDir: string | undefined): EvalOutcome {
  const outcome = validateConfig(text, {
    exprTools: langExprTools,
    ...(configDir === undefined ? {} : { configDir }),
  });
  const annotated = annotateOutcome(outcome);
  const diagnostics: Diagnostic[] = outcome.loadAbort === null ? outcomeDiagnostics(outcome) : [
    { severity: "error", code: "config.load_failed", message: outcome.loadAbort, path: "" },
    ...outcome.diagnostics,
  ];
  const findings = diagnostics.map(toFinding);
  const count = (severity: Finding["severity"]) => findings.filter((f) => f.severity === severity).length;
  return {
    text: annotated.json,
    canonical: annotated.canonical,
    verdict: {
      ok: annotated.exitCode === 0,
      errors: count("error"),
      warnings: count("warning"),
      infos: count("info"),
      findings,
    },
  };
}

function toFinding(d: Diagnostic): Finding {
  const finding: Finding = { severity: d.severity, code: d.code, message: d.message, path: d.path };
  if (d.line !== undefined) finding.line = d.line;
  if (d.col !== undefined) finding.column = d.col;
  if (d.off !== undefined) finding.off = d.off;
  if (d.len !== undefined) finding.len = d.len;
  if (d.suggest !== undefined) finding.suggest = d.suggest;
  return finding;
}
