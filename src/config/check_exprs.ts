/**
 * Phase G: deep expression checks, and phase G8: unused declarations.
 *
 * Every expression of a template is validated the way `bxp_validate_expr` does (parse, evaluate on an
 * empty row, static argument checks), then checked against the template's own names: LOOKUP block names
 * (G3), named maps of REMAP/REPLACE. Field references of all expressions are clustered to spot a header
 * typo (G2). Finally pre_pass blocks no LOOKUP reads and `$variables` nothing uses are reported (G8).
 *
 * Expressions cannot read `$variables` (`$x` is `UnexpectedChar`), so a variable is used only when an
 * output_schema column names it. bxp also counts a `[$x]` column reference as a use of `$x`, which hides
 * the very mistake the warning is for (`[$x]` reads a column named `$x`, never the variable): here it
 * does not count.
 *
 * The language is reached through {@link ExprTools} so this module can be tested on its own.
 * @module
 */

import { type Diagnostic, joinPath, templatePath } from "./diagnostic.ts";
import { LEGACY_PRE_PASS } from "./load.ts";
import { loweredEditDistance } from "./similar.ts";
import type { NamedMaps, TemplateConfig } from "./types.ts";

/** An expression failure: bxp error name, human detail, byte span (len 0 = not pinned). */
export interface ExprFailure {
  error: string;
  detail: string;
  off: number;
  len: number;
}

/** One function call found in an expression. `literals[i]` is argument i's text when it is a string literal, else null. */
export interface ExprCallFact {
  name: string;
  literals: (string | null)[];
  off: number;
  len: number;
}

/** What an expression mentions (there are no variable references: expressions see columns only). */
export interface ExprFactsView {
  fields: string[];
  calls: ExprCallFact[];
}

/** The language services validation needs. */
export interface ExprTools {
  /** Authoring-time verdict for one expression (null when valid). */
  validate(src: string): ExprFailure | null;
  /** Names the expression refers to; null when it does not parse. */
  facts(src: string): ExprFactsView | null;
  /** Did-you-mean for an unknown function name. */
  suggestFunction(name: string): string | null;
}

/** One expression of a template and where it sits. */
interface ExprSite {
  path: string;
  leaf: string;
  src: string;
}

function prePassPrefix(name: string): string {
  return name === LEGACY_PRE_PASS ? "pre_pass" : `pre_pass.${name}`;
}

/** The expressions bxp validates, in its order: input_schema, rule conditions and row overrides, pre_pass values. */
function validatedSites(t: TemplateConfig): ExprSite[] {
  const base = templatePath(t.id);
  const sites: ExprSite[] = [];
  for (const [name, src] of t.inputSchema) {
    sites.push({ path: joinPath(base, `input_schema.${name}`), leaf: name, src });
  }
  (t.rowRules ?? []).forEach((rule, i) => {
    sites.push({ path: joinPath(base, `row_rules.${i}.when`), leaf: "when", src: rule.when });
    rule.rows.forEach((row, j) => {
      for (const [name, src] of row) {
        sites.push({ path: joinPath(base, `row_rules.${i}.rows.${j}.${name}`), leaf: name, src });
      }
    });
  });
  for (const block of t.prePass) {
    for (const [field, src] of block.values) {
      sites.push({ path: joinPath(base, `${prePassPrefix(block.name)}.values.${field}`), leaf: field, src });
    }
  }
  return sites;
}

/** Every expression source of a template (used for reference scans). */
function allSources(t: TemplateConfig): string[] {
  const out = t.inputSchema.map(([, src]) => src);
  for (const rule of t.rowRules ?? []) {
    out.push(rule.when);
    for (const row of rule.rows) for (const [, src] of row) out.push(src);
  }
  for (const block of t.prePass) {
    out.push(block.when, block.key);
    for (const [, src] of block.values) out.push(src);
  }
  return out.filter((s) => s !== "");
}

const NAMED_MAP_FUNCTIONS = new Set(["REMAP", "REPLACE"]);

/** Check one expression against the template's names; returns the first finding. */
function nameFailure(
  facts: ExprFactsView,
  prePassNames: string[],
  mapNames: Set<string>,
): ExprFailure | null {
  for (const call of facts.calls) {
    const fn = call.name.toUpperCase();
    if (fn === "LOOKUP") {
      const block = call.literals[0];
      if (call.literals.length === 3 && block !== null && !prePassNames.includes(block)) {
        return {
          error: "LookupUnknownPrePass",
          detail: `unknown pre_pass '${block}' — check pre_passes block name`,
          off: call.off,
          len: call.len,
        };
      }
      if (call.literals.length === 2 && prePassNames.length > 1) {
        return {
          error: "LookupRequiresName",
          detail: "LOOKUP requires explicit name when multiple pre_passes are defined",
          off: call.off,
          len: call.len,
        };
      }
    } else if (NAMED_MAP_FUNCTIONS.has(fn) && call.literals.length === 2 && call.literals[1] !== null) {
      // The two-argument form is (value, 'map_name').
      const map = call.literals[1];
      if (!mapNames.has(map)) {
        return {
          error: "UnknownNamedMap",
          detail: `unknown named map '${map}'`,
          off: call.off,
          len: call.len,
        };
      }
    }
  }
  return null;
}

