/**
 * How long bxp-mcp's session thread can be held by a stateless call it answers inline (see
 * `src/inspect/inline_jobs.ts`): requests built to stress each inline bound, each within the bounds (so
 * answered inline, not handed to a worker), timed in process. The report gives the slowest run of each;
 * the README's bound on a stalled session comes from here.
 *
 * @example
 * ```sh
 * deno task bench --only mcp   # includes this section
 * ```
 * @module
 */

import {
  type EvalJob,
  INLINE_MAX_CHARS,
  INLINE_SPEND_LIMIT,
  jobChars,
  runInline,
} from "../../src/inspect/mod.ts";

/** One stress case and what it cost. */
export interface InlineBound {
  /** What the request stresses. */
  name: string;
  /** Its size as the inline gate counts it. */
  chars: number;
  /** Whether it was answered inline (false: it went past a bound and would go to a worker). */
  inline: boolean;
  /** The slowest of the timed runs, in milliseconds. */
  maxMs: number;
}

/** A config with one template whose input_schema holds `exprs`, output naming only the first. */
function configWith(exprs: string[]): string {
  const inputSchema = Object.fromEntries(exprs.map((e, i) => [`$v${i}`, e]));
  return JSON.stringify({
    conversion_templates: {
      t: {
        data_dir: ".",
        file_pattern_in: ".csv",
        file_pattern_out: ".out.csv",
        input_schema: inputSchema,
        output_schema: { a: "$v0" },
      },
    },
  });
}

/** The largest job `build(items)` of items `make(0)`, `make(1)`, ... within the inline size bound. */
function fill<T>(make: (i: number) => T, build: (items: T[]) => EvalJob): EvalJob {
  const items: T[] = [];
  for (;;) {
    items.push(make(items.length));
    if (jobChars(build(items), Infinity) > INLINE_MAX_CHARS) {
      items.pop();
      return build(items);
    }
  }
}

/** The stress requests, each as large as the inline size bound allows. */
export function stressJobs(): { name: string; job: EvalJob }[] {
  const batch = (field: string) => (exprs: string[]): EvalJob => ({
    kind: "eval_batch",
    request: { headers: ["a"], fields: [field], exprs },
  });
  const nested = `LEN(${"UPPER(".repeat(200)}[a]${")".repeat(200)})`;
  // One REPLACE costs its text's length times its search strings (and the text's read): just under the limit.
  const pairs = Math.floor(INLINE_SPEND_LIMIT / 1024) - 2;
  const replace = `REPLACE([a], ${Array.from({ length: pairs }, (_, i) => `'k${i}', 'v'`).join(", ")})`;
  return [
    {
      name: "a config of unused input variables (one finding each)",
      job: fill((i) => `[c${i % 600}]`, (exprs) => validate(configWith(exprs))),
    },
    {
      name: "a config of many templates",
      job: fill(
        (i) => [`t${i}`, { data_dir: ".", file_pattern_in: ".csv", input_schema: { $a: "[x]" } }] as const,
        (t) => validate(JSON.stringify({ conversion_templates: Object.fromEntries(t) })),
      ),
    },
    {
      name: "200 nested calls over a 1000-character field",
      job: fill(() => nested, batch("x".repeat(1000))),
    },
    {
      name: "short expressions each reading a 1000-character field",
      job: fill(() => "LEN(LOWER([a]))", batch("é".repeat(1000))),
    },
    {
      name: `a REPLACE of ${pairs} search strings over 1024 characters`,
      job: batch("y".repeat(1024))([replace]),
    },
    {
      name: "DATE_CONVERTs",
      job: fill(() => "DATE_CONVERT([a], 'DD.MM.YYYY', 'YYYY-MM-DD')", batch("01.02.2024")),
    },
  ];
}

function validate(text: string): EvalJob {
  return { kind: "validate", text, label: "<bench>" };
}

/** Times each stress request: `warmup` untimed runs, then the slowest of `runs` timed ones. */
export function measureInlineBounds(runs = 3, warmup = 2): InlineBound[] {
  return stressJobs().map(({ name, job }) => {
    let inline = true;
    for (let i = 0; i < warmup; i++) inline = runInline(job) !== null;
    let maxMs = 0;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      inline = runInline(job) !== null && inline;
      maxMs = Math.max(maxMs, performance.now() - started);
    }
    return { name, chars: jobChars(job, Infinity), inline, maxMs };
  });
}

/** The report section: one row per stress request. */
export function renderInlineBoundsSection(bounds: InlineBound[]): string[] {
  const slowest = Math.max(...bounds.filter((b) => b.inline).map((b) => b.maxMs), 0);
  return [
    "### bxp-mcp: the longest a call answered inline holds the session",
    "",
    `Requests built to stress each inline bound (at most ${INLINE_MAX_CHARS} characters, ${INLINE_SPEND_LIMIT} ` +
    `work units), timed in process: the slowest inline answer took ${slowest.toFixed(1)} ms.`,
    "",
    "| request | characters | answered inline | slowest ms |",
    "| --- | --- | --- | --- |",
    ...bounds.map((b) => `| ${b.name} | ${b.chars} | ${b.inline ? "yes" : "no"} | ${b.maxMs.toFixed(1)} |`),
    "",
  ];
}
