/**
 * The differential fuzzer's paths: one generated case run through the reference mode of bxp-cli
 * (`BXP_REFERENCE=1`: serial, expressions without fast paths, every field decoded, no verbatim copies) and
 * through every production path, each outcome reduced to what a user sees (exit code, stdout, stderr, every
 * file of the data folder, the BXTB trace, the findings), then compared. A mismatch names the path, the part
 * and its first differing line.
 * @module
 */

import { join } from "node:path";
import { createHash } from "node:crypto";
import { entryArgs } from "../../_support/processes.ts";
import { PlaygroundCore } from "../../../web/core.ts";
import { resultText, ServerProcess } from "../../mcp/_support/server_process.ts";
import type { FuzzCase, TemplateFacts } from "./_generate.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The config's file name in every path's folder (the playground labels its config the same way). */
export const CONFIG_NAME = "config.json";
const TRACE_NAME = "trace.bxtb";
const FINDINGS_NAME = "findings.json";
/** Files the harness itself puts beside the data (not outputs of the run). */
const HARNESS_FILES = new Set([CONFIG_NAME, TRACE_NAME, FINDINGS_NAME]);

/** What one path left behind, reduced to what a user sees. */
export interface Outcome {
  path: string;
  code: number;
  stdout: string;
  stderr: string;
  /** Every file of the data folder after the run (inputs included: a path must not change them). */
  files: Map<string, Uint8Array>;
  trace: Uint8Array | null;
  findings: string | null;
}

/** One difference between the reference and a path. */
export interface Mismatch {
  path: string;
  part: string;
  detail: string;
  /** Both whole texts, for the kept case's MISMATCHES.txt. */
  texts?: { reference: string; path: string };
}

/** A text mismatch: its first differing line, both texts kept. */
function textMismatch(path: string, part: string, reference: string, got: string): Mismatch {
  return { path, part, detail: firstDiff(reference, got), texts: { reference, path: got } };
}

/** The cheap production paths of bxp-cli: environment overrides over a clean environment. */
export function cliPaths(c: FuzzCase): Record<string, Record<string, string>> {
  return {
    default: {},
    serial: { BXP_WORKERS: "0" },
    blocks: {
      BXP_WORKERS: "2",
      BXP_PARALLEL_MIN_BYTES: "1",
      BXP_WORKERS_JOIN_MS: "0",
      BXP_BLOCK_BYTES: String(c.blockBytes),
    },
  };
}

/** The reference mode's environment. */
export const REFERENCE_ENV: Record<string, string> = { BXP_REFERENCE: "1" };

/**
 * The summary's timings vary between runs by nature; they are the only thing normalized (the folder a
 * run happened in is the same relative name on every path, so no path text needs rewriting).
 */
export function normalizeText(text: string): string {
  return text.replace(/time:\d+(\.\d+)?m?s/g, "time:<t>");
}

/** Writes the case's config and files into `dir` (created). */
export async function writeCase(dir: string, c: FuzzCase, only?: readonly string[]): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, CONFIG_NAME), c.config);
  for (const f of c.files) {
    if (only !== undefined && !only.includes(f.name)) continue;
    // A data_dir list's second folder holds some inputs (`more/x.csv`).
    if (f.name.includes("/")) await Deno.mkdir(join(dir, f.name, ".."), { recursive: true });
    await Deno.writeFile(join(dir, f.name), f.bytes);
  }
}

async function readFolder(dir: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const walk = async (sub: string) => {
    for await (const e of Deno.readDir(join(dir, sub))) {
      const rel = sub === "" ? e.name : `${sub}/${e.name}`;
      if (e.isDirectory) await walk(rel);
      else if (!HARNESS_FILES.has(rel)) files.set(rel, await Deno.readFile(join(dir, rel)));
    }
  };
  await walk("");
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function readOrNull(path: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(path);
  } catch {
    return null;
  }
}

