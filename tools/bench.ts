/**
 * `deno task bench [--quick] [--only <id>[,<id>]] [--repeat <n>] [--no-peers] [--write-docs | --no-docs]
 * [--list]`: measures the real bxp-cli on bxp's benchmark workload beside Miller, DuckDB and a copy floor
 * (`cat in > out`) on the same input (each round runs bxp-cli, then each peer; wall and CPU time of every
 * run), the expression language's rate in process, bxp-mcp's cold start and stdio round trips, and the agent
 * loop (`bxp_simulate` through the SDK client); prints a Markdown report and writes it to `.bench/latest.md`
 * (raw figures in `.bench/latest.json`). Generated inputs are cached in `.bench/data/`.
 *
 * A full run (no `--quick`, no `--only`) also rewrites the generated block of `docs/performance.md` (between
 * its `<!-- bench:begin -->` and `<!-- bench:end -->` markers, see `bench/docs_block.ts`); `--write-docs`
 * makes any run do so, `--no-docs` keeps any run from it. `--no-peers` leaves out Miller and DuckDB, not the
 * copy floor.
 *
 * Besides the point ids (`--list`), `--only` accepts `expr`, `mcp`, `agent-loop` (see
 * `bench/agent_loop.ts`), `mcp-http` (bxp-mcp over Streamable HTTP under concurrent clients, see
 * `bench/mcp_http.ts`), `browser` (the playground in headless Chromium, see `bench/browser.ts`) and `ray`
 * (the Ray job on a local cluster, see `bench/ray.ts`) for those sections alone; the last two are not part of
 * `--quick`. The container points (`zip-…`, `xlsx-…`, see `bench/containers.ts`) run in a full run and when
 * named, never in `--quick`; their `-serial` twins only when named.
 * Progress goes to stderr; the report goes to stdout.
 * @module
 */

import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ENTRY_MODULES, entryPointFlags } from "../src/distribution/mod.ts";
import { benchOutputColumns } from "./bench/config.ts";
import { measureExpressionRates } from "./bench/expr_rate.ts";
import {
  compareFiles,
  countLines,
  lineAt,
  type PreparedInput,
  prepareInput,
  removeQuietly,
} from "./bench/files.ts";
import { benchMcp, type McpResult } from "./bench/mcp.ts";
import { measureInlineBounds, renderInlineBoundsSection } from "./bench/inline_bounds.ts";
import { benchBrowser, renderBrowserSection } from "./bench/browser.ts";
import { benchRay, renderRaySection } from "./bench/ray.ts";
import { renderMcpHttpSection, runMcpHttpBench } from "./bench/mcp_http.ts";
import { hasGnuTime, type Measured, runMeasured, type RunSpec } from "./bench/measure.ts";
import { copyFloor, findPeers, type Peer } from "./bench/peers.ts";
import { benchAgentLoop } from "./bench/agent_loop.ts";
import { docsBlock, writeDocsBlock } from "./bench/docs_block.ts";
import { type ContainerResult, runContainerPoint } from "./bench/containers.ts";
import {
  type BenchPoint,
  CONTAINER_DEFAULT_IDS,
  CONTAINER_POINTS,
  CONTAINER_REPEATS,
  FULL_POINTS,
  pairedTwin,
  QUICK_POINT_IDS,
  repeatsFor,
  traceBaselineId,
  twinLabel,
  variantBaselineId,
} from "./bench/points.ts";
import { startSlowSink } from "./bench/slow_sink.ts";
import {
  type BenchRun,
  checkGoals,
  type MachineInfo,
  type PeerRuns,
  type PointResult,
  renderReport,
} from "./bench/report.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");
const BENCH_DIR = `${ROOT}/.bench`;
const RUN_TIMEOUT_MS = 600_000;
/**
 * A peer run predicted to take longer than this is skipped (and the report says so): Miller needs minutes at
 * 1024 columns, which alone would break the ten-minute budget of the whole table.
 */
const PEER_RUN_BUDGET_MS = 120_000;
/**
 * A peer predicted to take longer than this per run stops after {@link SLOW_PEER_RUNS} runs of a point, so
 * the goal point's extra rounds (see `repeatsFor`) cost seconds, not Miller's minutes.
 */
const SLOW_PEER_MS = 20_000;
const SLOW_PEER_RUNS = 3;
const SPECIAL_SECTIONS = ["expr", "mcp", "agent-loop", "mcp-http", "browser", "ray"];
const DOCS_PATH = `${ROOT}/docs/performance.md`;

function progress(message: string): void {
  console.error(`[bench] ${message}`);
}

