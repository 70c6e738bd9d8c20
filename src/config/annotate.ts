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
 * import assert from "node:assert/strict";
 * assert.equal(
 *   annotateOutcome(validateConfig("{}")).json,
 *   '{"$err_1":{"message":"no conversion_templates defined","code":"config.no_templates"}}',
 * );
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

/** Objects at least this wide get a key index for lookups (a config may hold thousands of map entries). */
const INDEX_FROM = 16;

/** Key -> value of wide objects, built on first lookup (entries do not change until `finish`). */
const keyIndexes = new WeakMap<ObjectValue, Map<string, OutValue>>();

/** The value under `key` in `obj` (the first one, as a scan would find it). */
function valueAt(obj: ObjectValue, key: string): OutValue | undefined {
  if (obj.entries.length < INDEX_FROM) return obj.entries.find(([k]) => k === key)?.[1];
  let index = keyIndexes.get(obj);
  if (index === undefined) {
    index = new Map();
    for (const [k, v] of obj.entries) if (!index.has(k)) index.set(k, v);
    keyIndexes.set(obj, index);
  }
  return index.get(key);
}

function lookupPath(root: OutValue, path: string): OutValue | undefined {
  if (path === "") return root;
  let node: OutValue | undefined = root;
  for (const seg of path.split(".")) {
    if (node?.t === "object") {
      node = valueAt(node, seg);
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

type Entry = [string, OutValue];

/**
 * The markers bound for one object, placed by {@link Annotator.finish} in one pass: inserting each into
 * the entry list as it came cost a scan and a splice per marker, quadratic for a wide object with many
 * findings (an `input_schema` of a thousand unused variables).
 */
interface Placement {
  /** Markers to go right before an original key, in the order they came. */
  readonly before: Map<string, Entry[]>;
  /** Markers to go after the last entry. */
  readonly appended: Entry[];
  /** Original keys whose value a marker of the same name replaces. */
  readonly replaced: Map<string, OutValue>;
  /** The original keys. */
  readonly original: Set<string>;
  /** Each placed marker's list (one of `before`'s, or `appended`). */
  readonly markerList: Map<string, Entry[]>;
}

/** Inserts numbered markers into an output tree; {@link Annotator.finish} puts them in place. */
export class Annotator {
  private counter = 0;
  private readonly placements = new Map<ObjectValue, Placement>();
  constructor(readonly root: OutValue) {}

  /**
   * Insert `<prefix><N>: value` before `field` in `parent` (appended when `field` is "" or absent; a key
   * of that name already there gets the value instead), as seen once {@link Annotator.finish} has run.
   */
  insertBefore(parent: OutValue, prefix: string, field: string, value: OutValue): void {
    if (parent.t !== "object") return;
    this.counter++;
    const key = `${prefix}${this.counter}`;
    const p = this.placementOf(parent);
    if (p.original.has(key)) {
      p.replaced.set(key, value);
      return;
    }
    const marker: Entry = [key, value];
    let list: Entry[];
    if (field !== "" && p.original.has(field)) {
      list = p.before.get(field) ?? [];
      if (list.length === 0) p.before.set(field, list);
      list.push(marker);
    } else if (field !== "" && p.markerList.has(field)) {
      // Before a marker placed earlier: into its list, just ahead of it.
      list = p.markerList.get(field)!;
      list.splice(list.findIndex(([k]) => k === field), 0, marker);
    } else {
      list = p.appended;
      list.push(marker);
    }
    p.markerList.set(key, list);
  }

  /** Put every marker in place; the tree then reads as if each had been inserted as it came. */
  finish(): void {
    for (const [obj, p] of this.placements) {
      const entries: Entry[] = [];
      for (const [k, v] of obj.entries) {
        const before = p.before.get(k);
        if (before !== undefined) { for (const marker of before) entries.push(marker); }
        entries.push([k, p.replaced.get(k) ?? v]);
      }
      for (const marker of p.appended) entries.push(marker);
      obj.entries = entries;
      keyIndexes.delete(obj);
    }
    this.placements.clear();
  }

  private placementOf(obj: ObjectValue): Placement {
    let p = this.placements.get(obj);
    if (p === undefined) {
      p = {
        before: new Map(),
        appended: [],
        replaced: new Map(),
        original: new Set(obj.entries.map(([k]) => k)),
        markerList: new Map(),
      };
      this.placements.set(obj, p);
    }
    return p;
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
  const v = valueAt(parent, field);
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
  ann.finish();
  return { json: emitJson(root, 0), exitCode: outcomeHasError(o) ? 1 : 0, canonical: false };
}
