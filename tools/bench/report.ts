/**
 * The bench report: Markdown tables of one run (ratios to the peers measured in that same run, since
 * absolute times on a shared machine are noise), and the performance goals checked against the figures.
 * @module
 */

import type { ExprRate } from "./expr_rate.ts";
import type { McpResult, ToolLatency } from "./mcp.ts";
import { median } from "./measure.ts";
import {
  type BenchPoint,
  GOAL_POINT_ID,
  plainBaselineId,
  quotedBaselineId,
  SLOW_SINK_BYTES_PER_SECOND,
  traceBaselineId,
} from "./points.ts";
import { containerGoals, type ContainerResult, renderContainerSection } from "./containers.ts";
import { FAILING_EXPRESSION } from "./config.ts";

/** Repeated runs of one tool at one point. */
export interface ToolRuns {
  wallMs: number[];
  /** Highest peak RSS over the runs, KiB (null when it could not be read). */
  peakRssKb: number | null;
  /** Set when a run failed; the figures are then not comparable. */
  error?: string;
}

/** A peer at one point. */
export interface PeerRuns extends ToolRuns {
  name: string;
  /** How its output compared with bxp-cli's ("identical bytes", or what differs). */
  check: string;
  /** Whether the output check passed. */
  verified: boolean;
  /** Why the peer was not run at this point (e.g. it would not fit the time budget). */
  skipped?: string;
}

/** Everything measured at one point. */
export interface PointResult {
  point: BenchPoint;
  inputBytes: number;
  bxp: ToolRuns & { outputBytes: number | null; traceBytes: number | null };
  peers: PeerRuns[];
  /**
   * Trace-on points: the same config with the trace off; errors points: the same run without the failing
   * expression. Run in alternation with the point's own runs, so the overhead compares runs seconds apart
   * rather than points minutes apart on a machine whose load drifts.
   */
  pairedOff?: ToolRuns;
}

/** The machine the figures come from. */
export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  deno: string;
  os: string;
}

/** One whole run. */
export interface BenchRun {
  startedAt: Date;
  totalSeconds: number;
  machine: MachineInfo;
  quick: boolean;
  points: PointResult[];
  peerVersions: string[];
  missingPeers: string[];
  exprRates: ExprRate[] | null;
  mcp: McpResult | null;
  peakRssSource: string;
  /** The container points run (zip members, a large workbook); absent or empty when none ran. */
  containers?: ContainerResult[];
}