function usage(message: string): never {
  console.error(`error: ${message}`);
  console.error(
    "usage: deno task bench [--quick] [--only <id>[,<id>...]] [--repeat <n>] [--no-peers] " +
      "[--write-docs | --no-docs] [--list]",
  );
  Deno.exit(2);
}

async function machineInfo(): Promise<MachineInfo> {
  let cpuModel = "unknown CPU";
  let memoryGiB = 0;
  try {
    cpuModel = /model name\s*:\s*(.+)/.exec(await Deno.readTextFile("/proc/cpuinfo"))?.[1].trim() ?? cpuModel;
    const kb = /MemTotal:\s+(\d+) kB/.exec(await Deno.readTextFile("/proc/meminfo"))?.[1];
    if (kb !== undefined) memoryGiB = Number(kb) / 1024 / 1024;
  } catch {
    // not Linux: keep the defaults
  }
  return {
    cpus: navigator.hardwareConcurrency,
    cpuModel,
    memoryGiB,
    deno: Deno.version.deno,
    os: `${Deno.build.os} ${Deno.osRelease()}`,
  };
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.slice(0, 200) ?? "";
}

/** The bxp-cli command, with exactly the `bxp-cli` task's permission flags. */
function bxpCliSpec(denoJson: string, input: PreparedInput, p: BenchPoint, tracePath: string): RunSpec {
  const args = ["--config", input.configPath[p.mode], "--quiet"];
  if (p.trace || p.variant === "slow-sink") args.push("--trace-file", tracePath);
  return {
    env: p.variant === "serial" ? { BXP_WORKERS: "0" } : undefined,
    argv: [
      Deno.execPath(),
      "run",
      ...entryPointFlags(denoJson, "bxp-cli"),
      `${ROOT}/${ENTRY_MODULES["bxp-cli"]}`,
      ...args,
    ],
    cwd: input.dir,
    timeoutMs: RUN_TIMEOUT_MS,
  };
}

/**
 * Why a run failed, or undefined: bxp-cli exits 0, or 2 when it finished with warnings (an `errors` point's
 * failing expression is one per row, by design).
 */
function failure(m: Measured, what: string, expectedCode = 0): string | undefined {
  if (m.code === expectedCode) return undefined;
  return `${what} exited ${m.code}${m.stderr.trim() ? `: ${firstLine(m.stderr)}` : ""}`;
}

async function checkPeerOutput(
  reference: string,
  output: string,
  p: BenchPoint,
  input: PreparedInput,
  peer: Peer,
) {
  if (peer.floor === true) {
    const size = (await Deno.stat(output)).size;
    return size === input.bytes
      ? { verified: true, check: `a copy of the input (${size} B)` }
      : { verified: false, check: `wrote ${size} B of the input's ${input.bytes}` };
  }
  const cmp = await compareFiles(reference, output);
  if (cmp.identical) return { verified: true, check: `identical bytes (${cmp.sizeA} B)` };
  const [refLines, outLines] = await Promise.all([countLines(reference), countLines(output)]);
  const where = cmp.firstDifference ?? 0;
  const refLine = (await lineAt(reference, where)).slice(0, 120);
  const outLine = (await lineAt(output, where)).slice(0, 120);
  const header = benchOutputColumns(input.columns, p.mode).length;
  return {
    verified: false,
    check: `bytes differ at offset ${where} (${header} columns; lines ${refLines} vs ${outLines}): ` +
      `bxp-cli '${refLine}' vs '${outLine}'`,
  };
}

/**
 * Each peer's run on the largest input so far in this run, to predict its next run by scaling with input
 * size. Small inputs would mislead: their time is mostly process start.
 */
type PeerPace = Map<string, { bytes: number; wallMs: number }>;

function predictMs(pace: PeerPace, peer: string, bytes: number): number {
  const seen = pace.get(peer);
  return seen === undefined ? 0 : seen.wallMs * (bytes / seen.bytes);
}

function notePace(pace: PeerPace, peer: string, bytes: number, wallMs: number): void {
  const seen = pace.get(peer);
  if (seen === undefined || bytes > seen.bytes) pace.set(peer, { bytes, wallMs });
  else if (bytes === seen.bytes) seen.wallMs = Math.max(seen.wallMs, wallMs);
}

