import assert from "node:assert/strict";
import { join } from "node:path";
import {
  FULL_POINTS,
  GOAL_POINT_ID,
  pairedTwin,
  point,
  QUICK_POINT_IDS,
  quotedBaselineId,
  quotedPoint,
  repeatsFor,
  twinLabel,
  variantBaselineId,
} from "../../tools/bench/points.ts";
import {
  type BenchRun,
  checkGoals,
  comparisonPairs,
  ERRORS_COMPARISON,
  JSON_COMPARISON,
  type PointResult,
  QUOTED_COMPARISON,
  renderReport,
  traceOverheads,
} from "../../tools/bench/report.ts";
import { drainSlowly } from "../../tools/bench/slow_drain.ts";
import { echoAnswer } from "../../tools/bench/stdio_echo.ts";

Deno.test("variant points have their own ids and pair with the default-mode point", () => {
  const serial = point(2_000_000, 16, "3expr", false, "serial");
  const slow = point(2_000_000, 16, "3expr", false, "slow-sink");
  assert.equal(serial.id, "r2m-c16-serial");
  assert.equal(slow.id, "r2m-c16-slow");
  assert.equal(variantBaselineId(serial), "r2m-c16");
  assert.equal(variantBaselineId(slow), "r2m-c16");
  const ids = FULL_POINTS.map((p) => p.id);
  for (const id of ["r2m-c16-serial", "r2m-c16-slow", "r10m-c16", "r100k-c1024"]) {
    assert.ok(ids.includes(id), id);
  }
  assert.equal(new Set(ids).size, ids.length);
});

/** A bench run on a two-CPU machine with nothing measured: tests add their points. */
const BASE_RUN: Omit<BenchRun, "points"> = {
  startedAt: new Date(0),
  totalSeconds: 1,
  machine: { cpus: 2, cpuModel: "x", memoryGiB: 1, deno: "2", os: "linux" },
  quick: false,
  peerVersions: [],
  missingPeers: [],
  exprRates: null,
  mcp: null,
  peakRssSource: "test",
};

function result(id: string, ms: number, rssMb: number): PointResult {
  const p = FULL_POINTS.find((x) => x.id === id)!;
  return {
    point: p,
    inputBytes: 1,
    bxp: { wallMs: [ms], peakRssKb: rssMb * 1024, outputBytes: null, traceBytes: null },
    peers: [],
  };
}

Deno.test("every point runs at least three times, so a goal is judged on a median", () => {
  for (const bytes of [1, 50e6, 200e6, 3e9]) assert.ok(repeatsFor(bytes) >= 3, `${bytes} B`);
  // The goal point, whose ratio to DuckDB sits near the line, gets more rounds than its size alone would.
  assert.equal(repeatsFor(578e6, "r10m-c16"), 3);
  assert.equal(repeatsFor(578e6, GOAL_POINT_ID), 5);
});

Deno.test("the stdio echo floor server answers requests and skips notifications", async () => {
  assert.equal(
    echoAnswer('{"jsonrpc":"2.0","id":7,"method":"ping"}'),
    '{"jsonrpc":"2.0","id":7,"result":{}}\n',
  );
  assert.equal(echoAnswer('{"jsonrpc":"2.0","method":"notifications/initialized"}'), null);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", new URL("../../tools/bench/stdio_echo.ts", import.meta.url).pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode('{"jsonrpc":"2.0","id":"a","method":"ping"}\n{"jsonrpc":"2.0","method":"x"}\n'),
  );
  await writer.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":2,"method":"ping"}\n'));
  await writer.close();
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(
    new TextDecoder().decode(out.stdout),
    '{"jsonrpc":"2.0","id":"a","result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n',
  );
});

