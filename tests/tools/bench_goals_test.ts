/**
 * The bench's goals on synthetic results: each is decided on the median of per-round ratios, against the
 * peers and the copy floor measured in the same run, and says "not measured" when its figures are absent.
 */
import assert from "node:assert/strict";
import { FULL_POINTS, GOAL_POINT_ID } from "../../tools/bench/points.ts";
import {
  type BenchRun,
  checkGoals,
  type GoalCheck,
  peerRatio,
  type PeerRuns,
  type PointResult,
  renderReport,
} from "../../tools/bench/report.ts";
import type { McpResult } from "../../tools/bench/mcp.ts";
import { simulateFailure, workloadText } from "../../tools/bench/agent_loop.ts";

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

function peer(name: string, wallMs: number[], cpuMs?: number[]): PeerRuns {
  return {
    name,
    wallMs,
    cpuMs,
    peakRssKb: null,
    check: "identical",
    verified: true,
    ...(name === "cat" ? { floor: true } : {}),
  };
}

function result(id: string, wallMs: number[], peers: PeerRuns[] = [], rssMb = 100): PointResult {
  return {
    point: FULL_POINTS.find((x) => x.id === id)!,
    inputBytes: 1,
    bxp: {
      wallMs,
      cpuMs: wallMs.map((ms) => ms * 1.8),
      peakRssKb: rssMb * 1024,
      outputBytes: null,
      traceBytes: null,
    },
    peers,
  };
}

function goal(goals: GoalCheck[], needle: string): GoalCheck {
  const found = goals.filter((g) => g.goal.includes(needle));
  assert.equal(found.length, 1, `one goal with '${needle}' in ${goals.map((g) => g.goal).join(" / ")}`);
  return found[0];
}

Deno.test("throughput goals are decided on the median of per-round ratios, not the ratio of medians", () => {
  // Rounds 0.29x, 0.29x and 0.32x: median 0.29x, within 0.3x; the ratio of medians (1000/3100) is 0.32x.
  const big = result(GOAL_POINT_ID, [870, 1450, 1000], [
    peer("Miller", [10000, 9000, 12000]), // 0.087x, 0.161x, 0.083x: median 0.087x
    peer("DuckDB", [3000, 5000, 3100], [5400, 9000, 5500]),
    peer("cat", [300, 250, 200]), // 2.9x, 5.8x, 5.0x: median 5.0x, over 4x
  ]);
  const small = result("r100k-c16", [600, 600, 600], [peer("DuckDB", [1000, 1000, 1000])]); // 0.6x
  const goals = checkGoals({ ...BASE_RUN, points: [big, small] });

  const duck = goal(goals, "`r2m-c16`: at most 0.3x DuckDB");
  assert.equal(duck.holds, true);
  assert.match(
    duck.detail,
    /^median of 3 rounds 0\.29x \(rounds 0\.29x, 0\.29x, 0\.32x; medians bxp-cli 1\.00 s, CPU 1\.80 s, DuckDB 3\.10 s, CPU 5\.50 s\)$/,
  );
  const floor = goal(goals, "`r2m-c16`: at most 4x a `cat in > out` copy");
  assert.equal(floor.holds, false);
  assert.match(floor.detail, /median of 3 rounds 5\.00x .*: 25% over$/);
  assert.equal(goal(goals, "below 0.1x Miller").holds, true);
  // r10m-c16 did not run: both of its lines say so rather than hold.
  for (const g of goals.filter((g) => g.goal.startsWith("`r10m-c16`"))) {
    assert.equal(g.holds, null);
    assert.equal(g.detail, "not measured in this run");
  }
  const every = goal(goals, "every point where DuckDB runs");
  assert.equal(every.holds, false);
  assert.match(every.detail, /^1 of 2 points within .*`r100k-c16` 0\.60x/);
  assert.deepEqual(peerRatio(small, "Miller"), null);
});