async function runPoint(
  denoJson: string,
  p: BenchPoint,
  peers: Peer[],
  pace: PeerPace,
  repeatOverride: number | null,
): Promise<PointResult> {
  progress(`${p.id}: preparing input (${p.rows} rows × ${p.cols} columns)`);
  const started = performance.now();
  const input = await prepareInput(`${BENCH_DIR}/data`, { rows: p.rows, cols: p.cols, quoted: p.quoted });
  progress(
    `${p.id}: input ${(input.bytes / 1e6).toFixed(0)} MB ready in ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s`,
  );
  const repeats = repeatOverride ?? repeatsFor(input.bytes, p.id);
  const tracePath = p.variant === "slow-sink" ? `${input.dir}/slow-sink.fifo` : `${input.dir}/trace.bxtb`;
  const reference = `${input.dir}/bxp.out.csv`;
  const result: PointResult = {
    point: p,
    inputBytes: input.bytes,
    bxp: { wallMs: [], cpuMs: [], peakRssKb: null, outputBytes: null, traceBytes: null },
    peers: [],
  };
  // Peers compute the three expressions into CSV: none has bxp's per-row error semantics or writes bxp's
  // JSON layout to compare with, and trace and variant points have nothing comparable.
  const withPeers = p.trace || p.variant !== undefined || p.mode === "errors" || p.mode === "json"
    ? []
    : peers;
  const peerRuns: PeerRuns[] = withPeers.map((peer) => ({
    name: peer.name,
    wallMs: [],
    cpuMs: [],
    peakRssKb: null,
    ...(peer.floor === true ? { floor: true } : {}),
    check: "not run",
    verified: false,
  }));
  const maxRss = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
  // A trace-on point also runs its trace-off twin before each of its runs, an errors point its error-free
  // twin (see PointResult.pairedOff).
  const twin = pairedTwin(p);
  if (twin !== null) result.pairedOff = { wallMs: [], peakRssKb: null };
  try {
    // Runs are interleaved (bxp-cli, then each peer, then again) so drift on a shared machine hits all alike.
    for (let rep = 0; rep < repeats; rep++) {
      const paired = result.pairedOff;
      if (twin !== null && paired !== undefined && paired.error === undefined) {
        const m = await runMeasured(bxpCliSpec(denoJson, input, twin, tracePath));
        const label = twinLabel(p);
        paired.error = failure(m, `bxp-cli (${label})`);
        if (paired.error === undefined) paired.wallMs.push(m.wallMs);
        await removeQuietly(input.outputPath[twin.mode]);
        progress(`${p.id}: bxp-cli ${label} ${paired.error ?? `${(m.wallMs / 1000).toFixed(2)} s`}`);
      }
      if (result.bxp.error === undefined) {
        const sink = p.variant === "slow-sink" ? await startSlowSink(input.dir) : null;
        const m = await runMeasured(bxpCliSpec(denoJson, input, p, tracePath)).finally(() => sink?.settle());
        if (sink !== null) result.bxp.traceBytes = await sink.finished;
        result.bxp.error = failure(m, "bxp-cli", p.mode === "errors" ? 2 : 0);
        if (result.bxp.error === undefined) {
          result.bxp.wallMs.push(m.wallMs);
          result.bxp.cpuMs!.push(m.cpuMs);
          result.bxp.peakRssKb = maxRss(result.bxp.peakRssKb, m.peakRssKb);
          result.bxp.outputBytes = (await Deno.stat(input.outputPath[p.mode])).size;
          if (p.trace) result.bxp.traceBytes = (await Deno.stat(tracePath)).size;
          await Deno.rename(input.outputPath[p.mode], reference);
        }
        await removeQuietly(tracePath);
        progress(`${p.id}: bxp-cli ${result.bxp.error ?? `${(m.wallMs / 1000).toFixed(2)} s`}`);
      }
      for (const [i, peer] of withPeers.entries()) {
        const runs = peerRuns[i];
        if (runs.error !== undefined || runs.skipped !== undefined) continue;
        const predictedMs = predictMs(pace, peer.name, input.bytes);
        if (predictedMs > SLOW_PEER_MS && runs.wallMs.length >= SLOW_PEER_RUNS) continue;
        if (predictedMs > PEER_RUN_BUDGET_MS) {
          runs.skipped =
            `skipped: about ${(predictedMs / 1000).toFixed(0)} s predicted from its time on the largest ` +
            `input so far in this run (budget ${PEER_RUN_BUDGET_MS / 1000} s per run)`;
          runs.check = runs.skipped;
          progress(`${p.id}: ${peer.name} ${runs.skipped}`);
          continue;
        }
        const output = `${input.dir}/peer.out.csv`;
        await removeQuietly(output);
        const m = await runMeasured({
          ...peer.command(p.mode, input.inputPath, output),
          timeoutMs: RUN_TIMEOUT_MS,
        });
        runs.error = failure(m, peer.name);
        if (runs.error === undefined) {
          runs.wallMs.push(m.wallMs);
          runs.cpuMs!.push(m.cpuMs);
          runs.peakRssKb = maxRss(runs.peakRssKb, m.peakRssKb);
          notePace(pace, peer.name, input.bytes, m.wallMs);
          if (rep === 0 && result.bxp.wallMs.length > 0) {
            Object.assign(runs, await checkPeerOutput(reference, output, p, input, peer));
          }
          if (rep === 0 && result.bxp.wallMs.length === 0) {
            runs.check = "bxp-cli failed: nothing to compare with";
          }
        } else {
          runs.check = runs.error;
        }
        await removeQuietly(output);
        progress(`${p.id}: ${peer.name} ${runs.error ?? `${(m.wallMs / 1000).toFixed(2)} s, ${runs.check}`}`);
      }
    }
  } finally {
    await removeQuietly(reference);
    await removeQuietly(input.outputPath[p.mode]);
    await removeQuietly(tracePath);
  }
  result.peers = peerRuns;
  return result;
}