Deno.test("the slow sink's reader consumes everything written into the FIFO", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-fifo-" });
  try {
    const path = join(dir, "f.fifo");
    const made = await new Deno.Command("mkfifo", { args: [path] }).output();
    assert.equal(made.code, 0);
    const reading = drainSlowly(path, 50_000_000);
    const w = await Deno.open(path, { write: true });
    const chunk = new Uint8Array(100_000);
    for (let i = 0; i < 5; i++) {
      for (let at = 0; at < chunk.length;) at += await w.write(chunk.subarray(at));
    }
    w.close();
    assert.equal(await reading, 500_000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A run's fields besides its points, for the report tests. */

Deno.test("the trace overhead compares the trace-on runs with their alternating trace-off twins", () => {
  const off = result("r2m-c16", 2000, 130); // measured minutes earlier, on a quieter machine
  const on = {
    ...result("r2m-c16-trace", 3000, 130),
    pairedOff: { wallMs: [2700, 2800, 2900], peakRssKb: null },
  };
  const paired = traceOverheads({ ...BASE_RUN, points: [off, on] });
  assert.deepEqual(paired.map((p) => [p.id, p.offMs, p.onMs]), [["r2m-c16-trace", 2800, 3000]]);
  const traceGoal = (r: BenchRun) => checkGoals(r).find((g) => g.goal.startsWith("trace on"))!;
  assert.equal(traceGoal({ ...BASE_RUN, points: [off, on] }).holds, true); // 7%, not 50%
  const { pairedOff: _, ...unpaired } = on;
  assert.equal(traceGoal({ ...BASE_RUN, points: [off, unpaired] }).holds, false); // falls back to the point
});

Deno.test("an errors point pairs with its error-free twin and is reported beside it", () => {
  const errors = point(500_000, 16, "errors");
  assert.equal(errors.id, "r500k-c16-errors");
  // A twin differs only in what it runs (the id stays the point's, for the progress lines).
  assert.deepEqual({ ...pairedTwin(errors), id: "" }, { ...point(500_000, 16, "3expr"), id: "" });
  const trace = point(100_000, 16, "3expr", true);
  assert.deepEqual({ ...pairedTwin(trace), id: "" }, { ...point(100_000, 16, "3expr"), id: "" });
  assert.equal(pairedTwin(point(100_000, 16)), null);
  assert.ok(FULL_POINTS.some((p) => p.id === "r500k-c16-errors"));
  assert.ok(QUICK_POINT_IDS.includes("r100k-c16-errors"));
  const plain = result("r500k-c16", 2000, 120);
  const failing = {
    ...result("r500k-c16-errors", 2600, 120),
    pairedOff: { wallMs: [2300, 2000, 2100], peakRssKb: null },
  };
  const run: BenchRun = { ...BASE_RUN, points: [plain, failing] };
  assert.deepEqual(comparisonPairs(run, ERRORS_COMPARISON), [{
    id: "r500k-c16-errors",
    baseMs: 2100,
    ownMs: 2600,
  }]);
  const { pairedOff: _, ...unpaired } = failing;
  assert.deepEqual(comparisonPairs({ ...run, points: [plain, unpaired] }, ERRORS_COMPARISON), [
    { id: "r500k-c16-errors", baseMs: 2000, ownMs: 2600 },
  ]);
  const report = renderReport(run);
  assert.match(report, /### An expression failing on every row against none/);
  assert.match(report, /\| `r500k-c16-errors` \| 2\.10 \| 2\.60 \| 1\.24x \|/);
});

Deno.test("a quoted point reads the same rows quoted and is reported beside the unquoted point", () => {
  const quoted = quotedPoint(500_000, 16);
  assert.equal(quoted.id, "r500k-c16-quoted");
  assert.equal(quoted.quoted, true);
  assert.equal(quotedBaselineId(quoted), "r500k-c16");
  assert.equal(point(500_000, 16).quoted, undefined, "plain points carry no flag");
  assert.equal(pairedTwin(quoted), null, "compared with the unquoted point of the run, not a twin");
  assert.ok(FULL_POINTS.some((p) => p.id === "r500k-c16-quoted"));
  assert.ok(QUICK_POINT_IDS.includes("r100k-c16-quoted"));
  const run: BenchRun = {
    ...BASE_RUN,
    points: [result("r500k-c16", 2000, 120), result("r500k-c16-quoted", 2800, 120)],
  };
  assert.deepEqual(comparisonPairs(run, QUOTED_COMPARISON), [{
    id: "r500k-c16-quoted",
    baseMs: 2000,
    ownMs: 2800,
  }]);
  assert.deepEqual(
    comparisonPairs({ ...run, points: [run.points[1]] }, QUOTED_COMPARISON),
    [],
    "no unquoted point",
  );
  const report = renderReport(run);
  assert.match(report, /### Every field quoted against unquoted/);
  assert.match(report, /\| `r500k-c16-quoted` \| 2\.00 \| 2\.80 \| 1\.40x \|/);
  assert.match(report, /every input field quoted/);
});

Deno.test("a json point pairs with its CSV twin and is reported beside it", () => {
  const json = point(500_000, 16, "json");
  assert.equal(json.id, "r500k-c16-json");
  assert.deepEqual({ ...pairedTwin(json), id: "" }, { ...point(500_000, 16, "3expr"), id: "" });
  assert.equal(twinLabel(json), "CSV output");
  assert.equal(twinLabel(point(500_000, 16, "errors")), "without errors");
  assert.ok(FULL_POINTS.some((p) => p.id === "r500k-c16-json"));
  assert.ok(QUICK_POINT_IDS.includes("r100k-c16-json"));
  const csv = result("r500k-c16", 2000, 120);
  const written = {
    ...result("r500k-c16-json", 2500, 120),
    pairedOff: { wallMs: [1900, 2100, 1800], peakRssKb: null },
  };
  const run: BenchRun = { ...BASE_RUN, points: [csv, written] };
  assert.deepEqual(comparisonPairs(run, JSON_COMPARISON), [{
    id: "r500k-c16-json",
    baseMs: 1900,
    ownMs: 2500,
  }]);
  const report = renderReport(run);
  assert.match(report, /### JSON output against CSV output/);
  assert.match(report, /\| `r500k-c16-json` \| 1\.90 \| 2\.50 \| 1\.32x \|/);
  assert.match(report, /3 expr \+ pass-through; JSON output/);
});
