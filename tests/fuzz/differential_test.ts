/**
 * The generative differential test ("never silently wrong"): seeded random configs over the function
 * registry and the config-schema keys, with inputs shaped to them, run through bxp-cli's reference mode
 * (`BXP_REFERENCE=1`) and through every production path: bxp-cli's default, serial and forced block paths,
 * the playground core in this process, and on every few cases bxp_simulate through a real bxp-mcp and the
 * Ray job's partition modes. Outputs, exit codes, messages, BXTB traces and findings must be identical.
 * Bounded by a case count and a time budget; `BXP_DIFF_SEED` explores other seeds. See docs/dev/fuzzing.md.
 */

import { describeFailures, runFuzz } from "./differential/_run.ts";

const SEED = (() => {
  const given = Number(Deno.env.get("BXP_DIFF_SEED"));
  return Number.isInteger(given) && given > 0 ? given : 20261204;
})();
const CASES = 40;

Deno.test({
  name:
    `differential fuzz: ${CASES} generated cases, every path byte-identical to the reference (seed ${SEED})`,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const report = await runFuzz({
      seed: SEED,
      cases: CASES,
      costlyEvery: 10,
      // Cases started before the budget runs out finish; the rest are skipped, not failed (a busy machine).
      budgetMs: 150_000,
      concurrency: 2,
    });
    console.log(
      `differential fuzz: seed ${SEED}, ${report.ran} cases (${report.costly} also simulated and partitioned) ` +
        `in ${(report.ms / 1000).toFixed(1)} s`,
    );
    if (report.failures.length > 0) {
      const rerun = `BXP_DIFF_SEED=${SEED} deno test --allow-all tests/fuzz/differential_test.ts`;
      throw new Error(describeFailures(SEED, report, rerun));
    }
    // A run that did almost nothing proves nothing: the budget must leave room for most cases.
    if (report.ran < CASES / 2) throw new Error(`only ${report.ran} of ${CASES} cases ran within the budget`);
  },
});
