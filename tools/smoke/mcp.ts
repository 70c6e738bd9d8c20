/**
 * The bxp-mcp part of the smoke test, driven by the official MCP SDK client: tools listed, an expression
 * evaluated, a conversion simulated (by the bxp-cli beside bxp-mcp, with a decoy `bxp-cli` first on PATH that
 * would fail loudly), writes outside the root and without `--allow-write` refused, and no process left once
 * the client has closed.
 *
 * @module
 */

import { delimiter, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Program } from "./programs.ts";
import { ChildTransport } from "./transport.ts";
import { processesMentioning } from "./processes.ts";

/** A check's outcome line, and whether it passed. */
export interface Check {
  ok: boolean;
  what: string;
}

/** The folders of one smoke run (all under one uniquely named temporary folder). */
export interface SmokeDirs {
  /** The run's folder. */
  base: string;
  /** The folder's unique base name, which every process the run starts has in its arguments. */
  marker: string;
  /** bxp-mcp's `--root`. */
  root: string;
  /** TMPDIR / TMP / TEMP of bxp-mcp (its simulation scratch space). */
  tmp: string;
  /** Holds the decoy programs put first on PATH. */
  decoy: string;
  /** The file a POSIX decoy creates when it runs. */
  decoyMarker: string;
}

/** A small conversion for bxp_simulate, and its exact output. */
export const SIM_CONFIG = `// bxp smoke test: a small conversion for bxp_simulate.
{
  conversion_templates: {
    smoke: {
      data_dir: ".",
      file_pattern_in: ".csv",
      file_pattern_out: ".csvx",
      input_schema: { $name: "UPPER([Name])", $doubled: "[Amount] * 2" },
      row_rules: [
        { when: "[Amount] > 10", rows: [{ $kind: "'big'" }] },
        { when: "1", rows: [{ $kind: "'small'" }] },
      ],
      output_schema: { name: "$name", doubled: "$doubled", kind: "$kind" },
    },
  },
}
`;
/** The input of the simulation. */
export const SIM_CSV = "Name,Amount\nada,12.5\nbob,3\n";
/** What the simulation must write. */
export const SIM_EXPECTED = "name,doubled,kind\nADA,25,big\nBOB,6,small\n";

/**
 * Put decoys named `bxp-cli` (and `deno`) in `dirs.decoy`: POSIX shell scripts that record that they ran and
 * exit 97; on Windows, where only `.exe` files are found on PATH, a copy of this Deno named `bxp-cli.exe`,
 * which refuses bxp-cli's arguments. Then prove a decoy is what a PATH lookup of `bxp-cli` finds.
 */
