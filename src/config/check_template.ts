/**
 * Per-template structural rules checked after loading (bxp's `validateCollect`): empty required strings,
 * `$variable` naming, output columns that nothing fills, separator clashes, empty pre_pass parts.
 *
 * These findings are "semantic errors": bxp's annotated output renders them as
 * `<field>: '<value>' --> <message>`, which `annotate.ts` reproduces.
 * @module
 */

import { type Diagnostic, joinPath, templatePath } from "./diagnostic.ts";
import { LEGACY_PRE_PASS } from "./load.ts";
import type { TemplateConfig } from "./types.ts";

/**
 * True when an input file name can map to itself as output name. Patterns are suffixes: an input `<stem><in>`
 * is written to `<stem><out>`, which is the same name exactly when the suffixes are equal; compared without
 * case because Windows and macOS file systems would open the same file for `.csv` and `.CSV`.
 *
 * @example
 * ```ts
 * import { outputOverwritesInput } from "./check_template.ts";
 * import assert from "node:assert/strict";
 * assert.equal(outputOverwritesInput(".csv", ".csv"), true);
 * // a re-read, which the run's input scan skips
 * assert.equal(outputOverwritesInput(".csv", ".clean.csv"), false);
 * ```
 */
export function outputOverwritesInput(patternIn: string, patternOut: string): boolean {
  return patternIn !== "" && patternOut !== "" && patternIn.toLowerCase() === patternOut.toLowerCase();
}

function suggestOutSuffix(patternIn: string): string {
  return patternIn.endsWith("x") ? patternIn + "_out" : patternIn + "x";
}

/**
 * Why a `zip_input.path_separator` is unsafe on some platform, or null when it is safe: it replaces `/` in
 * member paths, so a separator holding a path separator, a drive colon or NUL would rebuild a path.
 */
export function unsafeSeparatorReason(separator: string): string | null {
  if (separator.includes("/") || separator.includes("\\")) return "contains a path separator ('/' or '\\')";
  if (separator.includes(":")) return "contains ':' (a Windows drive or stream separator)";
  if (separator.includes("\0")) return "contains a NUL byte";
  return null;
}