Deno.test("a peer that failed, was skipped or stopped early counts only the rounds it ran", () => {
  const failed = result(GOAL_POINT_ID, [1000, 1000], [{ ...peer("DuckDB", [3000]), error: "exited 1" }]);
  assert.equal(peerRatio(failed, "DuckDB"), null);
  const skipped = result(GOAL_POINT_ID, [1000], [{ ...peer("Miller", []), skipped: "skipped: budget" }]);
  assert.equal(peerRatio(skipped, "Miller"), null);
  const early = result(GOAL_POINT_ID, [1000, 2000, 3000, 4000, 5000], [
    peer("Miller", [10000, 10000, 10000]),
  ]);
  assert.deepEqual(peerRatio(early, "Miller"), { median: 0.2, rounds: [0.1, 0.2, 0.3] });
  // Below 0.1x is strict: a tie does not hold.
  const tie = result(GOAL_POINT_ID, [1000, 1000, 1000], [peer("Miller", [10000, 10000, 10000])]);
  assert.equal(goal(checkGoals({ ...BASE_RUN, points: [tie] }), "Miller").holds, false);
});

Deno.test("peak RSS is at most 150 MB at every point, containers included", () => {
  const points = [
    result("r2m-c16", [4000], [], 140),
    result("r2m-c16-serial", [6000], [], 120),
    result("r10m-c16", [20000], [], 160),
    result("r100k-c1024", [20000], [], 150),
  ];
  const rss = (run: BenchRun) => goal(checkGoals(run), "peak RSS");
  const over = rss({ ...BASE_RUN, points });
  assert.equal(over.holds, false);
  assert.match(
    over.detail,
    /^4 points; highest `r10m-c16` 160 MB, `r100k-c1024` 150 MB, `r2m-c16` 140 MB; over: `r10m-c16` 160 MB$/,
  );
  const within = rss({ ...BASE_RUN, points: points.filter((r) => r.point.id !== "r10m-c16") });
  assert.equal(within.holds, true); // 150 MB is at most 150 MB
  const container = {
    point: { id: "zip-4x500k-c16", kind: "zip" as const, serial: false },
    inputBytes: 1,
    csvBytes: 1,
    wallMs: [1],
    prepareMs: [1],
    peakRssKb: 151 * 1024,
  };
  assert.equal(rss({ ...BASE_RUN, points: [], containers: [container] }).holds, false);
  assert.equal(rss({ ...BASE_RUN, points: [] }).holds, null);
  const speed = goal(checkGoals({ ...BASE_RUN, points }), "faster than `BXP_WORKERS=0`");
  assert.equal(speed.holds, true);
  assert.match(speed.detail, /speedup 1\.50x/);
});

function mcpRun(validateMs: number, pingMs: number, evalMs: number): BenchRun {
  const mcp: McpResult = {
    ready: true,
    coldStartMs: [100],
    firstCalls: [{ tool: "bxp_validate", calls: 1, medianMs: 12, p99Ms: 12 }], // not a goal
    tools: [
      { tool: "ping", calls: 10, medianMs: pingMs, p99Ms: 1 },
      { tool: "bxp_eval", calls: 10, medianMs: evalMs, p99Ms: 1 },
      { tool: "bxp_eval_batch", calls: 10, medianMs: evalMs, p99Ms: 1 },
      { tool: "bxp_validate", calls: 10, medianMs: validateMs, p99Ms: 1 },
    ],
    floor: { tool: "ping", calls: 10, medianMs: 0.05, p99Ms: 1 },
  };
  return { ...BASE_RUN, points: [], mcp };
}

