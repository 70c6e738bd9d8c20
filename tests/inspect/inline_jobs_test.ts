/**
 * Inline evaluation jobs (`inline_jobs.ts`): an inline answer is always the answer a worker gives (bxp's
 * expression corpus and every conformance config), and what is not provably cheap is handed on instead:
 * large inputs, regular expressions, time zones, more text work than the spend limit. A refused job
 * leaves nothing behind that could change a later answer.
 */
import assert from "node:assert/strict";
import { CONFORMANCE_DIR, NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import { type EvalJob, INLINE_MAX_CHARS, jobChars, runEvalJob, runInline } from "../../src/inspect/mod.ts";

/** The corpus's expressions, minus the ones whose value changes from call to call. */
function corpusExpressions(): string[] {
  const text = Deno.readTextFileSync(new URL("scripts/test-06-expr-corpus.txt", CONFORMANCE_DIR!));
  return text.split("\n")
    .filter((line) => line.startsWith("expr\t"))
    .map((line) => line.replace(/\r$/, "").split("\t")[2])
    .filter((expr) => !/\b(NOW|RAND)\s*\(/i.test(expr));
}

/** Whether an expression needs a step the spend limit cannot meter. */
const unmetered = (expr: string) => /REGEX_|TO_UTC|TZ_|IS_DST/i.test(expr);

const ROW = { headers: ["Date", "Amount", "Name"], fields: ["2024-03-01", "1 234,50", "Žluťoučký kůň"] };

Deno.test(
  "inline answers equal the worker's for every corpus expression; unmetered ones are handed on",
  NEEDS_CONFORMANCE,
  () => {
    const exprs = corpusExpressions();
    assert.ok(exprs.length >= 200, `corpus looks truncated: ${exprs.length}`);
    let inline = 0;
    for (const expr of exprs) {
      const jobs: EvalJob[] = [
        { kind: "validate_expr", expr },
        { kind: "eval", expr, headers: null, fields: null },
        { kind: "eval", expr, ...ROW },
        { kind: "eval_trace", expr, ...ROW },
      ];
      for (const job of jobs) {
        const here = runInline(job);
        if (here === null) {
          assert.ok(unmetered(expr), `${job.kind} of ${expr} was handed on`);
          continue;
        }
        inline++;
        assert.deepEqual(here, runEvalJob(job), `${job.kind} of ${expr}`);
      }
    }
    assert.ok(inline > exprs.length * 3, `only ${inline} jobs ran inline`);
  },
);

Deno.test("inline validation of every conformance config equals the worker's", NEEDS_CONFORMANCE, () => {
  let checked = 0;
  const walk = (dir: URL) => {
    for (const entry of Deno.readDirSync(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) walk(url);
      else if (entry.name === "sample.json") {
        const job: EvalJob = { kind: "validate", text: Deno.readTextFileSync(url), label: "<config>" };
        const here = runInline(job);
        const worker = runEvalJob(job);
        if (here === null) {
          assert.ok(
            job.text.length > INLINE_MAX_CHARS || unmetered(job.text),
            `${url.pathname} was handed on`,
          );
          continue;
        }
        assert.deepEqual(here, worker, url.pathname);
        checked++;
      }
    }
  };
  walk(new URL("datasets/", CONFORMANCE_DIR!));
  walk(new URL("docs/", CONFORMANCE_DIR!));
  assert.ok(checked >= 10, `only ${checked} configs validated inline`);
});

Deno.test("jobs past the size bound are refused after looking at about that much of them", () => {
  const map: Record<string, string> = {};
  for (let i = 0; i < 100_000; i++) map[`key${i}`] = "value";
  const big: EvalJob = { kind: "eval_batch", request: { exprs: ["1"], maps: { m: map } } };
  const seen = jobChars(big, INLINE_MAX_CHARS);
  assert.ok(seen > INLINE_MAX_CHARS && seen < INLINE_MAX_CHARS + 64, `counted ${seen}`);
  const long: EvalJob = { kind: "eval", expr: "1", headers: Array(1_000_000).fill("h"), fields: null };
  assert.ok(jobChars(long, INLINE_MAX_CHARS) <= 1_000_100, "an array past the cap is not walked");
  assert.equal(runInline(big), null);
  const deep: unknown[] = [];
  let at = deep;
  for (let i = 0; i < 100_000; i++) at.push(at = []);
  assert.equal(
    runInline({ kind: "eval_batch", request: deep }),
    null,
    "a deep request is measured without recursion",
  );
  assert.notEqual(runInline({ kind: "eval", expr: "'x'", headers: null, fields: null }), null);
});

Deno.test("more text work than the spend limit, even caught as a finding, is handed on; the answer after is unbounded", () => {
  // 12 x 64 Ki characters: within the language's own budget, over the inline spend limit.
  const costly = Array(12).fill("LPAD('', 65535, 'ab')").join(" & ");
  const expr = `LEN(${costly})`;
  assert.equal(runInline({ kind: "eval", expr, headers: null, fields: null }), null);
  assert.equal(
    runEvalJob({ kind: "eval", expr, headers: null, fields: null }).text,
    '{"ok":true,"value":"786420"}',
  );
  // Validation turns an expression's error into a finding: the limit must still send the job on, and the
  // validation memo must not keep the bounded run's answer for the next (unbounded) validation.
  const config = JSON.stringify({
    conversion_templates: {
      t: {
        data_dir: ".",
        file_pattern_in: ".csv",
        file_pattern_out: ".out.csv",
        input_schema: { $n: expr },
        output_schema: { n: "$n" },
      },
    },
  });
  const job: EvalJob = { kind: "validate", text: config, label: "<config>" };
  assert.equal(runInline(job), null);
  assert.equal(runInline(job), null, "still handed on the second time: the bounded run's error was not kept");
  const unbounded = runEvalJob(job);
  assert.equal(unbounded.verdict!.ok, true, JSON.stringify(unbounded.verdict!.findings));
  // What an unbounded run learnt may serve later inline runs: it is the expression's own answer.
  const later = runInline(job);
  if (later !== null) assert.deepEqual(later, unbounded);
});