/** A clean environment for bxp-cli: nothing of the test's own BXP_* settings leaks in. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ["PATH", "HOME", "TMPDIR"]) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs bxp-cli in `dir` with `args`, stdin from `stdin` (or none). */
export async function runCli(
  dir: string,
  args: string[],
  env: Record<string, string>,
  stdin: Uint8Array | null = null,
): Promise<{ code: number; stdout: Uint8Array; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: entryArgs("bxp-cli", args),
    cwd: dir,
    env: cleanEnv(env),
    clearEnv: true,
    stdin: stdin === null ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== null) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: out.stdout, stderr: decoder.decode(out.stderr) };
}

/** One whole bxp-cli run of the case in `dir` (a fresh copy of the case), as `path`. */
export async function cliOutcome(
  path: string,
  dir: string,
  c: FuzzCase,
  env: Record<string, string>,
  extraArgs: string[] = [],
  only?: readonly string[],
): Promise<Outcome> {
  await writeCase(dir, c, only);
  const r = await runCli(dir, [
    "--config",
    CONFIG_NAME,
    "--trace-file",
    TRACE_NAME,
    "--findings-file",
    FINDINGS_NAME,
    ...extraArgs,
  ], env);
  const findings = await readOrNull(join(dir, FINDINGS_NAME));
  return {
    path,
    code: r.code,
    stdout: normalizeText(decoder.decode(r.stdout)),
    stderr: normalizeText(r.stderr),
    files: await readFolder(dir),
    trace: await readOrNull(join(dir, TRACE_NAME)),
    findings: findings === null ? null : decoder.decode(findings),
  };
}

/** The first line where `a` and `b` differ, shown with its number. */
export function firstDiff(a: string, b: string): string {
  const la = a.split("\n"), lb = b.split("\n");
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) {
      return `line ${i + 1}:\n    reference: ${JSON.stringify(la[i] ?? "<none>")}\n    ${
        "path:".padEnd(10)
      } ${JSON.stringify(lb[i] ?? "<none>")}`;
    }
  }
  return "(same lines; different bytes, e.g. an encoding or a final newline)";
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function bytesDiff(a: Uint8Array, b: Uint8Array): string {
  const text = firstDiff(decoder.decode(a), decoder.decode(b));
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `first differing byte ${i} (sizes ${a.length} / ${b.length}); ${text}`;
}

/** Every file of `files` against the reference's, by name and bytes. */
export function compareFiles(
  path: string,
  ref: Map<string, Uint8Array>,
  got: Map<string, Uint8Array>,
  out: Mismatch[],
): void {
  const names = [...new Set([...ref.keys(), ...got.keys()])].sort();
  for (const name of names) {
    const a = ref.get(name), b = got.get(name);
    if (a === undefined) out.push({ path, part: `file ${name}`, detail: "written only by this path" });
    else if (b === undefined) {
      out.push({ path, part: `file ${name}`, detail: "written only by the reference" });
    } else if (!sameBytes(a, b)) out.push({ path, part: `file ${name}`, detail: bytesDiff(a, b) });
  }
}

/** The whole outcome of a bxp-cli path against the reference's. */
export function compareOutcomes(ref: Outcome, got: Outcome): Mismatch[] {
  const out: Mismatch[] = [];
  const path = got.path;
  if (ref.code !== got.code) out.push({ path, part: "exit code", detail: `${ref.code} vs ${got.code}` });
  if (ref.stdout !== got.stdout) out.push(textMismatch(path, "stdout", ref.stdout, got.stdout));
  if (ref.stderr !== got.stderr) out.push(textMismatch(path, "stderr", ref.stderr, got.stderr));
  compareFiles(path, ref.files, got.files, out);
  if (!sameBytes(ref.trace, got.trace)) {
    out.push({
      path,
      part: "BXTB trace",
      detail: ref.trace && got.trace ? bytesDiff(ref.trace, got.trace) : "present on one side only",
    });
  }
  if (ref.findings !== got.findings) {
    out.push({ path, part: "findings", detail: firstDiff(ref.findings ?? "", got.findings ?? "") });
  }
  return out;
}

// ---------------------------------------------------------------- the playground's core

