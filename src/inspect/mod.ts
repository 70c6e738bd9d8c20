/**
 * The stateless inspect API: pure functions whose results are the bxp-mcp tool results.
 *
 * | tool | function |
 * | --- | --- |
 * | bxp_validate | {@link annotateConfig} / {@link annotateConfigAsync} |
 * | bxp_validate_expr | {@link validateExprJson} |
 * | bxp_eval | {@link evalExpr} |
 * | bxp_eval_batch | {@link evalBatch} |
 * | bxp_eval_trace | {@link evalTrace} |
 * | bxp_docs | {@link docsAnswer} (bxp's whole text: {@link docsJson}) |
 * | bxp_list_templates / bxp_fetch_template | {@link listTemplates} / {@link fetchTemplate} |
 * | (bxp_simulate staging) | {@link templateIo} |
 *
 * The evaluation tools' work as cloneable jobs ({@link runEvalJob}), and the test for a job cheap enough
 * to answer without a worker's time limit ({@link runInline}), serve an adapter that runs them on threads.
 * @module
 */
// Entry points besides this face (other parts may import these alone): bxp-mcp's session worker lists tools, docs sections and templates before it loads
// the language.
// @entry ./templates.ts
// @entry ./docs_sections.ts
// @entry ./row_argument.ts

export {
  annotateConfig,
  annotateConfigAsync,
  type AnnotateOptions,
  type AnnotateResult,
  outsideRootFindings,
} from "./annotate.ts";
export type { DirProbe, FsProbe } from "./annotate.ts";
export { DOCS_SECTIONS, docsAnswer, docsJson, type DocsSection, GUI_ONLY_FIELDS } from "./docs.ts";
export {
  type BatchResult,
  EVAL_OPTION_NAMES,
  evalBatch,
  evalExpr,
  type EvalOptions,
  type EvalTables,
  evalTables,
  evalTrace,
  MAX_BATCH_RESULT_CHARS,
  MAX_BATCH_WORK,
  MAX_TRACE_CHARS,
  type TraceResult,
  validateExprJson,
} from "./eval.ts";
export { INLINE_MAX_CHARS, INLINE_SPEND_LIMIT, jobChars, runInline } from "./inline_jobs.ts";
export {
  type EvalExtras,
  type EvalJob,
  type EvalOutcome,
  type Finding,
  runEvalJob,
  type Verdict,
} from "./jobs.ts";
export { rowArgument } from "./row_argument.ts";
export { type TemplateSettings, templateSettings } from "./template_settings.ts";
export {
  fetchTemplate,
  listTemplates,
  type TemplateIo,
  templateIo,
  type TemplateResult,
} from "./templates.ts";
export { rootErrorJson } from "./templates.ts";
