/**
 * The bxp expression corpus: every `ok` line validates, every `err` line fails with exactly
 * the named error.
 */

import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import {
  compileExpression,
  compileWithReads,
  emptyContext,
  fieldReads,
  validateExpression,
} from "../../src/lang/mod.ts";

const corpusUrl = new URL("../../../shared/conformance/scripts/test-06-expr-corpus.txt", import.meta.url);

interface Case {
  line: number;
  expr: string;
  expected: string | null;
}

function readCorpus(): Case[] {
  const cases: Case[] = [];
  Deno.readTextFileSync(corpusUrl).split("\n").forEach((raw, i) => {
    const text = raw.replace(/\r$/, "");
    if (text.trim() === "" || text.startsWith("#")) return;
    const cols = text.split("\t");
    assert.equal(cols[0], "expr", `line ${i + 1}: unknown record type`);
    if (cols[1] === "ok") cases.push({ line: i + 1, expr: cols[2], expected: null });
    else cases.push({ line: i + 1, expr: cols[2], expected: cols[3] });
  });
  return cases;
}

Deno.test("expression corpus", NEEDS_CONFORMANCE, async (t) => {
  const cases = readCorpus();
  assert.ok(cases.length >= 200, `corpus looks truncated: ${cases.length} cases`);
  for (const c of cases) {
    await t.step(`line ${c.line}: ${c.expr}`, () => {
      const err = validateExpression(c.expr);
      if (c.expected === null) {
        assert.equal(err, null, `line ${c.line}: ${c.expr} -> ${err?.error}: ${err?.detail}`);
      } else {
        assert.equal(
          err?.error,
          c.expected,
          `line ${c.line}: ${c.expr} -> ${err?.error ?? "ok"}: ${err?.detail ?? ""}`,
        );
      }
    });
  }
});

Deno.test(
  "compileWithReads: one parse gives fieldReads' answer and compileExpression's error",
  NEEDS_CONFORMANCE,
  () => {
    const outcome = (run: () => unknown) => {
      try {
        return { value: run() };
      } catch (e) {
        return { error: (e as Error).message };
      }
    };
    const extra = ["", "[A]", " [A] ", "[A] & FIELDS(2)", "IF(RECORD_NUM() > 1, [B], [A] & [A])", "1 + 2"];
    for (const src of [...readCorpus().map((c) => c.expr), ...extra]) {
      const both = outcome(() => compileWithReads(src));
      const reads = outcome(() => fieldReads(src));
      const compiled = outcome(() => compileExpression(src));
      if ("error" in compiled) {
        assert.deepEqual(both, compiled, src);
        continue;
      }
      const { expr, reads: got } = both.value as ReturnType<typeof compileWithReads>;
      assert.deepEqual(got, (reads as { value: unknown }).value, src);
      if (/\b(RAND|NOW)\s*\(/i.test(src)) continue; // a different value each time
      assert.deepEqual(
        outcome(() => expr.evaluate(emptyContext())),
        outcome(() => (compiled.value as ReturnType<typeof compileExpression>).evaluate(emptyContext())),
        src,
      );
    }
  },
);