/** A config diagnostic as bxp-cli prints it: one line ending in the key path it is about. */
const DIAGNOSTIC_LINE = /^(?:error|warning|note|info): .* \(at [^()\n]*\)$/;

/**
 * The browser core (`web/core.ts` over `src/engine/memory_fs.ts`, what `web/worker.ts` runs) in this process. Its
 * log is the run's messages split by level: info is bxp-cli's stdout, warning and fatal its stderr. By
 * design the page shows config diagnostics placed in the editor, not in the log, and does not run a config
 * with errors: so bxp-cli's diagnostic lines are looked up among the core's placed diagnostics instead of
 * its log, and a refused config compares its exit code, outputs (none) and diagnostics, not the log. It
 * writes no BXTB (its trace sink records outcomes for the input table) and no findings file.
 */
export async function playgroundMismatches(c: FuzzCase, ref: Outcome): Promise<Mismatch[]> {
  const path = "playground";
  const core = new PlaygroundCore();
  const result = await core.run(c.config, c.files, 0);
  const out: Mismatch[] = [];
  if (result.exitCode !== ref.code) {
    out.push({ path, part: "exit code", detail: `${ref.code} vs ${result.exitCode}` });
  }
  // The core stages the inputs and reports only what the run wrote; add the inputs back for the comparison.
  const files = new Map<string, Uint8Array>(c.files.map((f) => [f.name, f.bytes]));
  for (const o of result.outputs) files.set(o.path, o.bytes);
  compareFiles(path, ref.files, new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))), out);
  const refLines = ref.stderr.split("\n");
  const diagnostics = refLines.filter((l) => DIAGNOSTIC_LINE.test(l));
  for (const line of diagnostics) {
    if (!result.diagnostics.some((d) => line.includes(d.message))) {
      out.push({
        path,
        part: "diagnostics",
        detail: `bxp-cli printed ${JSON.stringify(line)}; the core has no such`,
      });
    }
  }
  const refused = result.diagnostics.some((d) => d.severity === "error");
  if (refused) return out;
  const info = normalizeText(result.log.filter((l) => l.level === "info").map((l) => l.text).join(""));
  if (info !== ref.stdout) out.push(textMismatch(path, "messages (stdout)", ref.stdout, info));
  const errs = normalizeText(result.log.filter((l) => l.level !== "info").map((l) => l.text).join(""));
  const refErrs = refLines.filter((l) => !DIAGNOSTIC_LINE.test(l)).join("\n");
  if (errs !== refErrs) out.push(textMismatch(path, "messages (stderr)", refErrs, errs));
  return out;
}

// ---------------------------------------------------------------- bxp_simulate through bxp-mcp

/** A bxp-mcp process serving `root`, for several simulate calls. */
export class SimulateServer {
  #next = 10;
  private constructor(readonly server: ServerProcess, readonly root: string) {}

  /** Starts bxp-mcp over `root` and initializes the session. */
  static async start(root: string): Promise<SimulateServer> {
    const server = await ServerProcess.start(["--root", root]);
    await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
    await server.response(1, 120_000);
    return new SimulateServer(server, root);
  }

  /** bxp_simulate of `template` over `csvPath` (both relative to the root); the structured report. */
  async simulate(config: string, template: string, csvPath: string): Promise<Record<string, unknown>> {
    const id = this.#next++;
    await this.server.call(id, "bxp_simulate", { path: config, template, csv_path: csvPath, sample_rows: 0 });
    const msg = await this.server.response(id, 180_000);
    const structured = msg.result?.structuredContent;
    return structured ?? JSON.parse(resultText(msg));
  }

  async close(): Promise<void> {
    try {
      await this.server.close();
    } finally {
      await this.server.dispose();
    }
  }
}

function dataRecords(bytes: Uint8Array): number {
  // The report counts data records of a CSV output as its non-empty lines after the header.
  const lines = decoder.decode(bytes).split("\n").map((l) => l.replace(/\r$/, "")).filter((l) => l !== "");
  return Math.max(0, lines.length - 1);
}

