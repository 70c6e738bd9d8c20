/**
 * Runs bxp's validation phases over config text, in bxp's order:
 *
 * - A  parse (JSON5 syntax with line/col; size and depth caps) and basic structure;
 * - C  duplicate keys (the first one stops loading, as in bxp);
 * - B/D loading: hard per-template errors stop loading, wrong-type values warn and fall back;
 * - B  per-template structural errors (`check_template.ts`);
 * - G  expression checks and G8 unused declarations (`check_exprs.ts`);
 * - E  templates reading the same files; G7 unknown keys; with `configDir`, paths leaving the project root;
 * - F  filesystem checks, only in {@link validateConfigAsync} when asked.
 *
 * The outcome keeps the groups apart because the annotated output renders them differently.
 * @module
 */

import { checkConfinement } from "./check_confine.ts";
import { checkFilesystem, checkPatternCollisions, type FsProbe } from "./check_cross.ts";
import { checkExpressions, checkUnused, type ExprTools } from "./check_exprs.ts";
import { checkUnknownKeys } from "./check_keys.ts";
import { checkTemplate } from "./check_template.ts";
import type { Diagnostic } from "./diagnostic.ts";
import { type JsonNode, parseJson5 } from "./json5.ts";
import { type LoadAbort, type LoadOutcome, loadTemplates } from "./load.ts";

/** Everything validation found, grouped the way the annotated output needs it. */
export interface ValidationOutcome {
  /** The parsed tree; null when the text is not valid JSON5. */
  root: JsonNode | null;
  /** The syntax (or size/depth) error, when the text could not be read. */
  parseError: Diagnostic | null;
  /** Why loading stopped early (bxp's error name), or null. */
  loadAbort: LoadAbort | null;
  /** True when the config loaded but defines no template. */
  noTemplates: boolean;
  /** Structural per-template errors (rendered `field: 'value' --> message` in annotations). */
  semantic: Diagnostic[];
  /** All other findings, in the order bxp reports them. */
  diagnostics: Diagnostic[];
  /** The loaded maps and templates (partial when loading stopped). */
  loaded: LoadOutcome | null;
}

/** Options for validation. Without `exprTools` the expression phases (G, G8) are skipped. */
export interface ValidateOptions {
  exprTools?: ExprTools;
  /**
   * The config file's folder relative to a project root ("" for the root): data_dir and file-name keys
   * that would lead a run outside that root are then warned about (`config.path_outside_root`).
   */
  configDir?: string;
}

/** Options for {@link validateConfigAsync}: phase F runs when `fs` is given and `checkFsMs` > 0. */
export interface ValidateAsyncOptions extends ValidateOptions {
  fs?: FsProbe;
  checkFsMs?: number;
}

function emptyOutcome(): ValidationOutcome {
  return {
    root: null,
    parseError: null,
    loadAbort: null,
    noTemplates: false,
    semantic: [],
    diagnostics: [],
    loaded: null,
  };
}

/** Validate config text without touching the filesystem. */
export function validateConfig(text: string, opts: ValidateOptions = {}): ValidationOutcome {
  const outcome = emptyOutcome();
  const parsed = parseJson5(text);
  if (parsed.error) {
    const e = parsed.error;
    outcome.parseError = {
      severity: "error",
      code: e.code,
      message: e.message,
      path: "",
      line: e.line,
      col: e.col,
    };
    return outcome;
  }
  const root = parsed.value as JsonNode;
  outcome.root = root;
  if (parsed.duplicates.length > 0) {
    const dup = parsed.duplicates[0];
    outcome.diagnostics.push({
      severity: "error",
      code: "json5.duplicate_key",
      message: `duplicate key '${dup.key}' — remove or rename the repeated key`,
      path: "",
      line: dup.pos.line,
      col: dup.pos.col,
    });
    outcome.loadAbort = "InvalidConfig";
    return outcome;
  }
  const diags = outcome.diagnostics;
  const loaded = loadTemplates(root, diags);
  outcome.loaded = loaded;
  if (loaded.abort) {
    outcome.loadAbort = loaded.abort;
    return outcome;
  }
  const tools = opts.exprTools;
  for (const { config } of loaded.templates) {
    outcome.semantic.push(...checkTemplate(config));
    if (tools) {
      diags.push(...checkExpressions(config, loaded.maps, tools));
      diags.push(...checkUnused(config, tools));
    }
  }
  const templates = loaded.templates.map((t) => t.config);
  diags.push(...checkPatternCollisions(templates));
  diags.push(...checkUnknownKeys(root));
  if (opts.configDir !== undefined) diags.push(...checkConfinement(templates, opts.configDir));
  outcome.noTemplates = templates.length === 0;
  return outcome;
}

/** {@link validateConfig} plus phase F (filesystem) when `fs` and a positive `checkFsMs` are given. */
export async function validateConfigAsync(
  text: string,
  opts: ValidateAsyncOptions = {},
): Promise<ValidationOutcome> {
  const outcome = validateConfig(text, opts);
  if (
    opts.fs && (opts.checkFsMs ?? 0) > 0 && outcome.loaded && !outcome.loadAbort &&
    outcome.parseError === null
  ) {
    const templates = outcome.loaded.templates.map((t) => t.config);
    outcome.diagnostics.push(...await checkFilesystem(templates, opts.fs, opts.checkFsMs ?? 0));
  }
  return outcome;
}

/** True when the outcome makes the config unusable. */
export function outcomeHasError(o: ValidationOutcome): boolean {
  return o.parseError !== null || o.loadAbort !== null || o.noTemplates || o.semantic.length > 0 ||
    o.diagnostics.some((d) => d.severity === "error");
}

/** Flatten an outcome into one diagnostic list, in annotation order (root findings first). */
export function outcomeDiagnostics(o: ValidationOutcome): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (o.parseError) out.push(o.parseError);
  if (o.noTemplates) {
    out.push({
      severity: "error",
      code: "config.no_templates",
      message: "no conversion_templates defined",
      path: "",
    });
  }
  out.push(...o.semantic, ...o.diagnostics);
  return out;
}