/** Collect every structural error of one loaded template. */
export function checkTemplate(t: TemplateConfig): Diagnostic[] {
  const out: Diagnostic[] = [];
  const base = templatePath(t.id);
  const err = (code: string, suffix: string, message: string) =>
    out.push({ severity: "error", code, message, path: joinPath(base, suffix) });

  if (t.dataDirs.length <= 1) {
    if (t.dataDir === "") err("config.empty_value", "data_dir", "data_dir must not be empty");
  } else {
    t.dataDirs.forEach((dir, i) => {
      if (dir === "") err("config.empty_value", `data_dir.${i}`, "data_dir folder must not be empty");
      else if (t.dataDirs.indexOf(dir) < i) {
        err("config.invalid_value", `data_dir.${i}`, `data_dir lists '${dir}' twice`);
      }
    });
  }
  if (t.filePatternIn === "") {
    err(
      "config.empty_value",
      "file_pattern_in",
      'file_pattern_in must not be empty (use ".csv" to process all CSV files)',
    );
  }
  if (t.filePatternOut === "") {
    err("config.empty_value", "file_pattern_out", "file_pattern_out must not be empty");
  } else if (outputOverwritesInput(t.filePatternIn, t.filePatternOut)) {
    err(
      "config.output_overwrites_input",
      "file_pattern_out",
      `file_pattern_out '${t.filePatternOut}' names the same file as file_pattern_in ` +
        `'${t.filePatternIn}' (each output would overwrite its own input${
          t.filePatternOut === t.filePatternIn ? "" : " on a case-insensitive file system"
        }) — choose a different output suffix, e.g. '${suggestOutSuffix(t.filePatternIn)}'`,
    );
  }
  if (t.zipInput !== null && t.zipInput.dirMode === "keep_path") {
    const why = unsafeSeparatorReason(t.zipInput.pathSeparator);
    if (why !== null) {
      err(
        "config.unsafe_path_separator",
        "zip_input.path_separator",
        `zip_input.path_separator '${
          JSON.stringify(t.zipInput.pathSeparator).slice(1, -1)
        }' ${why}: unpacked members could land outside data_dir — use '_' or '-'`,
      );
    }
  }
  if (t.inputSchema.length === 0) err("config.empty_value", "input_schema", "input_schema must not be empty");
  for (const [name] of t.inputSchema) {
    if (!name.startsWith("$")) {
      err("config.bad_variable", "input_schema", `input_schema key '${name}' must start with '$'`);
    }
  }
  if (t.outputSchema.length === 0) {
    err("config.empty_value", "output_schema", "output_schema must not be empty");
  }
  for (const [header, variable] of t.outputSchema) {
    if (header === "") {
      err("config.empty_value", "output_schema", "output_schema header must not be empty");
    } else if (!variable.startsWith("$")) {
      err(
        "config.bad_variable",
        `output_schema.${header}`,
        `output_schema variable '${variable}' must start with '$'`,
      );
    }
  }
  const declared = new Set(t.inputSchema.map(([name]) => name));
  if (t.dateFilterFromFilename && !declared.has("$date")) {
    err(
      "config.requires",
      "date_filter_from_filename",
      "date_filter_from_filename requires '$date' in input_schema",
    );
  }
  if (t.rowRulesDebugMissing && t.rowRules === null) {
    err(
      "config.requires",
      "row_rules_debug_missing",
      "row_rules_debug_missing is true but row_rules is not defined",
    );
  }
  (t.rowRules ?? []).forEach((rule, i) => {
    if (rule.when === "") {
      err("config.empty_value", `row_rules.${i}.when`, "row_rules entry has empty 'when'");
    }
  });
  // A column is filled when input_schema declares its variable, or when every emitted row sets it.
  for (const [header, variable] of t.outputSchema) {
    if (declared.has(variable)) continue;
    const missing = (t.rowRules ?? []).some((rule) =>
      rule.rows.some((row) => !row.some(([k]) => k === variable))
    );
    if (missing) {
      err(
        "config.unset_variable",
        `output_schema.${header}`,
        `'${variable}' is not in input_schema and not set by all row_rules rows`,
      );
    }
  }
  if (t.csvDelimiterIn === t.csvDecimalSeparatorIn) {
    err(
      "config.same_separators",
      "csv_delimiter_in",
      "csv_delimiter_in and csv_decimal_separator_in must be different characters",
    );
  }
  t.fillDown.forEach((name, i) => {
    if (name === "") err("config.empty_value", `fill_down.${i}`, "fill_down column name must not be empty");
  });
  if (t.fillDown.length > 0 && t.fileTypeIn === "csv" && t.csvHeaderLine === 0) {
    err(
      "config.requires",
      "fill_down",
      "fill_down names header columns, but csv_header_line is 0 (the file has no header)",
    );
  }
  for (const block of t.prePass) {
    // The legacy block's synthetic name never appears in the file, so its paths skip it.
    const prefix = block.name === LEGACY_PRE_PASS ? "pre_pass" : `pre_pass.${block.name}`;
    if (block.when === "") err("config.empty_value", `${prefix}.when`, "pre_pass.when must not be empty");
    if (block.key === "") err("config.empty_value", `${prefix}.key`, "pre_pass.key must not be empty");
    if (block.values.length === 0) {
      err("config.empty_value", `${prefix}.values`, "pre_pass.values must not be empty");
    }
    const fields = new Set(block.values.map(([f]) => f));
    for (const [field] of block.aggregate ?? []) {
      if (fields.has(field)) continue;
      err(
        "config.invalid_aggregate",
        `${prefix}.aggregate.${field}`,
        `${prefix}.aggregate names '${field}', which is not one of its values (${
          [...fields].map((f) => `'${f}'`).join(", ") || "none"
        })`,
      );
    }
  }
  return out;
}