/**
 * bxp_simulate of one template over one input against a reference run of that template over a folder
 * holding only that input: the exit code, and every output's size, SHA-256 (and, for CSV outputs, its
 * record count). The summary text is not compared: the simulation runs bxp-cli in a private workspace,
 * so its paths name that workspace by design.
 */
export async function simulateMismatches(
  server: SimulateServer,
  caseDir: string,
  c: FuzzCase,
  t: TemplateFacts,
): Promise<Mismatch[]> {
  const path = `simulate(${t.id})`;
  const input = t.inputs[0];
  const dir = join(server.root, caseDir);
  const ref = await cliOutcome("reference", join(dir, "ref"), c, REFERENCE_ENV, ["--template", t.id], [
    input,
  ]);
  await writeCase(join(dir, "sim"), c, [input]);
  const report = await server.simulate(`${caseDir}/sim/${CONFIG_NAME}`, t.id, `${caseDir}/sim/${input}`);
  const out: Mismatch[] = [];
  if (report.ok !== true) {
    out.push({ path, part: "report", detail: `not run: ${JSON.stringify(report).slice(0, 400)}` });
    return out;
  }
  if (report.exit_code !== ref.code) {
    out.push({
      path,
      part: "exit code",
      detail: `${ref.code} vs ${report.exit_code}: ${report.diagnostics}`,
    });
  }
  const produced = new Map<string, { bytes: number; sha256: string; records: number }>();
  for (const o of report.outputs as { file: string; bytes: number; sha256: string; records: number }[]) {
    produced.set(o.file, o);
  }
  const refOutputs = [...ref.files].filter(([name]) => name !== input);
  for (const [name, bytes] of refOutputs) {
    const o = produced.get(name);
    if (o === undefined) {
      out.push({ path, part: `file ${name}`, detail: "written only by the reference" });
      continue;
    }
    const sha = createHash("sha256").update(bytes).digest("hex");
    if (o.bytes !== bytes.length || o.sha256 !== sha) {
      out.push({
        path,
        part: `file ${name}`,
        detail: `size/sha256 ${bytes.length}/${sha} vs ${o.bytes}/${o.sha256}`,
      });
    } else if (!name.endsWith(".json") && o.records !== dataRecords(bytes)) {
      out.push({ path, part: `file ${name}`, detail: `records ${dataRecords(bytes)} vs ${o.records}` });
    }
  }
  for (const name of produced.keys()) {
    if (!refOutputs.some(([n]) => n === name)) {
      out.push({ path, part: `file ${name}`, detail: "written only by the simulation" });
    }
  }
  return out;
}

// ---------------------------------------------------------------- the Ray job's partition modes

const BOM = [0xef, 0xbb, 0xbf];

function isRecordLine(line: Uint8Array): boolean {
  return line.length > 1 || (line.length === 1 && line[0] !== 13);
}

/** Records in whole lines, as bxp counts them (the Ray job's `count_records`). */
function countRecords(data: Uint8Array): number {
  let n = 0, at = 0;
  while (at <= data.length) {
    let nl = data.indexOf(10, at);
    if (nl < 0) nl = data.length;
    if (isRecordLine(data.subarray(at, nl))) n++;
    at = nl + 1;
  }
  return n;
}

/** The head (BOM, preamble, header line) and where the records start (the Ray job's `find_body`). */
function findBody(bytes: Uint8Array, headerLine: number): number {
  let pos = BOM.every((b, i) => bytes[i] === b) ? 3 : 0;
  let seen = 0;
  while (seen < headerLine) {
    const nl = bytes.indexOf(10, pos);
    if (nl < 0) return bytes.length;
    if (isRecordLine(bytes.subarray(pos, nl))) seen++;
    pos = nl + 1;
  }
  return pos;
}

