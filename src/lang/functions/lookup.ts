/**
 * Mapping functions: REMAP (whole value), REPLACE (substrings), LOOKUP (pre_pass tables).
 *
 * @module
 */

import { charge, MAX_VALUE_CHARS, resultTooLarge } from "../budget.ts";
import { ExprError } from "../errors.ts";
import type { EagerImpl } from "../spec.ts";
import { requireString } from "./shared.ts";

/** REMAP(s, 'map') / REMAP(s, k1, v1, ...): the value of the key equal to s, else s. */
export const remapImpl: EagerImpl = (args, ctx) => {
  const s = args[0] as string;
  if (args.length === 2) {
    const map = ctx.maps.get(args[1] as string);
    return map?.get(s) ?? s;
  }
  for (let k = 1; k + 1 < args.length; k += 2) {
    if (s === requireString(args[k], "REMAP key")) return requireString(args[k + 1], "REMAP value");
  }
  return s;
};

/** `ResultTooLarge` unless a text of `chars` characters fits one value. */
function fits(chars: number): void {
  if (chars > MAX_VALUE_CHARS) throw resultTooLarge("REPLACE", chars);
}

/** One left-to-right pass: at each position the first pair whose non-empty `from` matches wins. */
function replaceScan(s: string, froms: readonly string[], tos: readonly string[]): string {
  // The scan tries every search text at every position: that is its cost, paid before scanning.
  charge(s.length * froms.length);
  let out = "";
  let i = 0;
  let copied = 0;
  scan: while (i < s.length) {
    for (let k = 0; k < froms.length; k++) {
      const from = froms[k];
      if (from.length > 0 && s.startsWith(from, i)) {
        // Grown text is checked as it grows, so a multiplying REPLACE stops at the limit.
        fits(out.length + (i - copied) + tos[k].length + (s.length - i - from.length));
        out += s.slice(copied, i) + tos[k];
        i += from.length;
        copied = i;
        continue scan;
      }
    }
    i++;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** Every non-overlapping `from` (non-empty), left to right, replaced by `to`; `s` itself when none occurs. */
function replaceAllText(s: string, from: string, to: string): string {
  let at = s.indexOf(from);
  if (at < 0) return s;
  let out = "";
  let copied = 0;
  while (at >= 0) {
    fits(out.length + (at - copied) + to.length + (s.length - at - from.length));
    out += s.slice(copied, at) + to;
    copied = at + from.length;
    at = s.indexOf(from, copied);
  }
  return out + s.slice(copied);
}

/** REPLACE(s, 'map') / REPLACE(s, from, to, ...). */
export const replaceImpl: EagerImpl = (args, ctx) => {
  const s = args[0] as string;
  if (args.length === 2) {
    const map = ctx.maps.get(args[1] as string);
    if (map === undefined) return s;
    return replaceScan(s, [...map.keys()], [...map.values()]);
  }
  if (args.length === 3) {
    const from = args[1] as string;
    return from.length === 0 ? s : replaceAllText(s, from, args[2] as string);
  }
  const froms: string[] = [];
  const tos: string[] = [];
  for (let k = 1; k + 1 < args.length; k += 2) {
    froms.push(requireString(args[k], "REPLACE search text"));
    tos.push(requireString(args[k + 1], "REPLACE replacement"));
  }
  return replaceScan(s, froms, tos);
};

/** Name of the table a 2-argument LOOKUP reads: the only block, or the legacy `_default`. */
function implicitBlock(tables: ReadonlyMap<string, unknown>): string {
  if (tables.size === 1) return tables.keys().next().value as string;
  if (tables.has("_default")) return "_default";
  throw new ExprError(
    "LookupRequiresName",
    "LOOKUP needs the pre_pass name as first argument when several pre_pass blocks are defined",
  );
}

/** LOOKUP([name,] key, field): a pre_pass value, "" when absent or without tables. */
export const lookupImpl: EagerImpl = (args, ctx) => {
  const tables = ctx.lookups;
  if (tables === null) return "";
  const named = args.length === 3;
  const block = named ? requireString(args[0], "LOOKUP name") : implicitBlock(tables);
  const key = requireString(args[named ? 1 : 0], "LOOKUP key");
  const field = requireString(args[named ? 2 : 1], "LOOKUP field");
  return tables.get(block)?.get(key)?.get(field) ?? "";
};
