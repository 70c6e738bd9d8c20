/**
 * Reading a finished run back without loading its outputs: each output file is streamed once for its
 * size, record count and SHA-256 while only its first lines are kept; the BXTB trace is decoded chunk by
 * chunk into the report's summary; the findings file is read with a small cap.
 *
 * @module
 */

import { join } from "../../util/host_path.ts";
import { BXTB_MAGIC, BxtbReader } from "../../trace/bxtb.ts";
import { formatFrame } from "../../trace/view.ts";
import { writeAll } from "../../util/write_all.ts";
import { readFileCapped } from "./capture.ts";
import {
  type Finding,
  LineIndex,
  type OutputFailure,
  type OutputSummary,
  RecordCounter,
  TraceFolder,
  type TraceSummary,
} from "./report.ts";

const CHUNK = 64 * 1024;

/**
 * Stream one file: its size, data records, SHA-256, and its first `headLines` physical lines (at most
 * `headBytes` bytes, cut back to whole lines).
 */
export async function summarizeOutput(
  path: string,
  file: string,
  headLines: number,
  headBytes: number,
): Promise<OutputSummary> {
  // Loaded on first use: node:crypto at startup cost every bxp-mcp session about 20 ms of its cold start.
  const { createHash } = await import("node:crypto");
  const handle = await Deno.open(path, { read: true });
  try {
    const hash = createHash("sha256");
    const counter = new RecordCounter();
    const head = new Uint8Array(headBytes);
    let headUsed = 0;
    let headDone = headLines === 0;
    let linesSeen = 0;
    let bytes = 0;
    const buffer = new Uint8Array(CHUNK);
    while (true) {
      const n = await handle.read(buffer);
      if (n === null) break;
      const chunk = buffer.subarray(0, n);
      bytes += n;
      hash.update(chunk);
      counter.push(chunk);
      if (!headDone) {
        let take = chunk.length;
        for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) {
          if (++linesSeen === headLines) {
            take = at + 1;
            headDone = true;
            break;
          }
        }
        const room = headBytes - headUsed;
        if (take > room) {
          take = room;
          headDone = true;
        }
        head.set(chunk.subarray(0, take), headUsed);
        headUsed += take;
      }
    }
    // Keep whole lines only, unless the head is the whole file.
    let end = headUsed;
    if (headUsed < bytes) {
      const lastNl = head.subarray(0, headUsed).lastIndexOf(0x0a);
      end = lastNl + 1;
    }
    return {
      file,
      records: counter.records,
      bytes,
      sha256: hash.digest("hex"),
      head: new TextDecoder().decode(head.subarray(0, end)),
      complete: end === bytes,
    };
  } finally {
    handle.close();
  }
}

/** The regular files of `dataDir` other than `inputName`, sorted by name. */
export async function listOutputs(dataDir: string, inputName: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dataDir)) {
    if (entry.isFile && entry.name !== inputName) names.push(entry.name);
  }
  return names.sort();
}

/** Summaries of every output file; a file that cannot be read is reported, not thrown. */
export async function readOutputs(
  dataDir: string,
  names: readonly string[],
  headLines: number,
  headBytes: number,
): Promise<(OutputSummary | OutputFailure)[]> {
  const outputs: (OutputSummary | OutputFailure)[] = [];
  for (const file of names) {
    try {
      outputs.push(await summarizeOutput(join(dataDir, file), file, headLines, headBytes));
    } catch (error) {
      const why = error instanceof Deno.errors.NotFound ? "the file disappeared" : "the file cannot be read";
      outputs.push({ file, error: why });
    }
  }
  return outputs;
}

/**
 * Decode the BXTB sidecar chunk by chunk into the trace summary; a missing, empty or foreign file means no
 * trace, and the frames before a damaged one (a crashed run) still count.
 */
