/**
 * The config, the public face of `src/config`: the JSON5 reader that keeps positions, the typed model a run
 * uses, and the annotated validation (keys, expressions, cross checks, confinement) that bxp-cli's
 * `--validate`, bxp-mcp's `bxp_validate` and the playground share. Everything else in this folder is private
 * to it; other areas import from here (`tests/architecture_test.ts` checks it).
 *
 * @example
 * ```ts
 * import { loadConfig } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const text = `{conversion_templates: {t: {data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".o",
 *   input_schema: {$v: "[h]"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {v: "$v"}}}}`;
 * const loaded = loadConfig(text, "c.json");
 * assert.equal(loaded.config?.templates[0].id, "t");
 * assert.equal(loadConfig("{conversion_templates: 1}", "c.json").config, null);
 * ```
 * @module
 */
// Entry points besides this face (other parts may import these alone): bxp-mcp's session worker reads and writes JSON5 and suggests names before it loads
// the language, which validation needs.
// @entry ./json5.ts
// @entry ./emit.ts
// @entry ./similar.ts

export { annotateOutcome, type AnnotateResult } from "./annotate.ts";
export { OUTSIDE_ROOT_CODE } from "./check_confine.ts";
export type { DirProbe, FsProbe } from "./check_cross.ts";
export type { Diagnostic } from "./diagnostic.ts";
export { emitJson, fromNode, fromPlain, type OutValue, zigJsonString } from "./emit.ts";
export { CONFIG_MAX_BYTES, getMember, type JsonNode, parseJson5, type SourcePos } from "./json5.ts";
export { configJsonSchemaText } from "./json_schema.ts";
export { langExprTools } from "./lang_tools.ts";
export { loadTemplates } from "./load.ts";
export {
  bxpCliLine,
  type BxpConfig,
  countsAsRunWarning,
  loadConfig,
  loadConfigChecked,
  type NamedMaps,
  type PrePassAggregate,
  type PrePassBlock,
  type TemplateConfig,
} from "./model.ts";
export { CONFIG_SCHEMA, docFields } from "./schema.ts";
export { closestName } from "./similar.ts";
export { outcomeDiagnostics, validateConfig, validateConfigAsync } from "./validate.ts";