/** Byte ranges of whole lines from `start`, about `pieceBytes` each (the Ray job's `cut_pieces`). */
function cutPieces(bytes: Uint8Array, start: number, pieceBytes: number): [number, number][] {
  const cuts = [start];
  let at = start;
  while (at < bytes.length) {
    const target = at + Math.max(1, pieceBytes);
    if (target >= bytes.length) break;
    const nl = bytes.indexOf(10, target - 1);
    const end = nl < 0 ? bytes.length : nl + 1;
    cuts.push(end);
    at = end;
  }
  cuts.push(bytes.length);
  const edges = [...new Set(cuts)].sort((a, b) => a - b);
  return edges.slice(1).map((b, i) => [edges[i], b] as [number, number]).filter(([a, b]) => b > a);
}

type Entry = [string, string, string, string, number];

/** Per (block, key, field) the write of the highest record (the Ray job's `merge_entries`). */
function mergeEntries(pieces: Entry[][]): Entry[] {
  const best = new Map<string, Entry>();
  for (const entries of pieces) {
    for (const e of entries) {
      const k = JSON.stringify(e.slice(0, 3));
      const seen = best.get(k);
      if (seen === undefined || seen[4] <= e[4]) best.set(k, e);
    }
  }
  return [...best.values()].sort((a, b) => a[4] - b[4]);
}

