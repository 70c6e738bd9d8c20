/**
 * What a staged config may make bxp-cli write. bxp-cli runs outside this process's Deno sandbox, and it
 * names its outputs from the config: `<input stem><file_pattern_out>` and, with `combined_output`,
 * `1-<template id>-combined<file_pattern_out>`, joined to the data folder and normalised. A
 * `file_pattern_out` such as `/../../../x` or a template id holding a separator would therefore put a
 * file outside the scratch workspace. These checks refuse such a template before anything is staged.
 *
 * @module
 */

import { getMember, parseJson5 } from "../../config/json5.ts";

/** Whether `text` can only ever be part of one file name: no separator, no `..`, no drive colon, no NUL. */
export function isPlainNamePart(text: string): boolean {
  return !/[/\\:\0]/.test(text) && !text.includes("..");
}

/**
 * The refusal for a template whose output names could leave the data folder, or null when they cannot.
 * Config text that does not parse, or a missing template, is left to the normal simulate answers.
 *
 * @example
 * ```ts
 * import { outputNameEscape } from "./staged_config.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   outputNameEscape('{conversion_templates:{t:{file_pattern_out:"/../../x"}}}', "t"),
 *   { error: "file_pattern_out must be a plain filename suffix (no path separators or '..')", detail: "/../../x" },
 * );
 * ```
 */
export function outputNameEscape(config: string, template: string): { error: string; detail: string } | null {
  if (!isPlainNamePart(template)) {
    return {
      error: "template id must not contain path separators, ':' or '..' to be simulated",
      detail: template,
    };
  }
  const parsed = parseJson5(config);
  if (parsed.value === null) return null;
  const node = getMember(getMember(parsed.value, "conversion_templates"), template);
  const out = getMember(node, "file_pattern_out");
  if (out?.kind === "string" && !isPlainNamePart(out.value)) {
    return {
      error: "file_pattern_out must be a plain filename suffix (no path separators or '..')",
      detail: out.value,
    };
  }
  return null;
}
