import assert from "node:assert/strict";
import {
  extractDateRange,
  outsideRange,
  requireComparableDate,
  UncomparableDateError,
} from "../../src/engine/date_range.ts";

Deno.test("a YYYY-MM-DD_YYYY-MM-DD range is found anywhere in the stem", () => {
  assert.deepEqual(extractDateRange("2026-01-01_2026-03-31"), {
    kind: "valid",
    min: "2026-01-01",
    max: "2026-03-31",
  });
  assert.deepEqual(extractDateRange("CZK_2025-12-01_2025-12-31_cash"), {
    kind: "valid",
    min: "2025-12-01",
    max: "2025-12-31",
  });
  assert.deepEqual(extractDateRange("statement_q1"), { kind: "none" });
  assert.deepEqual(extractDateRange("2026-01-01"), { kind: "none" });
});

Deno.test("a range-shaped typo is invalid, never a silent filter-everything", () => {
  assert.deepEqual(extractDateRange("2026-03-31_2026-01-01"), { kind: "invalid" });
  assert.deepEqual(extractDateRange("2026-13-01_2026-99-31"), { kind: "invalid" });
});

Deno.test("rows are compared on the first ten characters; short values are never filtered", () => {
  assert.equal(outsideRange("2024-01-01 10:00:00", "2024-01-01", "2024-12-31"), false);
  assert.equal(outsideRange("2023-12-31T23:59:59Z", "2024-01-01", "2024-12-31"), true);
  assert.equal(outsideRange("2025-01-01", "2024-01-01", "2024-12-31"), true);
  assert.equal(outsideRange("", "2024-01-01", "2024-12-31"), false);
  // Non-ISO text is compared as text too (bxp documents the mis-filtering: normalise $date first).
  assert.equal(outsideRange("31.12.2023", "2024-01-01", "2024-12-31"), true);
  assert.equal(outsideRange("15.06.2024", "01.01.2024", "31.12.2024"), false);
});

Deno.test("a live range needs a $date of at least ten characters; no range accepts anything", () => {
  const where = { template: "bank", file: "stmt_2031-05-01_2031-05-31", recordNum: 7 };
  requireComparableDate("2031-05-02", "2031-05-01", "2031-05-31", where);
  requireComparableDate("2031-05-02 08:15", "2031-05-01", "2031-05-31", where);
  requireComparableDate("", "", "", where);
  requireComparableDate("n/a", "", "", where);
  for (const short of ["", "2031-05-2", "n/a"]) {
    assert.throws(
      () => requireComparableDate(short, "2031-05-01", "2031-05-31", where),
      (err: unknown) =>
        err instanceof UncomparableDateError &&
        err.message.startsWith(`template 'bank': 'stmt_2031-05-01_2031-05-31' record 7: `) &&
        err.message.includes(`$date is '${short}'`) && err.message.includes("range 2031-05-01..2031-05-31"),
      JSON.stringify(short),
    );
  }
});
