/**
 * The agent-loop point: what an agent waits for when it tries a config on an export, a `bxp_simulate` round
 * trip on a 1,000-row export of the bench workload, sent by the official SDK client
 * (`@modelcontextprotocol/sdk`) to one bxp-mcp over stdio, p50 of 20 calls. A simulation starts a bxp-cli
 * process, so its floor is `deno run` of an empty script, measured in the same run (spawn to exit).
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BENCH_TEMPLATE, benchConfigText, INPUT_SUFFIX } from "./config.ts";
import { median, runMeasured } from "./measure.ts";
import { workloadChunks, workloadColumns } from "./workload.ts";

/** What the agent-loop point found. */
export type AgentLoopResult =
  | { ready: false; reason: string }
  | {
    ready: true;
    rows: number;
    warmupCalls: number;
    /** Each measured `bxp_simulate` round trip, ms. */
    samplesMs: number[];
    p50Ms: number;
    /** Each empty `deno run`, spawn to exit, ms. */
    floorMs: number[];
    floorP50Ms: number;
  };

/** How to run bxp-mcp and how many calls to make. */
export interface AgentLoopOptions {
  /** bxp-mcp's argv (`deno run <bxp-mcp flags> main.ts`). */
  argv: string[];
  /** A scratch folder: the server's cwd and TMPDIR, and the empty script's home. */
  workDir: string;
  rows?: number;
  warmupCalls?: number;
  calls?: number;
  /** Empty `deno run`s for the floor. */
  floorRuns?: number;
}

/** The workload CSV of `rows` × 16 as text (small: about 30 KB per 100 rows). */
export function workloadText(rows: number, cols = 16): string {
  const decoder = new TextDecoder();
  let text = "";
  // Each chunk is a view of a reused buffer: decode it before asking for the next.
  for (const chunk of workloadChunks({ rows, cols })) text += decoder.decode(chunk);
  return text;
}

interface SimulateAnswer {
  isError?: boolean;
  content?: unknown;
  structuredContent?: { ok?: boolean; status?: string; output_records?: number; error?: string };
}

/** Why an answer is not a successful simulation of `rows` rows, or null. */
export function simulateFailure(answer: SimulateAnswer, rows: number): string | null {
  const s = answer.structuredContent;
  if (answer.isError === true || s === undefined || s.ok !== true) {
    return `bxp_simulate failed: ${JSON.stringify(s ?? answer.content).slice(0, 300)}`;
  }
  if (s.status !== "ok") return `bxp_simulate ended '${s.status}'`;
  if (s.output_records !== rows) return `bxp_simulate wrote ${s.output_records} rows, not ${rows}`;
  return null;
}

/** Measures the point. Never throws: a server that does not start or answer comes back `ready: false`. */
export async function benchAgentLoop(opts: AgentLoopOptions): Promise<AgentLoopResult> {
  const rows = opts.rows ?? 1000;
  const warmupCalls = opts.warmupCalls ?? 3;
  const calls = opts.calls ?? 20;
  await Deno.mkdir(opts.workDir, { recursive: true });
  const empty = `${opts.workDir}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  const floorMs: number[] = [];
  for (let i = 0; i < (opts.floorRuns ?? 20); i++) {
    const m = await runMeasured({ argv: [Deno.execPath(), "run", "--no-prompt", empty], cwd: opts.workDir });
    if (m.code !== 0) return { ready: false, reason: `empty deno run exited ${m.code}: ${m.stderr.trim()}` };
    floorMs.push(m.wallMs);
  }
  const args = {
    config: benchConfigText(workloadColumns(16), "3expr"),
    template: BENCH_TEMPLATE,
    csv: workloadText(rows),
    file_name: `export${INPUT_SUFFIX}`,
  };
  const transport = new StdioClientTransport({
    command: opts.argv[0],
    args: opts.argv.slice(1),
    cwd: opts.workDir,
    env: { TMPDIR: opts.workDir, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stderr: "pipe",
  });
  const client = new Client({ name: "bxp-bench-agent-loop", version: "1" });
  const samplesMs: number[] = [];
  try {
    await client.connect(transport);
    for (let i = 0; i < warmupCalls + calls; i++) {
      const started = performance.now();
      const answer = await client.callTool({ name: "bxp_simulate", arguments: args }) as SimulateAnswer;
      const elapsed = performance.now() - started;
      const failure = simulateFailure(answer, rows);
      if (failure !== null) return { ready: false, reason: failure };
      if (i >= warmupCalls) samplesMs.push(elapsed);
    }
  } catch (err) {
    return { ready: false, reason: (err as Error).message };
  } finally {
    await client.close().catch(() => {});
  }
  return {
    ready: true,
    rows,
    warmupCalls,
    samplesMs,
    p50Ms: median(samplesMs),
    floorMs,
    floorP50Ms: median(floorMs),
  };
}
