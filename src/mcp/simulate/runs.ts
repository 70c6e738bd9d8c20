/**
 * The runs a session keeps for reading back: each kept workspace's outputs and trace are served as MCP
 * resources in pages of bounded size, until the session ends or the run is evicted (at most
 * {@link RunLimits.maxRuns} runs and {@link RunLimits.maxBytes} bytes per session, oldest first).
 *
 * URIs: `bxp-sim://<run>/output/<file name, percent-encoded>?page=N` and `bxp-sim://<run>/trace?page=N`
 * (no `page` means page 0). Each page is whole lines of about {@link PAGE_BYTES} bytes; the read answers two
 * items, the page text and a small JSON item saying where the page sits and the next page's URI.
 *
 * @module
 */

import { join } from "../../util/host_path.ts";
import type { ResourceContents, ResourceEntry, ResourceProvider } from "../protocol/resources.ts";
import { writeTraceText } from "./readback.ts";

/** Target size of one resource page. */
export const PAGE_BYTES = 1024 * 1024;

/** How far past a page's nominal end a line break is looked for before cutting mid-line. */
const LINE_SLACK = 64 * 1024;

/** Cap on the trace rendered as text for reading. */
export const MAX_TRACE_TEXT_BYTES = 64 * 1024 * 1024;

/** URI scheme of simulation resources. */
export const SIM_SCHEME = "bxp-sim://";

/** Bounds on what one session keeps. */
export interface RunLimits {
  maxRuns: number;
  maxBytes: number;
}

/** One kept run. */
export interface KeptRun {
  /** The workspace folder's name, used in URIs. */
  id: string;
  /** The workspace folder. */
  dir: string;
  /** Folder holding the outputs. */
  dataDir: string;
  /** Output file names and sizes. */
  outputs: { name: string; bytes: number }[];
  /** The BXTB trace, or null when the run left none. */
  tracePath: string | null;
  /** Bytes the run holds on disk. */
  bytes: number;
}

/**
 * The URI of an output file's page.
 *
 * @example
 * ```ts
 * outputUri("t-ab12", "my out.csv"); // "bxp-sim://t-ab12/output/my%20out.csv"
 * outputUri("t-ab12", "a.csv", 2); // "bxp-sim://t-ab12/output/a.csv?page=2"
 * ```
 */
export function outputUri(run: string, file: string, page = 0): string {
  return `${SIM_SCHEME}${run}/output/${encodeURIComponent(file)}${page === 0 ? "" : `?page=${page}`}`;
}

/** The URI of a trace page. */
export function traceUri(run: string, page = 0): string {
  return `${SIM_SCHEME}${run}/trace${page === 0 ? "" : `?page=${page}`}`;
}