/** A performance goal and whether it holds. */
export interface GoalCheck {
  goal: string;
  /** true holds, false does not, null not measured in this run. */
  holds: boolean | null;
  detail: string;
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const mb = (kb: number | null) => (kb === null ? "?" : (kb / 1024).toFixed(0));
const ratio = (x: number) => `${x.toFixed(2)}x`;

/**
 * How far past a goal `factor` (measured over allowed, above 1) is: a percentage below 2x, where "1.0x over"
 * would hide it, else a factor.
 *
 * @example
 * ```ts
 * overBy(1.02); // "2%"
 * overBy(2.5); // "2.5x"
 * ```
 */
export function overBy(factor: number): string {
  return factor < 2 ? `${Math.max(1, Math.round((factor - 1) * 100))}%` : `${factor.toFixed(1)}x`;
}

/**
 * bxp-cli's time over the peer's, round by round: each round runs bxp-cli and then the peer, so the two
 * share the machine's speed of the moment, which drifts by more than the gap between them. The first
 * rounds both ran (a peer that stopped early ran the first ones).
 *
 * @example
 * ```ts
 * roundRatios([3000, 3300, 3100], [3000, 3000]); // [1, 1.1]
 * ```
 */
export function roundRatios(bxpMs: readonly number[], peerMs: readonly number[]): number[] {
  const n = Math.min(bxpMs.length, peerMs.length);
  return Array.from({ length: n }, (_, i) => bxpMs[i] / peerMs[i]);
}

function medianOf(runs: ToolRuns): number | null {
  return runs.error === undefined && runs.wallMs.length > 0 ? median(runs.wallMs) : null;
}

function count(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n % 1e6 === 0 ? 0 : 1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return String(n);
}

function rate(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return n.toFixed(0);
}

function peerCell(result: PointResult, name: string): [string, string] {
  const peer = result.peers.find((p) => p.name === name);
  if (peer === undefined) return ["–", "–"];
  if (peer.skipped !== undefined) return ["skipped", "–"];
  const peerMs = medianOf(peer);
  const bxpMs = medianOf(result.bxp);
  if (peerMs === null) return [`failed`, "–"];
  const mark = peer.verified ? "" : " (output not verified)";
  return [seconds(peerMs), bxpMs === null ? "–" : ratio(bxpMs / peerMs) + mark];
}

function pointsTable(run: BenchRun): string[] {
  const peerNames = [...new Set(run.points.flatMap((r) => r.peers.map((p) => p.name)))];
  const head = [
    "point",
    "rows × cols",
    "config",
    "trace",
    "input MB",
    "runs",
    "bxp-cli s",
    "rows/s",
    "MB/s",
    "peak RSS MB",
  ];
  for (const name of peerNames) head.push(`${name} s`, `bxp-cli / ${name}`);
  const lines = [`| ${head.join(" | ")} |`, `|${head.map(() => " --- ").join("|")}|`];
  for (const r of run.points) {
    const ms = medianOf(r.bxp);
    const cells = [
      `\`${r.point.id}\``,
      `${count(r.point.rows)} × ${r.point.cols}`,
      (r.point.mode === "3expr"
        ? "3 expr + pass-through"
        : r.point.mode === "errors"
        ? "3 expr (one failing on every row) + pass-through"
        : r.point.mode === "json"
        ? "3 expr + pass-through; JSON output"
        : "pass-through only") + (r.point.quoted === true ? "; every input field quoted" : ""),
      r.point.variant === "slow-sink"
        ? `FIFO ${SLOW_SINK_BYTES_PER_SECOND / 1e6} MB/s`
        : r.point.trace
        ? "on"
        : r.point.variant === "serial"
        ? "off, serial"
        : "off",
      (r.inputBytes / 1e6).toFixed(0),
      String(r.bxp.wallMs.length),
      ms === null ? `failed: ${r.bxp.error ?? "no run"}` : seconds(ms),
      ms === null ? "–" : rate(r.point.rows / (ms / 1000)),
      ms === null ? "–" : (r.inputBytes / 1e6 / (ms / 1000)).toFixed(1),
      mb(r.bxp.peakRssKb),
    ];
    for (const name of peerNames) cells.push(...peerCell(r, name));
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines;
}

/**
 * The median of point `r` and that of what it is compared with: its alternating twin's runs when it has
 * them (see {@link PointResult.pairedOff}), else the point `baselineId` of the same run. Null when either
 * has no run.
 */
function medianBeside(
  run: BenchRun,
  r: PointResult,
  baselineId: string,
): { ownMs: number; baseMs: number } | null {
  const base = r.pairedOff ?? run.points.find((b) => b.point.id === baselineId)?.bxp;
  const ownMs = medianOf(r.bxp);
  const baseMs = base === undefined ? null : medianOf(base);
  return ownMs === null || baseMs === null ? null : { ownMs, baseMs };
}

/** Trace-on time over trace-off time for every pair measured in the run. */
export function traceOverheads(
  run: BenchRun,
): Array<{ id: string; offMs: number; onMs: number; traceBytes: number | null }> {
  const pairs = [];
  for (const on of run.points.filter((r) => r.point.trace)) {
    const m = medianBeside(run, on, traceBaselineId(on.point));
    if (m !== null) {
      pairs.push({ id: on.point.id, offMs: m.baseMs, onMs: m.ownMs, traceBytes: on.bxp.traceBytes });
    }
  }
  return pairs;
}

function traceTable(run: BenchRun): string[] {
  const pairs = traceOverheads(run);
  if (pairs.length === 0) return [];
  const lines = [
    "| point | trace off s | trace on s | on / off | trace file MB |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const p of pairs) {
    const traceMb = p.traceBytes === null ? "?" : (p.traceBytes / 1e6).toFixed(1);
    lines.push(
      `| \`${p.id}\` | ${seconds(p.offMs)} | ${seconds(p.onMs)} | ${ratio(p.onMs / p.offMs)} | ${traceMb} |`,
    );
  }
  return lines;
}

/** A table of point, baseline seconds, own seconds and their ratio; `heads` names the last three columns. */
function besideTable(pairs: Array<{ id: string; baseMs: number; ownMs: number }>, heads: string[]): string[] {
  if (pairs.length === 0) return [];
  const lines = [`| point | ${heads.join(" | ")} |`, "| --- | --- | --- | --- |"];
  for (const p of pairs) {
    lines.push(`| \`${p.id}\` | ${seconds(p.baseMs)} | ${seconds(p.ownMs)} | ${ratio(p.ownMs / p.baseMs)} |`);
  }
  return lines;
}

/**
 * A comparison the report makes between points of one run: which points, what each is compared with (its
 * alternating twin's runs when it has them, else the baseline point), the section's title and text, and the
 * table's column heads (baseline seconds, own seconds, ratio).
 */
export interface Comparison {
  selected: (p: BenchPoint) => boolean;
  baselineId: (p: BenchPoint) => string;
  title: string;
  text: string;
  heads: readonly [string, string, string];
}

/** An expression failing on every row against the same config without the error. */
export const ERRORS_COMPARISON: Comparison = {
  selected: (p) => p.mode === "errors",
  baselineId: plainBaselineId,
  title: "An expression failing on every row against none",
  text: `Failing: \`${FAILING_EXPRESSION[1]}\` (a text column in arithmetic: NotANumber, the cell written ` +
    "empty, the error counted). Without: the same config with the working expression, run in alternation " +
    "(medians of each).",
  heads: ["without errors s", "an error on every row s", "with / without"],
};

/** Every input field quoted against the unquoted point of the same shape. */
export const QUOTED_COMPARISON: Comparison = {
  selected: (p) => p.quoted === true,
  baselineId: quotedBaselineId,
  title: "Every field quoted against unquoted",
  text: "The same rows with every field (header included) between double quotes, as spreadsheet and CRM " +
    "exports write them; the output is the same. Unquoted: the point of the same shape in this run.",
  heads: ["unquoted s", "every field quoted s", "quoted / unquoted"],
};

/** The config writing JSON against the same config writing CSV. */
export const JSON_COMPARISON: Comparison = {
  selected: (p) => p.mode === "json",
  baselineId: plainBaselineId,
  title: "JSON output against CSV output",
  text:
    'The same config writing bxp\'s JSON array of objects (`file_type_out: "json"`) instead of CSV, run in ' +
    "alternation with the CSV runs (medians of each). No peer writes that layout, so none is compared.",
  heads: ["CSV output s", "JSON output s", "JSON / CSV"],
};

/** The comparisons, in report order. */
const COMPARISONS: readonly Comparison[] = [ERRORS_COMPARISON, QUOTED_COMPARISON, JSON_COMPARISON];

/** The medians of every point `c` selects beside those of what it is compared with (see {@link medianBeside}). */
export function comparisonPairs(
  run: BenchRun,
  c: Comparison,
): Array<{ id: string; baseMs: number; ownMs: number }> {
  const pairs = [];
  for (const r of run.points.filter((r) => c.selected(r.point))) {
    const m = medianBeside(run, r, c.baselineId(r.point));
    if (m !== null) pairs.push({ id: r.point.id, ...m });
  }
  return pairs;
}

/** A comparison's section (title, text, table), or nothing when the run has no pair for it. */
function comparisonSection(run: BenchRun, c: Comparison): string[] {
  const table = besideTable(comparisonPairs(run, c), [...c.heads]);
  return table.length === 0 ? [] : [`### ${c.title}`, "", c.text, "", ...table, ""];
}

function exprTable(rates: ExprRate[]): string[] {
  const lines = ["| expressions | evaluations | expr/s | ns / eval |", "| --- | --- | --- | --- |"];
  for (const r of rates) {
    const label = r.label.replaceAll("|", "\\|");
    lines.push(
      `| ${label} | ${rate(r.evaluations)} | ${rate(r.perSecond)} | ${(1e9 / r.perSecond).toFixed(0)} |`,
    );
  }
  return lines;
}

function mcpTable(mcp: McpResult): string[] {
  if (!mcp.ready) return [`bxp-mcp not ready: ${mcp.reason}`];
  const cold = mcp.coldStartMs;
  const lines = [
    `Cold start (spawn to the \`initialize\` answer, ${cold.length} fresh processes): median ${
      median(cold).toFixed(0)
    } ms, min ${Math.min(...cold).toFixed(0)} ms, max ${Math.max(...cold).toFixed(0)} ms.`,
    "",
    "| request (one long-lived server, sequential calls) | calls | median ms | p99 ms |",
    "| --- | --- | --- | --- |",
  ];
  const row = (label: string, t: ToolLatency) =>
    lines.push(`| ${label} | ${t.calls} | ${t.medianMs.toFixed(3)} | ${t.p99Ms.toFixed(3)} |`);
  for (const t of mcp.tools) {
    row(t.tool.startsWith("bxp_") ? `\`${t.tool}\`` : `\`${t.tool}\` (protocol floor, no tool)`, t);
  }
  if (mcp.floor !== null) row("`ping` to a minimal Deno stdio echo server (Deno's floor, no MCP)", mcp.floor);
  const firsts = mcp.firstCalls.filter((t) => t.tool.startsWith("bxp_"));
  if (firsts.length > 0) {
    lines.push(
      "",
      `A tool's first call in a fresh session (right after \`initialize\`, one per cold start; what an agent's first use costs):`,
      "",
      "| tool | sessions | median ms | p99 ms |",
      "| --- | --- | --- | --- |",
    );
    for (const t of firsts) {
      lines.push(`| \`${t.tool}\` | ${t.calls} | ${t.medianMs.toFixed(1)} | ${t.p99Ms.toFixed(1)} |`);
    }
  }
  return lines;
}

/** The floors a round trip stands on, for the goal line: bxp-mcp's `ping`, and Deno's echo when measured. */
function roundTripFloors(mcp: McpResult & { ready: true }): string {
  const ping = mcp.tools.find((t) => t.tool === "ping");
  const parts = [];
  if (ping !== undefined) parts.push(`\`ping\` ${ping.medianMs.toFixed(3)} ms`);
  if (mcp.floor !== null) parts.push(`a minimal Deno stdio echo server ${mcp.floor.medianMs.toFixed(3)} ms`);
  return parts.length === 0 ? "" : ` (floors: ${parts.join(", ")})`;
}

/** `bxp_validate`'s round-trip goal: it parses, checks and annotates a whole config. */
export const VALIDATE_ROUND_TRIP_MS = 0.3;
/** The round-trip goal of the other stateless tools (`bxp_eval`, `bxp_eval_batch`). */
export const EVAL_ROUND_TRIP_MS = 0.25;

/** The median round trip a stateless tool must stay within. */
export function roundTripLimitMs(tool: string): number {
  return tool === "bxp_validate" ? VALIDATE_ROUND_TRIP_MS : EVAL_ROUND_TRIP_MS;
}

/** The performance goals, checked against one run. */
export function checkGoals(run: BenchRun): GoalCheck[] {
  const goals: GoalCheck[] = [];
  const find = (id: string) => run.points.find((r) => r.point.id === id);
  const big = find(GOAL_POINT_ID);
  const bigMs = big === undefined ? null : medianOf(big.bxp);
  for (const [name, limit] of [["Miller", 0.35], ["DuckDB", 1.0]] as const) {
    const goal = `2M × 16, trace off: at most ${limit}x ${name}'s wall time`;
    const peer = big?.peers.find((p) => p.name === name);
    const peerMs = peer === undefined ? null : medianOf(peer);
    if (bigMs === null || peerMs === null) {
      goals.push({ goal, holds: null, detail: "not measured in this run" });
      continue;
    }
    const r = bigMs / peerMs;
    const rounds = roundRatios(big!.bxp.wallMs, peer!.wallMs);
    goals.push({
      goal,
      holds: r <= limit,
      detail: `${ratio(r)} (bxp-cli ${seconds(bigMs)} s, ${name} ${seconds(peerMs)} s${
        rounds.length > 1
          ? `; round by round ${rounds.map(ratio).join(", ")}, median ${ratio(median(rounds))}`
          : ""
      })${r <= limit ? "" : `: ${overBy(r / limit)} over the goal`}`,
    });
  }
  const absGoal = "2M × 16, trace off: at most 6.5 s (bxp's published 8-core figure)";
  goals.push(
    bigMs === null ? { goal: absGoal, holds: null, detail: "not measured in this run" } : {
      goal: absGoal,
      holds: bigMs <= 6500,
      detail: `${seconds(bigMs)} s${bigMs <= 6500 ? "" : `: ${overBy(bigMs / 6500)} over`}`,
    },
  );
  // Memory must not grow with the input: under 150 MB, and the larger inputs within 10% of the 2M point.
  const baseRss = find(GOAL_POINT_ID)?.bxp.peakRssKb ?? null;
  for (const id of ["r2m-c16", "r10m-c16", "r100k-c1024", "r2m-c16-slow"]) {
    const r = find(id);
    const flat = id === "r10m-c16" || id === "r100k-c1024";
    const goal = `peak RSS under 150 MB${flat ? " and within 10% of `r2m-c16`'s" : ""} at \`${id}\`` +
      (id === "r2m-c16-slow" ? " (trace into a FIFO drained slowly)" : "");
    if (r === undefined || r.bxp.peakRssKb === null || r.bxp.error !== undefined) {
      goals.push({ goal, holds: null, detail: "not measured in this run" });
      continue;
    }
    const peakMb = r.bxp.peakRssKb / 1024;
    const growth = flat && baseRss !== null ? r.bxp.peakRssKb / baseRss : null;
    goals.push({
      goal,
      holds: peakMb < 150 && (growth === null || growth <= 1.1),
      detail: `${peakMb.toFixed(0)} MB` + (growth === null ? "" : ` (${ratio(growth)} of \`r2m-c16\`)`),
    });
  }
  const serial = find("r2m-c16-serial");
  const serialMs = serial === undefined ? null : medianOf(serial.bxp);
  const speedGoal = `parallel mode (${run.machine.cpus} evaluators) faster than \`BXP_WORKERS=0\` at 2M × 16`;
  goals.push(
    bigMs === null || serialMs === null
      ? { goal: speedGoal, holds: null, detail: "not measured in this run" }
      : {
        goal: speedGoal,
        holds: bigMs < serialMs,
        detail: `speedup ${ratio(serialMs / bigMs)} (serial ${seconds(serialMs)} s, parallel ${
          seconds(bigMs)
        } s; peak RSS ${mb(serial!.bxp.peakRssKb)} MB serial)`,
      },
  );
  const pairs = traceOverheads(run);
  const traceGoal = "trace on costs less than 30% over trace off";
  if (pairs.length === 0) {
    goals.push({ goal: traceGoal, holds: null, detail: "not measured in this run" });
  } else {
    const worst = pairs.reduce((a, b) => (b.onMs / b.offMs > a.onMs / a.offMs ? b : a));
    goals.push({
      goal: traceGoal,
      holds: pairs.every((p) => p.onMs / p.offMs < 1.3),
      detail: pairs.map((p) => `\`${p.id}\` ${((p.onMs / p.offMs - 1) * 100).toFixed(0)}%`).join(", ") +
        ` (worst \`${worst.id}\`)`,
    });
  }
  const mcp = run.mcp;
  const rtGoal =
    `bxp-mcp median round trip over stdio: \`bxp_validate\` at most ${VALIDATE_ROUND_TRIP_MS} ms, the other stateless tools at most ${EVAL_ROUND_TRIP_MS} ms`;
  const coldGoal = "bxp-mcp cold start under 150 ms (`deno run`)";
  if (mcp === null || !mcp.ready) {
    const detail = mcp === null ? "not measured in this run" : `bxp-mcp not ready: ${mcp.reason}`;
    goals.push({ goal: rtGoal, holds: null, detail }, { goal: coldGoal, holds: null, detail });
  } else {
    const tools = mcp.tools.filter((t) => t.tool.startsWith("bxp_"));
    goals.push({
      goal: rtGoal,
      holds: tools.length > 0 && tools.every((t) => t.medianMs <= roundTripLimitMs(t.tool)),
      detail: tools.map((t) => `\`${t.tool}\` ${t.medianMs.toFixed(3)} ms`).join(", ") + roundTripFloors(mcp),
    });
    const cold = median(mcp.coldStartMs);
    goals.push({ goal: coldGoal, holds: cold < 150, detail: `median ${cold.toFixed(0)} ms` });
  }
  goals.push(...containerGoals(run.containers ?? []));
  return goals;
}

function goalLines(goals: GoalCheck[]): string[] {
  return goals.map((g) => {
    const mark = g.holds === null ? "not measured" : g.holds ? "holds" : "does not hold";
    return `- **${mark}**: ${g.goal} — ${g.detail}`;
  });
}

/** The machine line of the report. */
export function machineLine(m: MachineInfo): string {
  return `${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB.toFixed(0)} GiB RAM, ${m.os}, Deno ${m.deno}`;
}

/** The whole report as Markdown. */
export function renderReport(run: BenchRun): string {
  const out: string[] = [];
  out.push(`## Benchmark${run.quick ? " (quick subset)" : ""}: ${run.startedAt.toISOString().slice(0, 16)}Z`);
  out.push("");
  out.push(`Machine: ${machineLine(run.machine)}. Whole run: ${run.totalSeconds.toFixed(0)} s.`);
  out.push(
    `Workload: bxp's bench shape (seeded), config with \`DATE_CONVERT\`, \`IF\`, a concatenation and one ` +
      `pass-through variable per column. Wall time is spawn to exit (startup included) as a median of the ` +
      `runs; peak RSS from ${run.peakRssSource}. Ratios below 1 mean bxp-cli is faster.`,
  );
  if (run.peerVersions.length > 0) out.push(`Peers: ${run.peerVersions.join("; ")}.`);
  for (const m of run.missingPeers) out.push(`Peer missing: ${m}.`);
  out.push("");
  if (run.points.length > 0) {
    out.push("### bxp-cli against its peers", "", ...pointsTable(run), "");
    const ran = run.points.flatMap((r) =>
      r.peers.filter((p) => p.skipped === undefined).map((p) => ({ r, p }))
    );
    const unverified = ran.filter(({ p }) => !p.verified).map(({ r, p }) =>
      `\`${r.point.id}\` ${p.name}: ${p.check}`
    );
    const skipped = run.points.flatMap((r) =>
      r.peers.filter((p) => p.skipped !== undefined).map((p) => `\`${r.point.id}\` ${p.name} ${p.skipped}`)
    );
    if (ran.length > 0) {
      const identical = ran.length - unverified.length;
      out.push(
        unverified.length === 0
          ? "Every peer output was checked byte for byte against bxp-cli's output: identical."
          : `Peer outputs checked byte for byte against bxp-cli's: ${identical} of ${ran.length} identical. ` +
            `Not verified: ${unverified.join("; ")}.`,
      );
    }
    for (const s of skipped) out.push(`- ${s}`);
    out.push("");
  }
  const trace = traceTable(run);
  if (trace.length > 0) {
    out.push("### Trace on (`--trace-file`) against trace off", "");
    out.push("Trace off: the same config run in alternation with the trace-on runs (medians of each).", "");
    out.push(...trace, "");
  }
  for (const c of COMPARISONS) out.push(...comparisonSection(run, c));
  if (run.exprRates !== null) {
    out.push("### Expressions per second, in process (bench input_schema over generated rows)", "");
    out.push(...exprTable(run.exprRates), "");
  }
  if (run.mcp !== null) out.push("### bxp-mcp over stdio", "", ...mcpTable(run.mcp), "");
  out.push(...renderContainerSection(run.containers ?? []));
  out.push("### Performance goals", "", ...goalLines(checkGoals(run)), "");
  return out.join("\n");
}
