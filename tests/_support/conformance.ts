/**
 * bxp's own test data, `../shared/conformance/` beside the checkout. Where a checkout has no such sibling
 * (a fork on a CI service, say), the tests that read it are reported as ignored instead of failing.
 * @module
 */

/** The conformance folder, or null when this checkout has none beside it. */
export const CONFORMANCE_DIR: URL | null = (() => {
  const url = new URL("../../../shared/conformance/", import.meta.url);
  try {
    Deno.statSync(url);
    return url;
  } catch {
    return null;
  }
})();

if (CONFORMANCE_DIR === null) {
  // Deno's "N ignored" gives no reason: say it once, where the run's output shows it.
  console.log(
    "skipped: ../shared/conformance not found beside the checkout; the tests reading bxp's conformance data " +
      "are ignored",
  );
}

/** Test options for a test that reads the conformance data. */
export const NEEDS_CONFORMANCE = { ignore: CONFORMANCE_DIR === null } as const;