export async function makeDecoys(dirs: SmokeDirs, denoPath: string): Promise<Check> {
  await Deno.mkdir(dirs.decoy, { recursive: true });
  if (Deno.build.os === "windows") {
    await Deno.copyFile(denoPath, join(dirs.decoy, "bxp-cli.exe"));
  } else {
    for (const name of ["bxp-cli", "deno"]) {
      const script = `#!/bin/sh\necho "$0 $*" >> '${dirs.decoyMarker}'\n` +
        `echo "smoke decoy: the ${name} on PATH ran instead of the one beside bxp-mcp" >&2\nexit 97\n`;
      await Deno.writeTextFile(join(dirs.decoy, name), script, { mode: 0o755 });
    }
  }
  const out = await new Deno.Command("bxp-cli", {
    args: ["--config", "x.json", "--template", "t"],
    env: { PATH: decoyPath(dirs) },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  let ran = out.code !== 0;
  if (Deno.build.os !== "windows") {
    ran = ran && await exists(dirs.decoyMarker);
    await Deno.remove(dirs.decoyMarker).catch(() => {});
  }
  return {
    ok: ran,
    what: `a decoy bxp-cli first on PATH fails loudly when found by name (exit ${out.code})`,
  };
}

function decoyPath(dirs: SmokeDirs): string {
  return [dirs.decoy, Deno.env.get("PATH") ?? ""].join(delimiter);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

interface ToolAnswer {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A session's client and transport. */
interface Session {
  client: Client;
  transport: ChildTransport;
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
}

async function openSession(mcp: Program, dirs: SmokeDirs, extraArgs: string[]): Promise<Session> {
  const transport = new ChildTransport({
    command: mcp.command,
    args: [...mcp.prefixArgs, "--root", dirs.root, ...extraArgs],
    env: { PATH: decoyPath(dirs), TMPDIR: dirs.tmp, TMP: dirs.tmp, TEMP: dirs.tmp },
  });
  const client = new Client({ name: "bxp-smoke", version: "1.0.0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) =>
    await client.callTool({ name, arguments: args }) as ToolAnswer;
  return { client, transport, call };
}

/**
 * Call a tool that must refuse: refused means an error answer (isError) or a JSON-RPC error (the SDK throws
 * it); both come with the server's words.
 */
async function refusal(s: Session, name: string, args: Record<string, unknown>) {
  try {
    const answer = await s.call(name, args);
    return { refused: answer.isError === true, text: answerText(answer) };
  } catch (error) {
    return { refused: true, text: error instanceof Error ? error.message : String(error) };
  }
}

async function toolNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools() as { tools: { name: string }[] };
  return tools.map((t) => t.name);
}

function answerText(a: ToolAnswer): string {
  return a.content.map((c) => c.text ?? "").join("\n").slice(0, 400);
}

/** Close the client, wait for the server's own exit, and check that nothing of the run is left running. */
async function closeSession(s: Session, dirs: SmokeDirs, checks: Check[]): Promise<void> {
  const pid = s.transport.pid;
  await s.client.close();
  const { status, killed } = await s.transport.closeAndWait(60_000);
  checks.push({
    ok: !killed && status.code === 0,
    what: killed
      ? "bxp-mcp did not exit within 60 s of its input closing (killed)"
      : `bxp-mcp (pid ${pid}) exited by itself with status ${status.code} when the client closed`,
  });
  checks.push({
    ok: !s.transport.heldOpen,
    what: s.transport.heldOpen
      ? "bxp-mcp's stdout/stderr stayed open after it exited: a process it started still holds them"
      : "bxp-mcp's stdout and stderr closed with it",
  });
  checks.push({
    ok: s.transport.strayLines.length === 0,
    what: `stdout held only JSON-RPC messages${
      s.transport.strayLines.length ? `; stray: ${s.transport.strayLines[0].slice(0, 200)}` : ""
    }`,
  });
  // bxp-mcp reports on stderr what goes wrong out of band, such as an evaluation worker that could not start
  // (a worker module missing from a compiled binary, which then evaluates on the session thread).
  const bad = s.transport.stderr.split(/\r?\n/).filter((l) => /worker|error|panic|uncaught|warning/i.test(l));
  checks.push({
    ok: bad.length === 0,
    what: bad.length === 0
      ? "bxp-mcp reported no worker failure, error or warning on stderr"
      : `bxp-mcp reported on stderr: ${bad.join(" | ").slice(0, 600)}`,
  });
  const left = await processesMentioning(dirs.marker);
  checks.push({
    ok: left.length === 0,
    what: left.length === 0
      ? "no process of the run is left (none names its folder)"
      : `processes left behind: ${left.map((p) => `${p.pid} ${p.command.slice(0, 200)}`).join("; ")}`,
  });
}

/**
 * The session with `--allow-write`: tools listed, bxp_eval, bxp_simulate through the sibling bxp-cli, a write
 * inside the root that succeeds and writes outside it that are refused.
 */
export async function writableSession(mcp: Program, dirs: SmokeDirs): Promise<Check[]> {
  const checks: Check[] = [];
  const s = await openSession(mcp, dirs, ["--allow-write"]);
  try {
    const name = s.client.getServerVersion()?.name;
    checks.push({ ok: name === "bxp-mcp", what: `initialize: server '${name}'` });

    const names = await toolNames(s.client);
    const needed = ["bxp_eval", "bxp_simulate", "bxp_write_config"];
    checks.push({
      ok: needed.every((n) => names.includes(n)),
      what: `tools/list: ${names.length} tools, including ${needed.join(", ")}`,
    });

    const evaluated = await s.call("bxp_eval", {
      expr: "[Price] * [Qty]",
      headers: ["Price", "Qty"],
      fields: ["2.5", "4"],
    });
    const value = evaluated.structuredContent?.value;
    checks.push({
      ok: evaluated.isError !== true && value === "10",
      what: `bxp_eval [Price] * [Qty] with 2.5, 4 = ${JSON.stringify(value ?? answerText(evaluated))}`,
    });

    const running = await processesMentioning(dirs.marker);
    checks.push({
      ok: running.some((p) => p.pid === s.transport.pid),
      what: `the process listing sees the running bxp-mcp (pid ${s.transport.pid}) by its folder`,
    });

    const sim = await s.call("bxp_simulate", { config: SIM_CONFIG, template: "smoke", csv: SIM_CSV });
    const report = sim.structuredContent ?? {};
    const outputs = (report.outputs ?? []) as { csv?: string }[];
    const decoyRan = await exists(dirs.decoyMarker);
    checks.push({
      ok: sim.isError !== true && report.status === "ok" && outputs.length === 1 &&
        outputs[0].csv === SIM_EXPECTED && !decoyRan,
      what: `bxp_simulate ran the bxp-cli beside bxp-mcp, not the decoy on PATH: status ${
        JSON.stringify(report.status)
      }, output ${JSON.stringify(outputs[0]?.csv ?? answerText(sim))}${decoyRan ? ", DECOY RAN" : ""}`,
    });

    const inside = await s.call("bxp_write_config", { path: "smoke.json", config: SIM_CONFIG });
    let written = "";
    try {
      written = await Deno.readTextFile(join(dirs.root, "smoke.json"));
    } catch { /* checked below */ }
    checks.push({
      ok: inside.isError !== true && written === SIM_CONFIG,
      what: `bxp_write_config inside the root writes the file verbatim (${answerText(inside).slice(0, 120)})`,
    });

    const targets = ["../outside.json", join(dirs.base, "outside-abs.json")];
    for (const path of targets) {
      const answer = await refusal(s, "bxp_write_config", { path, config: SIM_CONFIG });
      const created = await exists(join(dirs.base, "outside.json")) ||
        await exists(join(dirs.base, "outside-abs.json"));
      checks.push({
        ok: answer.refused && !created,
        what: `bxp_write_config to ${
          JSON.stringify(path)
        } (outside the root) is refused and writes nothing (${answer.text.slice(0, 100)})`,
      });
    }
  } finally {
    await closeSession(s, dirs, checks);
  }
  return checks;
}

/** The session without `--allow-write`: bxp_write_config is not listed, and a call is refused. */
export async function readOnlySession(mcp: Program, dirs: SmokeDirs): Promise<Check[]> {
  const checks: Check[] = [];
  const s = await openSession(mcp, dirs, []);
  try {
    const names = await toolNames(s.client);
    checks.push({
      ok: names.includes("bxp_eval") && !names.includes("bxp_write_config"),
      what: "without --allow-write, tools/list leaves out bxp_write_config",
    });
    const answer = await refusal(s, "bxp_write_config", { path: "nowrite.json", config: SIM_CONFIG });
    const created = await exists(join(dirs.root, "nowrite.json"));
    checks.push({
      ok: answer.refused && /--allow-write/.test(answer.text) && !created,
      what: `without --allow-write, bxp_write_config is refused and writes nothing (${
        answer.text.slice(0, 120)
      })`,
    });
  } finally {
    await closeSession(s, dirs, checks);
  }
  return checks;
}
