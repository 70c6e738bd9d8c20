/**
 * The one argument check every catalog tool gets before its handler runs: the call's `arguments` against
 * the entry's `inputSchema` (unknown names with a did-you-mean, missing required ones, types down to
 * array items and map values, enums, integer ranges). Arguments come from a language model, so every
 * message names the argument and says what was expected, and echoed names are clipped.
 *
 * The checker understands the JSON Schema subset the catalog uses: `type` (one name or a list),
 * `properties`, `required`, `additionalProperties` (false or a schema), `items`, `enum`, `minimum`,
 * `maximum`. A top-level `null` counts as absent (bxp reads it so).
 *
 * @module
 */

import { closestName } from "../../config/similar.ts";
import type { JsonSchema } from "./schemas.ts";

/** Longest argument name or value quoted back in a message. */
const MAX_ECHO = 64;

/** How many unknown names one message lists. */
const MAX_UNKNOWN_LISTED = 5;

/** A checked call: the arguments to hand the tool (aliases folded into their names), or why not. */
export type CheckedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/**
 * Check `args` against `schema`. `aliases` maps an accepted old name to the argument it stands for (for
 * example `id` -> `template`); the alias is listed in the schema too, and folded into its target here.
 *
 * @example
 * ```ts
 * import { checkArguments } from "./arg_check.ts";
 * import assert from "node:assert/strict";
 * const schema = { type: "object", properties: { expr: { type: "string" } }, required: ["expr"] };
 * assert.deepEqual(
 *   checkArguments(schema, { expr: 5 }),
 *   { ok: false, message: "expected a string for 'expr', got number" },
 * );
 * // "unknown argument 'exp' (did you mean 'expr'?) ..."
 * assert.equal(checkArguments(schema, { exp: "1" }).ok, false);
 * ```
 */
export function checkArguments(
  schema: JsonSchema,
  args: Record<string, unknown> | null,
  aliases: Readonly<Record<string, string>> = {},
): CheckedArgs {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  // No prototype: an argument named "__proto__" stays an own (and so unknown) argument.
  const given: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(args ?? {})) {
    if (value !== null) given[name] = value;
  }
  const unknown = Object.keys(given).filter((name) => !Object.hasOwn(properties, name));
  if (unknown.length > 0 && schema.additionalProperties === false) {
    return { ok: false, message: unknownMessage(unknown, Object.keys(properties)) };
  }
  for (const [alias, target] of Object.entries(aliases)) {
    if (!Object.hasOwn(given, alias)) continue;
    if (Object.hasOwn(given, target) && given[target] !== given[alias]) {
      return { ok: false, message: `give '${target}' or its older name '${alias}', not both` };
    }
    given[target] = given[alias];
    delete given[alias];
  }
  for (const name of (schema.required ?? []) as string[]) {
    if (!Object.hasOwn(given, name)) return { ok: false, message: `missing '${name}'` };
  }
  for (const [name, value] of Object.entries(given)) {
    const problem = checkValue(properties[name] ?? {}, value, name);
    if (problem !== null) return { ok: false, message: problem };
  }
  return { ok: true, args: { ...given } };
}

function unknownMessage(unknown: string[], valid: string[]): string {
  const shown = unknown.slice(0, MAX_UNKNOWN_LISTED).map((name) => {
    const hint = name.length <= MAX_ECHO ? closestName(name, valid) : null;
    return `'${clip(name)}'${hint === null ? "" : ` (did you mean '${hint}'?)`}`;
  });
  const more = unknown.length > MAX_UNKNOWN_LISTED ? ` and ${unknown.length - MAX_UNKNOWN_LISTED} more` : "";
  const noun = unknown.length === 1 ? "argument" : "arguments";
  return `unknown ${noun} ${shown.join(", ")}${more}; this tool takes: ${valid.join(", ")}`;
}

/** What a value is, as JSON names it: string, number, boolean, array, object, null. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function matchesType(type: string, value: unknown): boolean {
  if (type === "integer") return Number.isSafeInteger(value);
  return kindOf(value) === type;
}

/** "a string", "an array of strings", "an object", ... for a schema. */
function describe(schema: JsonSchema): string {
  const types = typesOf(schema);
  if (types.length === 0) return "any value";
  return types.map((type) => {
    if (type === "array") {
      const items = schema.items as JsonSchema | undefined;
      const itemTypes = items === undefined ? [] : typesOf(items);
      return itemTypes.length === 1 ? `an array of ${itemTypes[0]}s` : "an array";
    }
    return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
  }).join(" or ");
}

function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

/**
 * Where a value sits in the arguments: an argument's name, or one step (an array index, a member name)
 * below another place. Spelled out only for a message, so checking a long array or a large map builds no
 * string per item.
 */
type Where = string | { readonly parent: Where; readonly step: number | string };

/** `rows[3]`, `maps.listings`, ... (member names clipped). */
function whereText(where: Where): string {
  if (typeof where === "string") return where;
  const parent = whereText(where.parent);
  return typeof where.step === "number" ? `${parent}[${where.step}]` : `${parent}.${clip(where.step)}`;
}

/** The first problem with `value` against `schema`, at `at`, or null. */
function checkValue(schema: JsonSchema, value: unknown, at: Where): string | null {
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((type) => matchesType(type, value))) {
    // A bare null inside a structure is its own kind; top-level nulls never reach here.
    return `expected ${describe(schema)} for '${whereText(at)}', got ${kindOf(value)}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    const valid = schema.enum.map((v) => JSON.stringify(v));
    const hint = typeof value === "string" && value.length <= MAX_ECHO
      ? closestName(value, schema.enum.filter((v): v is string => typeof v === "string"))
      : null;
    return `'${whereText(at)}' must be one of ${valid.join(", ")}, got ${quote(value)}${
      hint === null ? "" : ` (did you mean "${hint}"?)`
    }`;
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      return `'${whereText(at)}' must be at least ${schema.minimum}, got ${value}`;
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      return `'${whereText(at)}' must be at most ${schema.maximum}, got ${value}`;
    }
  }
  if (Array.isArray(value) && typeof schema.items === "object" && schema.items !== null) {
    const items = schema.items as JsonSchema;
    for (let i = 0; i < value.length; i++) {
      const problem = checkValue(items, value[i], { parent: at, step: i });
      if (problem !== null) return problem;
    }
  }
  if (kindOf(value) === "object") return checkMembers(schema, value as Record<string, unknown>, at);
  return null;
}

function checkMembers(schema: JsonSchema, value: Record<string, unknown>, at: Where): string | null {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const extra = schema.additionalProperties;
  for (const name of (schema.required ?? []) as string[]) {
    if (!Object.hasOwn(value, name)) return `missing '${whereText(at)}.${name}'`;
  }
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    const member = value[name];
    if (Object.hasOwn(properties, name)) {
      const problem = checkValue(properties[name], member, { parent: at, step: name });
      if (problem !== null) return problem;
    } else if (extra === false) {
      const inner = whereText({ parent: at, step: name });
      return `unknown member '${inner}'; '${whereText(at)}' takes: ${Object.keys(properties).join(", ")}`;
    } else if (typeof extra === "object" && extra !== null) {
      const problem = checkValue(extra as JsonSchema, member, { parent: at, step: name });
      if (problem !== null) return problem;
    }
  }
  return null;
}

function quote(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(clip(value));
  return kindOf(value) === "object" || Array.isArray(value) ? kindOf(value) : String(value);
}

function clip(text: string): string {
  return text.length <= MAX_ECHO ? text : `${text.slice(0, MAX_ECHO)}...`;
}
