/**
 * The annotated config: the config re-emitted as minified JSON (comments dropped) with `$err_N`, `$warn_N`
 * and `$info_N` markers inserted just before the key each finding is about.
 *
 * Placement follows bxp: a finding at `a.b.field` goes into the object at `a.b`, right before `field`
 * (array segments are indexes); when `field` is absent the marker is appended to that object; a path whose
 * parent cannot be found falls back to the root. One counter numbers all markers, across severities.
 * Marker values are `{message, off?, len?, line?, col?, suggest?, code}`; structural template errors read
 * `<field>: '<value>' --> <message>` like bxp's.
 *
 * @example
 * ```ts
 * import { annotateOutcome } from "./annotate.ts";
 * import { validateConfig } from "./validate.ts";
 * annotateOutcome(validateConfig("{}")).json; // '{"$err_1":{"message":"no conversion_templates defined",...}}'
 * ```
 * @module
 */

import type { Diagnostic } from "./diagnostic.ts";
import { emitJson, emitNodeJson, emittedCanonically, fromNode, type OutValue } from "./emit.ts";
import type { ValidationOutcome } from "./validate.ts";
import { outcomeHasError } from "./validate.ts";

/** The annotated JSON and the exit status bxp gives it (0 clean or warnings only, 1 on any error). */
export interface AnnotateResult {
  json: string;
  exitCode: 0 | 1;
  /**
   * Known to be canonical JSON: exactly what `JSON.stringify` prints for `JSON.parse(json)` (see
   * `emittedCanonically`). Only a config re-emitted without markers is checked; false means unknown.
   */
  canonical: boolean;
}

type ObjectValue = Extract<OutValue, { t: "object" }>;

function lookupPath(root: OutValue, path: string): OutValue | undefined {
  if (path === "") return root;
  let node: OutValue | undefined = root;
  for (const seg of path.split(".")) {
    if (node?.t === "object") {
      node = node.entries.find(([k]) => k === seg)?.[1];
    } else if (node?.t === "array" && /^[0-9]+$/.test(seg)) {
      node = node.items[Number(seg)];
    } else {
      return undefined;
    }
  }
  return node;
}

/** Splits a diagnostic path into the parent object and the key the marker goes before. */
function locate(root: OutValue, path: string): { parent: OutValue; field: string } {
  const dot = path.lastIndexOf(".");
  if (dot < 0) return { parent: root, field: path };
  return { parent: lookupPath(root, path.slice(0, dot)) ?? root, field: path.slice(dot + 1) };
}

/** Inserts numbered markers into an output tree. */
export class Annotator {
  private counter = 0;
  constructor(readonly root: OutValue) {}

  /** Insert `<prefix><N>: value` before `field` in `parent` (appended when `field` is "" or absent). */
  insertBefore(parent: OutValue, prefix: string, field: string, value: OutValue): void {
    if (parent.t !== "object") return;
    this.counter++;
    const key = `${prefix}${this.counter}`;
    const obj = parent as ObjectValue;
    const existing = obj.entries.findIndex(([k]) => k === key);
    if (existing >= 0) {
      obj.entries[existing] = [key, value];
      return;
    }
    const at = field === "" ? -1 : obj.entries.findIndex(([k]) => k === field);
    if (at < 0) obj.entries.push([key, value]);
    else obj.entries.splice(at, 0, [key, value]);
  }

  /** A root-level error marker (`{message, code}`), appended to the root object. */
  rootError(message: string, code: string): void {
    this.insertBefore(this.root, "$err_", "", markerValue({ message, code }));
  }

  /** Place a diagnostic by its path. */
  diagnostic(d: Diagnostic): void {
    const { parent, field } = locate(this.root, d.path);
    this.insertBefore(parent, prefixFor(d), field, markerValue(d));
  }

  /** Place a structural template error, rendered `<field>: '<value>' --> <message>`. */
  semantic(d: Diagnostic): void {
    const { parent, field } = locate(this.root, d.path);
    const shown = displayValue(parent, field);
    this.insertBefore(
      parent,
      "$err_",
      field,
      markerValue({ ...d, message: `${field}: '${shown}' --> ${d.message}` }),
    );
  }
}

function prefixFor(d: Diagnostic): string {
  return d.severity === "error" ? "$err_" : d.severity === "warning" ? "$warn_" : "$info_";
}

function markerValue(d: Partial<Diagnostic> & { message: string }): OutValue {
  const entries: [string, OutValue][] = [["message", { t: "string", v: d.message }]];
  const num = (n: number): OutValue => ({ t: "number", text: String(n) });
  if (d.off !== undefined) entries.push(["off", num(d.off)]);
  if (d.len !== undefined) entries.push(["len", num(d.len)]);
  if (d.line !== undefined) entries.push(["line", num(d.line)]);
  if (d.col !== undefined) entries.push(["col", num(d.col)]);
  if (d.suggest !== undefined) entries.push(["suggest", { t: "string", v: d.suggest }]);
  if (d.code !== undefined) entries.push(["code", { t: "string", v: d.code }]);
  return { t: "object", entries };
}

/** How bxp shows a value inside a semantic error message. */
function displayValue(parent: OutValue, field: string): string {
  if (parent.t !== "object") return "";
  const v = parent.entries.find(([k]) => k === field)?.[1];
  if (!v) return "";
  switch (v.t) {
    case "string":
      return v.v.replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    case "number":
      return /e/i.test(v.text) ? String(Number(v.text)) : v.text;
    case "bool":
      return v.v ? "true" : "false";
    case "null":
      return "null";
    case "array":
      return "[...]";
    case "object":
      return "{...}";
  }
}

/** Build the annotated JSON for a validation outcome, in bxp's marker order. */
export function annotateOutcome(o: ValidationOutcome): AnnotateResult {
  const clean = o.parseError === null && o.loadAbort === null && !o.noTemplates && o.semantic.length === 0 &&
    o.diagnostics.length === 0;
  // Nothing to insert: the config re-emitted as it is, without copying it into an output tree first.
  if (clean && o.root !== null) {
    const json = emitNodeJson(o.root);
    return { json, exitCode: outcomeHasError(o) ? 1 : 0, canonical: emittedCanonically(o.root, json) };
  }
  const root: OutValue = o.root ? fromNode(o.root) : { t: "object", entries: [] };
  const ann = new Annotator(root);
  if (o.parseError) {
    ann.diagnostic(o.parseError);
  } else if (o.loadAbort) {
    ann.rootError(o.loadAbort, "config.load_failed");
    for (const d of o.diagnostics) ann.diagnostic(d);
  } else {
    if (o.noTemplates) ann.rootError("no conversion_templates defined", "config.no_templates");
    for (const d of o.semantic) ann.semantic(d);
    for (const d of o.diagnostics) ann.diagnostic(d);
  }
  return { json: emitJson(root, 0), exitCode: outcomeHasError(o) ? 1 : 0, canonical: false };
}