async function runMcpSection(denoJson: string): Promise<McpResult> {
  progress("bxp-mcp: cold start and round trips");
  const demoConfig = await Deno.readTextFile(`${ROOT}/samples/demo/bxp-cli.json`);
  const headers = ["id", "name", "date", "amount"];
  const fields = ["17", "name17", "18.06.2024", "884.10"];
  return await benchMcp({
    argv: [
      Deno.execPath(),
      "run",
      ...entryPointFlags(denoJson, "bxp-mcp"),
      `${ROOT}/${ENTRY_MODULES["bxp-mcp"]}`,
    ],
    floorArgv: [Deno.execPath(), "run", "--no-prompt", `${ROOT}/tools/bench/stdio_echo.ts`],
    cwd: ROOT,
    coldStarts: 7,
    warmupCalls: 100,
    measuredCalls: 1000,
    answerTimeoutMs: 20_000,
    calls: [
      { method: "ping" },
      {
        name: "bxp_eval",
        arguments: { expr: "DATE_CONVERT([date], 'DD.MM.YYYY', 'YYYY-MM-DD')", headers, fields },
      },
      {
        name: "bxp_eval_batch",
        arguments: {
          headers,
          fields,
          exprs: [
            "DATE_CONVERT([date], 'DD.MM.YYYY', 'YYYY-MM-DD')",
            "IF([amount] > 100, 'high', 'low')",
            "[id] & '-' & [name] & '-' & [date]",
          ],
        },
      },
      { name: "bxp_validate", arguments: { config: demoConfig } },
    ],
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string", multiple: true },
      repeat: { type: "string" },
      "no-peers": { type: "boolean", default: false },
      list: { type: "boolean", default: false },
      "write-docs": { type: "boolean", default: false },
      "no-docs": { type: "boolean", default: false },
    },
  });
  if (values.list) {
    for (const p of FULL_POINTS) console.log(p.id);
    for (const p of CONTAINER_POINTS) console.log(p.id);
    for (const s of SPECIAL_SECTIONS) console.log(s);
    return;
  }
  const repeat = values.repeat === undefined ? null : Number(values.repeat);
  if (repeat !== null && (!Number.isInteger(repeat) || repeat < 1)) {
    usage(`--repeat wants a positive integer`);
  }
  const only = values.only?.flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "");
  const known = new Set([
    ...FULL_POINTS.map((p) => p.id),
    ...CONTAINER_POINTS.map((p) => p.id),
    ...SPECIAL_SECTIONS,
  ]);
  const unknown = only?.find((id) => !known.has(id));
  if (unknown !== undefined) usage(`unknown point '${unknown}' (deno task bench --list shows them)`);
  const selected = (id: string) => only === undefined || only.includes(id);
  const wanted = new Set(only ?? (values.quick ? QUICK_POINT_IDS : FULL_POINTS.map((p) => p.id)));
  // A trace-on point is only meaningful beside its trace-off twin, so the twin comes along.
  for (const p of FULL_POINTS) if (wanted.has(p.id) && p.trace) wanted.add(traceBaselineId(p));
  for (const p of FULL_POINTS) {
    if (wanted.has(p.id) && p.variant !== undefined) wanted.add(variantBaselineId(p));
  }
  const points = FULL_POINTS.filter((p) => wanted.has(p.id));
  const containerPoints = CONTAINER_POINTS.filter((p) =>
    only !== undefined ? only.includes(p.id) : !values.quick && CONTAINER_DEFAULT_IDS.includes(p.id)
  );

  const startedAt = new Date();
  const started = performance.now();
  await Deno.mkdir(BENCH_DIR, { recursive: true });
  const denoJson = await Deno.readTextFile(`${ROOT}/deno.json`);
  if (values["write-docs"] && values["no-docs"]) usage("--write-docs and --no-docs exclude each other");
  const found = values["no-peers"] ? { peers: [], missing: [] } : await findPeers(BENCH_DIR);
  const { missing } = found;
  // The copy floor goes last in each round: the goals are ratios to it, so it runs even without peers.
  const peers = [...found.peers, copyFloor()];
  for (const m of missing) progress(`peer ${m.name} missing: ${m.reason}`);

  const results: PointResult[] = [];
  const pace: PeerPace = new Map();
  for (const p of points) results.push(await runPoint(denoJson, p, peers, pace, repeat));
  const containers: ContainerResult[] = [];
  for (const p of containerPoints) {
    containers.push(
      await runContainerPoint(p, {
        benchDir: BENCH_DIR,
        root: ROOT,
        denoJson,
        repeat: repeat ?? CONTAINER_REPEATS,
        progress,
      }),
    );
  }

  let exprRates = null;
  if (selected("expr")) {
    progress("expressions per second, in process");
    exprRates = measureExpressionRates({ rows: 20_000, cols: 16, minMs: values.quick ? 500 : 1500 });
  }
  const mcp = selected("mcp") ? await runMcpSection(denoJson) : null;
  let inlineBounds = null;
  if (selected("mcp")) {
    progress("bxp-mcp: calls answered inline, stressed to their bounds (in process)");
    inlineBounds = measureInlineBounds();
  }
  const browser = selected("browser") && (only !== undefined || !values.quick)
    ? await benchBrowser({ root: ROOT, benchDir: BENCH_DIR, denoJson, progress })
    : null;
  let agentLoop = null;
  if (selected("agent-loop")) {
    progress("agent loop: bxp_simulate on a 1,000-row export through the SDK client");
    agentLoop = await benchAgentLoop({
      argv: [
        Deno.execPath(),
        "run",
        ...entryPointFlags(denoJson, "bxp-mcp"),
        `${ROOT}/${ENTRY_MODULES["bxp-mcp"]}`,
      ],
      workDir: `${BENCH_DIR}/agent-loop`,
    });
    progress(`agent loop: ${agentLoop.ready ? `p50 ${agentLoop.p50Ms.toFixed(0)} ms` : agentLoop.reason}`);
  }
  const mcpHttp = selected("mcp-http")
    ? await runMcpHttpBench({ root: ROOT, denoJson, quick: values.quick && only === undefined, progress })
    : null;
  const ray = selected("ray") && (only !== undefined || !values.quick)
    ? await benchRay({ benchDir: BENCH_DIR, progress })
    : null;

  const run: BenchRun = {
    startedAt,
    totalSeconds: (performance.now() - started) / 1000,
    machine: await machineInfo(),
    quick: values.quick && only === undefined,
    points: results,
    peerVersions: found.peers.map((p) => `${p.name} ${p.version}`),
    missingPeers: missing.map((m) => `${m.name} (${m.reason})`),
    exprRates,
    mcp,
    peakRssSource: (await hasGnuTime())
      ? "GNU time (`/usr/bin/time -v`)"
      : "polling /proc/<pid>/status VmHWM and /proc/<pid>/stat (CPU a lower bound)",
    containers,
    agentLoop,
  };
  const extraSections =
    (inlineBounds === null ? "" : `${renderInlineBoundsSection(inlineBounds).join("\n")}\n`) +
    (browser === null ? "" : renderBrowserSection(browser)) +
    (mcpHttp === null ? "" : `\n${renderMcpHttpSection(mcpHttp).join("\n")}`) +
    (ray === null ? "" : renderRaySection(ray));
  const report = renderReport(run) + extraSections;
  await Deno.writeTextFile(`${BENCH_DIR}/latest.md`, report);
  await Deno.writeTextFile(
    `${BENCH_DIR}/latest.json`,
    JSON.stringify({ ...run, inlineBounds, mcpHttp, browser, ray, goals: checkGoals(run) }, null, 2),
  );
  // Only a whole run speaks for the docs: a subset would replace the figures of every point it skipped.
  const fullRun = !values.quick && only === undefined;
  if ((fullRun || values["write-docs"]) && !values["no-docs"]) {
    const command = ["deno task bench", ...Deno.args].join(" ");
    await writeDocsBlock(DOCS_PATH, docsBlock(run, extraSections, command));
    progress("docs/performance.md: generated block rewritten");
  }
  console.log(report);
  progress(`done in ${run.totalSeconds.toFixed(0)} s; report in .bench/latest.md`);
}

await main();