/** G1/G3/G4/G5/G6: validate every expression of one template. */
export function checkExpressions(t: TemplateConfig, globalMaps: NamedMaps, tools: ExprTools): Diagnostic[] {
  const out: Diagnostic[] = [];
  const prePassNames = t.prePass.map((b) => b.name);
  const mapNames = new Set([...globalMaps.keys(), ...t.maps.keys()]);
  for (const site of validatedSites(t)) {
    if (site.src === "") continue;
    let failure = tools.validate(site.src);
    if (failure === null) {
      const facts = tools.facts(site.src);
      if (facts) failure = nameFailure(facts, prePassNames, mapNames);
    }
    if (failure === null) continue;
    const d: Diagnostic = {
      severity: "error",
      code: `expr.${failure.error}`,
      path: site.path,
      message: `expression in ${site.leaf}: ${failure.detail || failure.error}`,
    };
    if (failure.len > 0) {
      d.off = failure.off;
      d.len = failure.len;
    }
    if (failure.error === "UnknownFunction") {
      const bad = /'([^']*)'/.exec(failure.detail)?.[1];
      const hint = bad ? tools.suggestFunction(bad) : null;
      if (hint) d.suggest = `did you mean '${hint}'?`;
    }
    out.push(d);
  }
  const outlier = fieldOutlier(allSources(t).map((src) => tools.facts(src)?.fields ?? []));
  if (outlier) {
    out.push({
      severity: "warning",
      code: "expr.UnknownField",
      path: joinPath(templatePath(t.id), "input_schema"),
      message:
        `field '${outlier.bad}' is referenced once but '${outlier.good}' is used many times — possible typo`,
      suggest: `did you mean '${outlier.good}'?`,
    });
  }
  return out;
}

/**
 * G2: a field name used by exactly one expression that is within 2 edits of a name used by 3 or more is
 * probably a typo. Counts are per expression (a name repeated inside one expression counts once).
 */
export function fieldOutlier(fieldsPerSource: string[][]): { bad: string; good: string } | null {
  const freq = new Map<string, number>();
  for (const fields of fieldsPerSource) {
    // A name counts once per expression; short lists (the usual case) skip building a Set.
    const names = fields.length > 8 ? new Set(fields) : fields;
    let k = 0;
    for (const name of names) {
      if (names === fields && fields.indexOf(name) !== k++) continue;
      freq.set(name, (freq.get(name) ?? 0) + 1);
    }
  }
  // The names used 3 or more times, in first-use order, lower-cased once.
  const common: { name: string; lower: string }[] = [];
  for (const [name, n] of freq) if (n >= 3) common.push({ name, lower: name.toLowerCase() });
  if (common.length === 0) return null;
  for (const [bad, count] of freq) {
    if (count !== 1) continue;
    const badLower = bad.toLowerCase();
    let good: string | null = null;
    let best = Infinity;
    for (const candidate of common) {
      // More than 2 apart in length means more than 2 edits: such a name can never be the answer.
      if (Math.abs(candidate.lower.length - badLower.length) > 2) continue;
      const d = loweredEditDistance(badLower, candidate.lower);
      if (d < best) {
        best = d;
        good = candidate.name;
      }
    }
    if (good !== null && best <= 2) return { bad, good };
  }
  return null;
}

/** G8: pre_pass blocks nothing looks up and input variables no output_schema column names. */
export function checkUnused(t: TemplateConfig, tools: ExprTools): Diagnostic[] {
  const out: Diagnostic[] = [];
  const base = templatePath(t.id);
  const lookedUp = new Set<string>();
  const usedVars = new Set<string>();
  let computedLookup = false;
  let twoArgLookup = false;
  for (const src of allSources(t)) {
    const facts = tools.facts(src);
    if (!facts) continue;
    for (const call of facts.calls) {
      if (call.name.toUpperCase() !== "LOOKUP") continue;
      if (call.literals.length === 2) twoArgLookup = true;
      else if (call.literals.length === 3) {
        const block = call.literals[0];
        if (block === null) computedLookup = true;
        else lookedUp.add(block);
      }
    }
  }
  for (const [, variable] of t.outputSchema) if (variable !== "") usedVars.add(variable);
  // A LOOKUP whose block name is computed could reach any block, so nothing is provably unused.
  if (!computedLookup) {
    if (twoArgLookup && t.prePass.length === 1) lookedUp.add(t.prePass[0].name);
    for (const block of t.prePass) {
      if (lookedUp.has(block.name)) continue;
      out.push({
        severity: "warning",
        code: "config.unused_pre_pass",
        path: joinPath(base, prePassPrefix(block.name)),
        message: `pre_pass block '${block.name}' is declared but never referenced via LOOKUP`,
      });
    }
  }
  for (const [name] of t.inputSchema) {
    if (usedVars.has(name)) continue;
    out.push({
      severity: "warning",
      code: "config.unused_input_var",
      path: joinPath(base, `input_schema.${name}`),
      message:
        `input_schema variable '${name}' is declared but never referenced in any expression or output_schema`,
    });
  }
  return out;
}