export async function readTrace(path: string, input: Uint8Array, sampleLimit: number): Promise<TraceSummary> {
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(path, { read: true });
  } catch {
    return { available: false };
  }
  try {
    const folder = new TraceFolder(new LineIndex(input), sampleLimit);
    const reader = new BxtbReader();
    const buffer = new Uint8Array(CHUNK);
    let first = true;
    while (true) {
      const n = await handle.read(buffer);
      if (n === null) break;
      const chunk = buffer.subarray(0, n);
      if (first) {
        if (n < 4 || new DataView(chunk.buffer, 0, 4).getUint32(0, true) !== BXTB_MAGIC) {
          return { available: false };
        }
        first = false;
      }
      try {
        for (const frame of reader.push(chunk)) folder.add(frame);
      } catch {
        break; // keep what decoded cleanly
      }
    }
    return first ? { available: false } : folder.summary;
  } finally {
    handle.close();
  }
}

/**
 * Write the BXTB trace at `bxtbPath` as text lines (bxtb-view's frame lines) to `textPath`, stopping with a
 * note after `maxBytes`. Returns false when there is no usable trace.
 */
export async function writeTraceText(bxtbPath: string, textPath: string, maxBytes: number): Promise<boolean> {
  let input: Deno.FsFile;
  try {
    input = await Deno.open(bxtbPath, { read: true });
  } catch {
    return false;
  }
  const output = await Deno.open(textPath, { write: true, createNew: true, mode: 0o600 });
  const encoder = new TextEncoder();
  try {
    const reader = new BxtbReader();
    const buffer = new Uint8Array(CHUNK);
    let written = 0;
    let first = true;
    outer: while (true) {
      const n = await input.read(buffer);
      if (n === null) break;
      const chunk = buffer.subarray(0, n);
      if (first && (n < 4 || new DataView(chunk.buffer, 0, 4).getUint32(0, true) !== BXTB_MAGIC)) break;
      first = false;
      let lines = "";
      try {
        for (const frame of reader.push(chunk)) lines += formatFrame(frame) + "\n";
      } catch {
        lines += "[bxp-mcp: the trace is damaged from here on]\n";
        await writeAll(output, encoder.encode(lines));
        break;
      }
      const bytes = encoder.encode(lines);
      if (written + bytes.length > maxBytes) {
        await writeAll(output, encoder.encode(`[bxp-mcp: trace text stops at the ${maxBytes}-byte cap]\n`));
        break outer;
      }
      await writeAll(output, bytes);
      written += bytes.length;
    }
    return !first;
  } finally {
    input.close();
    output.close();
  }
}

/** Largest findings file read back. */
export const MAX_FINDINGS_BYTES = 1024 * 1024;

/** Most findings kept from the file. */
export const MAX_FINDINGS = 1000;

const FINDING_KEYS = ["code", "template", "file", "column", "rule", "record", "message"];

/**
 * bxp-cli's findings (`{"findings":[{code,template,file?,column?,rule?,message}]}`), each reduced to its
 * known members (strings, and `rule` as an integer); an absent, oversized or malformed file gives none.
 */
export async function readFindings(path: string): Promise<Finding[]> {
  let bytes: Uint8Array;
  try {
    bytes = await readFileCapped(path, MAX_FINDINGS_BYTES);
  } catch {
    return [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return [];
  }
  const list = (parsed as { findings?: unknown } | null)?.findings;
  if (!Array.isArray(list)) return [];
  const findings: Finding[] = [];
  for (const item of list.slice(0, MAX_FINDINGS)) {
    if (typeof item !== "object" || item === null) continue;
    const finding: Finding = {};
    for (const key of FINDING_KEYS) {
      const value = (item as Record<string, unknown>)[key];
      if (typeof value === "string") finding[key] = value;
      else if ((key === "rule" || key === "record") && Number.isSafeInteger(value)) {
        finding[key] = value as number;
      }
    }
    findings.push(finding);
  }
  return findings;
}

/** Total bytes of the regular files directly in `dir` except `skip`, plus the files in `extra`. */
export async function folderBytes(dir: string, skip: string, extra: readonly string[]): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name === skip) continue;
    try {
      total += (await Deno.lstat(join(dir, entry.name))).size;
    } catch {
      // removed meanwhile
    }
  }
  for (const path of extra) {
    try {
      total += (await Deno.lstat(path)).size;
    } catch {
      // not written yet
    }
  }
  return total;
}