const b64 = (s: string) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));
const toB64 = (bytes: Uint8Array) => {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * One template driven as `integrations/ray/bxp_ray.py` drives it (plan, record counts, pre_pass per piece
 * merged with the later record winning, convert per piece, outputs framed from the plan's header, separator
 * and trailer, then the summary), every piece a real bxp-cli process, against a reference run of that
 * template over the same folder: output bytes, exit code, stdout and stderr. A refusal by the plan (JSON
 * input) is not a mismatch: the job refuses too, loudly.
 */
export async function partitionMismatches(
  workDir: string,
  c: FuzzCase,
  t: TemplateFacts,
  pieceBytes: number,
): Promise<Mismatch[]> {
  const path = `partition(${t.id}, ~${pieceBytes} B pieces)`;
  const ref = await cliOutcome("reference", join(workDir, "ref"), c, REFERENCE_ENV, ["--template", t.id]);
  const dir = join(workDir, "part");
  await writeCase(dir, c);
  const base = ["--config", CONFIG_NAME, "--template", t.id];
  const names = c.files.map((f) => f.name);
  const planRun = await runCli(
    dir,
    ["--partition-plan", ...base],
    {},
    encoder.encode(JSON.stringify({ names })),
  );
  const out: Mismatch[] = [];
  if (planRun.code !== 0) {
    if (ref.code === 1) return out; // a config the run refuses too
    out.push({ path, part: "plan", detail: `exit ${planRun.code}: ${planRun.stderr.slice(0, 400)}` });
    return out;
  }
  const plan = JSON.parse(decoder.decode(planRun.stdout));
  const header = b64(plan.header_b64), separator = b64(plan.separator_b64), trailer = b64(plan.trailer_b64);
  const outputs = new Map<string, Uint8Array>();
  const combined: Uint8Array[] = [header];
  let combinedAny = false;
  const summaryFiles: unknown[] = [];
  for (const item of plan.inputs as { name: string; output: string }[]) {
    const bytes = c.files.find((f) => f.name === item.name)!.bytes;
    const body = findBody(bytes, plan.header_line);
    const head = bytes.subarray(0, body);
    await Deno.writeFile(join(dir, "head.bin"), head);
    // Every piece is three bxp-cli processes: at most about six pieces a file keeps a case affordable.
    const ranges = cutPieces(bytes, body, Math.max(pieceBytes, Math.ceil((bytes.length - body) / 6)));
    const counts = ranges.map(([a, b]) => countRecords(bytes.subarray(a, b)));
    const firsts: number[] = [];
    let total = 0;
    for (const n of counts) {
      firsts.push(total + 1);
      total += n;
    }
    const pieceArgs = (
      i: number,
    ) => ["--file", item.name, "--head", "head.bin", "--first-record", String(firsts[i])];
    const lookupArgs: string[] = [];
    let writes: unknown[] | null = null;
    if (plan.prepass) {
      const entries: Entry[][] = [];
      writes = [];
      for (let i = 0; i < ranges.length; i++) {
        const r = await runCli(
          dir,
          ["--partition-prepass", ...base, ...pieceArgs(i)],
          {},
          bytes.subarray(...ranges[i]),
        );
        if (r.code !== 0) {
          // A sum over a non-number stops the piece as it stops the run (exit 1): compare that verdict.
          if (ref.code !== 1) {
            out.push({
              path,
              part: `prepass piece ${i} of ${item.name}`,
              detail: `exit ${r.code}: ${r.stderr}`,
            });
          }
          return out;
        }
        const piece = JSON.parse(decoder.decode(r.stdout));
        entries.push(piece.entries);
        writes.push(piece.writes);
      }
      // As the job: every piece's list when a block aggregates (bxp-cli adds them up), else merged first.
      const lists = plan.prepass_aggregate ? entries : [mergeEntries(entries)];
      await Deno.writeTextFile(join(dir, "lookups.json"), JSON.stringify(lists));
      lookupArgs.push("--lookups", "lookups.json");
    }
    const parts: Uint8Array[] = [header];
    let any = false;
    const stats: unknown[] = [];
    for (let i = 0; i < ranges.length; i++) {
      const r = await runCli(
        dir,
        ["--partition-convert", ...base, ...pieceArgs(i), "--stats-file", "stats.json", ...lookupArgs],
        {},
        bytes.subarray(...ranges[i]),
      );
      if (r.code !== 0) {
        // A fatal record stops a piece as it stops the run: compare that verdict, not bytes.
        if (ref.code !== 1) {
          out.push({
            path,
            part: `convert piece ${i} of ${item.name}`,
            detail: `exit ${r.code}: ${r.stderr}`,
          });
        }
        return out;
      }
      const st = JSON.parse(await Deno.readTextFile(join(dir, "stats.json")));
      if (st.records !== counts[i]) {
        out.push({
          path,
          part: `piece ${i} of ${item.name}`,
          detail: `records ${st.records} vs ${counts[i]}`,
        });
      }
      if (st.rows_written > 0) {
        if (any) parts.push(separator);
        parts.push(r.stdout);
        any = true;
        if (combinedAny) combined.push(separator);
        combined.push(r.stdout);
        combinedAny = true;
      }
      stats.push(st);
    }
    parts.push(trailer);
    outputs.set(item.output, concat(parts));
    summaryFiles.push({
      name: item.name,
      head_b64: toB64(head),
      sample_b64: toB64(bytes.subarray(0, plan.utf8_sample_bytes)),
      output: `./${item.output}`,
      dir: ".",
      pieces: stats,
      ...(writes === null ? {} : { prepass_writes: writes }),
    });
  }
  if (plan.combined_name !== null && plan.inputs.length > 0) {
    combined.push(trailer);
    outputs.set(plan.combined_name, concat(combined));
  }
  const request = {
    dir: ".",
    files: summaryFiles,
    combined: plan.combined_name !== null && plan.inputs.length > 0 ? `./${plan.combined_name}` : null,
    own_outputs: plan.own_outputs,
  };
  const summary = await runCli(
    dir,
    ["--partition-summary", ...base, "--elapsed-ms", "0"],
    {},
    encoder.encode(JSON.stringify(request)),
  );
  if (summary.code !== ref.code) {
    out.push({
      path,
      part: "exit code",
      detail: `${ref.code} vs ${summary.code}: ${summary.stderr.slice(0, 400)}`,
    });
  }
  const stdout = normalizeText(decoder.decode(summary.stdout)), stderr = normalizeText(summary.stderr);
  if (stdout !== ref.stdout) out.push(textMismatch(path, "stdout", ref.stdout, stdout));
  if (stderr !== ref.stderr) out.push(textMismatch(path, "stderr", ref.stderr, stderr));
  // The job writes outputs only on exit 0 or 2; the inputs stay as they are.
  if (summary.code !== 1) {
    const refOut = new Map([...ref.files].filter(([n]) => !names.includes(n)));
    compareFiles(path, refOut, outputs, out);
  }
  return out;
}