/** What a URI names, or null when it is not a well-formed simulation URI. */
export function parseSimUri(
  uri: string,
):
  | { run: string; kind: "output"; file: string; page: number }
  | { run: string; kind: "trace"; page: number }
  | null {
  if (typeof uri !== "string" || uri.length > 2048) return null;
  const m =
    /^bxp-sim:\/\/([A-Za-z0-9_-]{1,128})\/(?:output\/([^?#/]{1,1024})|trace)(?:\?page=(0|[1-9][0-9]{0,6}))?$/
      .exec(uri);
  if (m === null) return null;
  const page = m[3] === undefined ? 0 : Number(m[3]);
  if (m[2] === undefined) return { run: m[1], kind: "trace", page };
  let file: string;
  try {
    file = decodeURIComponent(m[2]);
  } catch {
    return null;
  }
  return { run: m[1], kind: "output", file, page };
}

/**
 * Page boundaries of a file of `size` bytes: page k starts at the first line start at or after k×PAGE_BYTES
 * (a line break is looked for up to 64 KiB further; failing that the cut is moved back to a UTF-8 character
 * start). The last entry is `size`.
 */
async function pageBounds(path: string, size: number, pageBytes: number): Promise<number[]> {
  const bounds = [0];
  if (size === 0) return [0, 0];
  const file = await Deno.open(path, { read: true });
  try {
    const window = new Uint8Array(LINE_SLACK);
    for (let nominal = pageBytes; nominal < size; nominal += pageBytes) {
      const start = Math.max(0, nominal - 4);
      await file.seek(start, Deno.SeekMode.Start);
      const n = (await file.read(window)) ?? 0;
      const seen = window.subarray(0, n);
      const nl = seen.indexOf(0x0a, nominal - 1 - start);
      let cut = nominal;
      if (nl !== -1) {
        cut = start + nl + 1;
      } else {
        // No line break nearby: cut at the nominal end, moved back to the start of a UTF-8 character.
        let at = nominal - start;
        while (at > 0 && at < n && (seen[at] & 0xc0) === 0x80 && nominal - cut < 3) {
          at--;
          cut--;
        }
      }
      if (cut > bounds[bounds.length - 1] && cut < size) bounds.push(cut);
    }
  } finally {
    file.close();
  }
  bounds.push(size);
  return bounds;
}

async function readRange(path: string, from: number, to: number): Promise<Uint8Array> {
  const file = await Deno.open(path, { read: true });
  try {
    await file.seek(from, Deno.SeekMode.Start);
    const out = new Uint8Array(to - from);
    let at = 0;
    while (at < out.length) {
      const n = await file.read(out.subarray(at));
      if (n === null) break;
      at += n;
    }
    return out.subarray(0, at);
  } finally {
    file.close();
  }
}

/**
 * The runs kept by one session, and the {@link ResourceProvider} reading them. Unknown, evicted or
 * malformed URIs read as null.
 */
export class RunStore implements ResourceProvider {
  readonly #limits: RunLimits;
  readonly #pageBytes: number;
  readonly #runs: KeptRun[] = [];
  readonly #bounds = new Map<string, Promise<number[]>>();
  readonly #traceText = new Map<string, Promise<string | null>>();
  readonly #log: (message: string) => void;
  #closed = false;

  /** A store with `limits`; `pageBytes` is the page size (default {@link PAGE_BYTES}). */
  constructor(limits: RunLimits, log: (message: string) => void = () => {}, pageBytes = PAGE_BYTES) {
    this.#limits = limits;
    this.#pageBytes = pageBytes;
    this.#log = log;
  }

  /** Ids of the kept runs, oldest first. */
  get ids(): string[] {
    return this.#runs.map((r) => r.id);
  }

  /**
   * Keep `run`; evicts (and deletes) the oldest runs beyond the bounds. A run larger than the whole byte
   * bound is not kept (and deleted at once). Returns whether `run` was kept.
   */
  async keep(run: KeptRun): Promise<boolean> {
    if (this.#closed || run.bytes > this.#limits.maxBytes || this.#limits.maxRuns < 1) {
      await removeQuietly(run.dir);
      return false;
    }
    this.#runs.push(run);
    while (
      this.#runs.length > this.#limits.maxRuns ||
      this.#runs.reduce((sum, r) => sum + r.bytes, 0) > this.#limits.maxBytes
    ) {
      const old = this.#runs.shift()!;
      this.#forget(old.id);
      this.#log(`bxp_simulate: evicted kept run ${old.id}`);
      await removeQuietly(old.dir);
    }
    return true;
  }

  /** Delete every kept run; later reads answer null and later runs are not kept. */
  async close(): Promise<void> {
    this.#closed = true;
    const runs = this.#runs.splice(0);
    for (const run of runs) this.#forget(run.id);
    await Promise.all(runs.map((run) => removeQuietly(run.dir)));
  }

  /** One entry per output file and trace of each kept run (page 0). */
  list(): ResourceEntry[] {
    const entries: ResourceEntry[] = [];
    for (const run of this.#runs) {
      for (const output of run.outputs) {
        entries.push({
          uri: outputUri(run.id, output.name),
          name: `${run.id}/${output.name}`,
          title: `Simulated output ${output.name}`,
          mimeType: "text/csv",
          size: output.bytes,
        });
      }
      if (run.tracePath !== null) {
        entries.push({
          uri: traceUri(run.id),
          name: `${run.id}/trace`,
          title: "Simulation trace (one line per BXTB frame)",
          mimeType: "text/plain",
        });
      }
    }
    return entries;
  }

  /** A page of an output or trace; null for anything unknown. */
  async read(uri: string): Promise<ResourceContents[] | null> {
    const target = parseSimUri(uri);
    if (target === null) return null;
    const run = this.#runs.find((r) => r.id === target.run);
    if (run === undefined) return null;
    let path: string;
    let mimeType: string;
    if (target.kind === "output") {
      const output = run.outputs.find((o) => o.name === target.file);
      if (output === undefined) return null;
      path = join(run.dataDir, output.name);
      mimeType = "text/csv";
    } else {
      const text = await this.#traceTextOf(run);
      if (text === null) return null;
      path = text;
      mimeType = "text/plain";
    }
    let bounds: number[];
    try {
      bounds = await this.#boundsOf(path);
    } catch {
      return null;
    }
    const pages = bounds.length - 1;
    if (target.page >= pages) return null;
    const from = bounds[target.page];
    const to = bounds[target.page + 1];
    let bytes: Uint8Array;
    try {
      bytes = await readRange(path, from, to);
    } catch {
      return null;
    }
    if (!this.#runs.includes(run)) return null; // evicted while reading
    const at = (page: number) =>
      target.kind === "output" ? outputUri(run.id, target.file, page) : traceUri(run.id, page);
    const info = {
      page: target.page,
      pages,
      from_byte: from,
      to_byte: to,
      total_bytes: bounds[pages],
      next: target.page + 1 < pages ? at(target.page + 1) : null,
    };
    return [
      { uri, mimeType, text: new TextDecoder().decode(bytes) },
      { uri, mimeType: "application/json", text: JSON.stringify(info) },
    ];
  }

  #boundsOf(path: string): Promise<number[]> {
    let bounds = this.#bounds.get(path);
    if (bounds === undefined) {
      bounds = Deno.lstat(path).then((info) => pageBounds(path, info.size, this.#pageBytes));
      bounds.catch(() => this.#bounds.delete(path));
      this.#bounds.set(path, bounds);
    }
    return bounds;
  }

  #traceTextOf(run: KeptRun): Promise<string | null> {
    if (run.tracePath === null) return Promise.resolve(null);
    let text = this.#traceText.get(run.id);
    if (text === undefined) {
      const path = join(run.dir, "trace.txt");
      text = writeTraceText(run.tracePath, path, MAX_TRACE_TEXT_BYTES).then((ok) => ok ? path : null)
        .catch(() => null);
      this.#traceText.set(run.id, text);
    }
    return text;
  }

  #forget(id: string): void {
    this.#traceText.delete(id);
    for (const key of [...this.#bounds.keys()]) {
      if (key.includes(`/${id}/`)) this.#bounds.delete(key);
    }
  }
}

async function removeQuietly(dir: string): Promise<void> {
  try {
    await Deno.remove(dir, { recursive: true });
  } catch {
    // already gone
  }
}
