/**
 * The generated part of `docs/performance.md`: a full bench run rewrites what stands between
 * {@link BEGIN_MARKER} and {@link END_MARKER} (the machine, the versions, the date, a status line per goal,
 * then the report's tables), so no measurement in the docs needs a hand edit. Everything outside the markers
 * is hand-written prose and is kept byte for byte.
 * @module
 */

import { fileURLToPath } from "node:url";
import { type BenchRun, checkGoals, goalLines, renderReport } from "./report.ts";

/** Opens the generated block. */
export const BEGIN_MARKER = "<!-- bench:begin -->";
/** Closes the generated block. */
export const END_MARKER = "<!-- bench:end -->";

/**
 * `doc` with the text between its markers replaced by `block`; throws when the markers are missing, doubled
 * or out of order, so a run never appends a second block or loses the prose.
 *
 * @example
 * ```ts
 * import { spliceBetweenMarkers } from "./docs_block.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   spliceBetweenMarkers("a\n<!-- bench:begin -->\nold\n<!-- bench:end -->\nb\n", "new"),
 *   "a\n<!-- bench:begin -->\n\nnew\n\n<!-- bench:end -->\nb\n",
 * );
 * ```
 */
export function spliceBetweenMarkers(doc: string, block: string): string {
  const count = (marker: string) => doc.split(marker).length - 1;
  for (const marker of [BEGIN_MARKER, END_MARKER]) {
    const n = count(marker);
    if (n !== 1) throw new Error(`expected one '${marker}' in the document, found ${n}`);
  }
  const begin = doc.indexOf(BEGIN_MARKER) + BEGIN_MARKER.length;
  const end = doc.indexOf(END_MARKER);
  if (end < begin) throw new Error(`'${END_MARKER}' comes before '${BEGIN_MARKER}'`);
  return `${doc.slice(0, begin)}\n\n${block.trim()}\n\n${doc.slice(end)}`;
}

/** Markdown headings one level deeper (the report's `##` sit under the docs' `## Last full run`). */
export function demoteHeadings(markdown: string): string {
  return markdown.replace(/^(#{2,5}) /gm, "#$1 ");
}

/** The peers' versions, or why one is missing, for the block's header. */
function versionsLine(run: BenchRun): string {
  const parts = [
    `Deno ${run.machine.deno}`,
    ...run.peerVersions,
    ...run.missingPeers.map((m) => `missing: ${m}`),
  ];
  return parts.join("; ");
}

/**
 * The block a run writes between the markers: who, where, when, the goals, then the report's sections.
 * `command` is how the run was started, so a block written by a subset (`--write-docs`) says so.
 */
export function docsBlock(run: BenchRun, extraSections = "", command = "deno task bench"): string {
  const m = run.machine;
  const when = `${run.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const kind = command === "deno task bench" ? "`deno task bench`, the full run" : `\`${command}\`, a subset`;
  const goals = checkGoals(run);
  const holding = goals.filter((g) => g.holds === true).length;
  const missing = goals.filter((g) => g.holds === null).length;
  return [
    "_Written by the bench (`tools/bench/docs_block.ts`); do not edit by hand, the next full run rewrites " +
    "everything between the markers._",
    "",
    `Run of ${when} (${kind}, ${run.totalSeconds.toFixed(0)} s).`,
    "",
    `- Machine: ${m.cpuModel}, ${m.cpus} CPUs, ${m.memoryGiB.toFixed(0)} GiB RAM, ${m.os}`,
    `- Versions: ${versionsLine(run)}`,
    "",
    "### Status of the performance goals",
    "",
    `${holding} of ${goals.length} hold${missing === 0 ? "" : `, ${missing} not measured in this run`}.`,
    "",
    ...goalLines(goals),
    "",
    demoteHeadings(renderReport(run, { title: false, goals: false }) + extraSections),
  ].join("\n");
}

/** The project's config, whose `fmt` options (line width) the docs are checked with. */
export const DENO_JSON = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** `text` as `deno fmt` writes Markdown here, so `deno fmt --check` passes on the rewritten document. */
export async function formatMarkdown(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", `--config=${DENO_JSON}`, "--ext=md", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (out.code !== 0) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  return new TextDecoder().decode(out.stdout);
}

/** Rewrites the block of the document at `path` (formatted), leaving the rest of it as it was. */
export async function writeDocsBlock(path: string, block: string): Promise<void> {
  const doc = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, spliceBetweenMarkers(doc, await formatMarkdown(block)));
}
