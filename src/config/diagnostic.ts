/**
 * The diagnostic record every validation phase produces, and small helpers to build them.
 *
 * `path` is the dotted location in the config tree (`conversion_templates.sample.row_rules.0.when`), `""` for
 * the root. `line`/`col` locate a spot in the file (syntax errors, duplicate keys); `off`/`len` locate a token
 * inside an expression string (UTF-8 bytes). `code` is stable: `json5.*`, `config.*`, `fs.*` or
 * `expr.<ErrorName>` (see `DIAGNOSTIC_CODES` in `schema.ts`).
 * @module
 */

/** How serious a finding is; only `error` makes a config unusable. */
export type Severity = "error" | "warning" | "info";

/** One validation finding. */
export interface Diagnostic {
  severity: Severity;
  code: string;
  message: string;
  path: string;
  line?: number;
  col?: number;
  off?: number;
  len?: number;
  suggest?: string;
}

/** Join a base path and a suffix with a dot, skipping empty parts. */
export function joinPath(base: string, suffix: string): string {
  if (base === "") return suffix;
  if (suffix === "") return base;
  return `${base}.${suffix}`;
}

/** Dotted path of a template (`conversion_templates.<id>`). */
export function templatePath(id: string): string {
  return `conversion_templates.${id}`;
}

/**
 * True for the findings a conversion run counts as a warning (all of them together as one, exit status 2, as
 * bxp's run does): expression checks and dead config.
 */
export function countsAsRunWarning(d: Diagnostic): boolean {
  return d.severity === "warning" && (d.code.startsWith("expr.") || d.code.startsWith("config.unused"));
}

/** True when any diagnostic is an error. */
export function hasError(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/**
 * Render a diagnostic as one line for a terminal: `<label>: <message>` plus the place.
 *
 * @example
 * ```ts
 * import { formatDiagnostic } from "./diagnostic.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   formatDiagnostic("cfg.json", { severity: "error", code: "config.missing_field", path: "conversion_templates.a.output_schema", message: "output_schema is required" }),
 *   "cfg.json: error: output_schema is required (at conversion_templates.a.output_schema)",
 * );
 * ```
 */
export function formatDiagnostic(label: string, d: Diagnostic): string {
  const where: string[] = [];
  if (d.line !== undefined) where.push(`line ${d.line}${d.col !== undefined ? `, col ${d.col}` : ""}`);
  if (d.path !== "") where.push(`at ${d.path}`);
  const place = where.length ? ` (${where.join(", ")})` : "";
  const hint = d.suggest && !d.message.includes(d.suggest) ? ` — ${d.suggest}` : "";
  return `${label}: ${d.severity}: ${d.message}${hint}${place}`;
}

/**
 * The line bxp-cli prints for a config finding (the CLI adds `---` separators and the
 * `=== overall summary ===` block itself):
 *
 * - syntax / duplicate key: `# <file>:<line>:<col>: JSON error (line <line>, pos <col>) — <message>`
 * - template load or structure error: `# <file>: config error: template '<id>': <message>`
 * - anything else: `error: <message>` / `warning: <message>` / `<message>` (info)
 */
export function bxpCliLine(label: string, d: Diagnostic): string {
  if (d.code.startsWith("json5.") && d.line !== undefined) {
    return `# ${label}:${d.line}:${d.col}: JSON error (line ${d.line}, pos ${d.col}) — ${d.message}`;
  }
  const template = /^conversion_templates\.([^.]+)(\.|$)/.exec(d.path)?.[1];
  const structural = d.severity === "error" && template !== undefined && d.code.startsWith("config.") &&
    d.code !== "config.unknown_key";
  if (structural) return `# ${label}: config error: template '${template}': ${d.message}`;
  if (d.code === "config.no_templates") return `error: ${label} defines no conversion_templates`;
  if (d.severity === "error") return `error: ${d.message}`;
  if (d.severity === "warning") return `warning: ${d.message}`;
  return d.message;
}
