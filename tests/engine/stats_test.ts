import assert from "node:assert/strict";
import { exitCodeOf, mergeStats, newStats, overallLine, summaryLine } from "../../src/engine/stats.ts";

Deno.test("summary lines have bxp's shape and milliseconds padding", () => {
  const s = newStats();
  s.warnings = 2;
  s.timeMs = 1234.9;
  assert.equal(summaryLine(s), "summary: errors:0 warnings:2 time:1.234s");
  s.hasFatal = true;
  s.timeMs = 5;
  assert.equal(overallLine(s), "errors:1 warnings:2 time:0.005s");
});

Deno.test("exit status: fatal beats warnings beats clean; merging adds up", () => {
  const a = newStats();
  assert.equal(exitCodeOf(a), 0);
  const b = newStats();
  b.warnings = 1;
  b.rowsIn = 10;
  mergeStats(a, b);
  assert.equal(exitCodeOf(a), 2);
  assert.equal(a.rowsIn, 10);
  b.hasFatal = true;
  mergeStats(a, b);
  assert.equal(exitCodeOf(a), 1);
});