Deno.test("bxp_validate is a non-regression line: at most 0.6 ms and 6x ping in the same run", () => {
  const validate = (r: BenchRun) => goal(checkGoals(r), "`bxp_validate` round trip");
  assert.equal(validate(mcpRun(0.55, 0.1, 0.2)).holds, true); // 5.5x ping
  assert.match(validate(mcpRun(0.55, 0.1, 0.2)).detail, /^0\.550 ms, 5\.50x `ping` \(0\.100 ms\)$/);
  assert.equal(validate(mcpRun(0.55, 0.08, 0.2)).holds, false); // 6.9x ping
  assert.equal(validate(mcpRun(0.65, 0.2, 0.2)).holds, false); // over 0.6 ms though 3.3x ping
  const evals = (r: BenchRun) => goal(checkGoals(r), "`bxp_eval` and `bxp_eval_batch`");
  assert.equal(evals(mcpRun(0.55, 0.1, 0.2)).holds, true);
  assert.equal(evals(mcpRun(0.55, 0.1, 0.27)).holds, false);
  assert.match(
    evals(mcpRun(0.55, 0.1, 0.2)).detail,
    /\(floors: `ping` 0\.100 ms, a minimal Deno stdio echo server 0\.050 ms\)$/,
  );
  assert.equal(validate({ ...BASE_RUN, points: [] }).holds, null);
  const notReady = checkGoals({ ...BASE_RUN, points: [], mcp: { ready: false, reason: "no deno" } });
  assert.equal(goal(notReady, "cold start").detail, "bxp-mcp not ready: no deno");
});

Deno.test("the agent loop's bxp_simulate p50 is at most 3x an empty deno run in the same run", () => {
  const loop = (p50Ms: number): BenchRun => ({
    ...BASE_RUN,
    points: [],
    agentLoop: {
      ready: true,
      rows: 1000,
      warmupCalls: 3,
      samplesMs: [p50Ms],
      p50Ms,
      floorMs: [90, 100, 110],
      floorP50Ms: 100,
    },
  });
  const agent = (r: BenchRun) => goal(checkGoals(r), "agent loop");
  assert.equal(agent(loop(290)).holds, true);
  assert.equal(agent(loop(300)).holds, true);
  assert.equal(agent(loop(330)).holds, false);
  assert.match(
    agent(loop(330)).detail,
    /^p50 330 ms over 1 call, 3\.30x the floor's p50 100 ms \(3 runs\): 10% over$/,
  );
  assert.equal(agent({ ...BASE_RUN, points: [] }).holds, null);
  assert.match(renderReport(loop(290)), /\| empty `deno run` \(start-up floor\) \| 3 \| 100 \| 90 \| 110 \|/);
});

Deno.test("the report gives every round's ratio and each side's wall and CPU time", () => {
  const big = result(GOAL_POINT_ID, [870, 1450, 1000], [
    peer("DuckDB", [3000, 5000, 3100], [5400, 9000, 5500]),
  ]);
  const report = renderReport({ ...BASE_RUN, points: [big] });
  assert.match(
    report,
    /\| `r2m-c16` \| DuckDB \| 0\.29x, 0\.29x, 0\.32x \| 0\.29x \| 0\.87, 1\.45, 1\.00 \| 1\.57, 2\.61, 1\.80 \| 3\.00, 5\.00, 3\.10 \| 5\.40, 9\.00, 5\.50 \|/,
  );
  // The points table's ratio is the median of the rounds too, beside bxp-cli's median CPU time.
  assert.match(report, /\| 1\.00 \| 1\.80 \| .* \| 3\.10 \| 0\.29x \|/);
  // A run without CPU figures says so instead of inventing them.
  const noCpu = result(GOAL_POINT_ID, [1000], [peer("DuckDB", [3000])]);
  delete noCpu.bxp.cpuMs;
  assert.match(
    renderReport({ ...BASE_RUN, points: [noCpu] }),
    /\| 0\.33x \| 0\.33x \| 1\.00 \| \? \| 3\.00 \| \? \|/,
  );
});

Deno.test("the agent loop sends the workload as CSV text and accepts only a complete, clean simulation", () => {
  const text = workloadText(3);
  assert.equal(text.split("\n").length, 5); // header, three rows, the final newline
  assert.match(text, /^id,name,date,amount,col4,/);
  const ok = { structuredContent: { ok: true, status: "ok", output_records: 3 } };
  assert.equal(simulateFailure(ok, 3), null);
  assert.match(simulateFailure(ok, 1000)!, /wrote 3 rows, not 1000/);
  assert.match(
    simulateFailure({ structuredContent: { ...ok.structuredContent, status: "warnings" } }, 3)!,
    /ended 'warnings'/,
  );
  assert.match(
    simulateFailure({ isError: true, content: [{ text: "no such template" }] }, 3)!,
    /no such template/,
  );
});
