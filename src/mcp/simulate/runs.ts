/**
 * The runs a session keeps for reading back: each kept workspace's outputs and trace are served as MCP
 * resources in pages of bounded size, and by run handle through `bxp_read_run`, until the session ends,
 * the run is evicted (at most {@link RunLimits.maxRuns} runs and {@link RunLimits.maxBytes} bytes per
 * session, oldest first) or it goes unused for {@link RunLimits.idleMs}.
 *
 * A run handle (SEP-2567: state a sessionless client carries as an ordinary tool argument) is 128
 * crypto-random bits, base64url, minted when the run is kept. It names nothing on disk, and it is only
 * looked up in the store that minted it, which belongs to one client's server (stdio: the process; HTTP:
 * the remote address's modern server, or one legacy session), so another client's handle is unknown here.
 *
 * URIs: `bxp-sim://<run>/output/<file name, percent-encoded>?page=N` and `bxp-sim://<run>/trace?page=N`
 * (no `page` means page 0). Each page is whole lines of about {@link PAGE_BYTES} bytes; the read answers two
 * items, the page text and a small JSON item saying where the page sits and the next page's URI.
 *
 * @module
 */

import { join } from "../../util/host_path.ts";
import type { ResourceContents, ResourceEntry, ResourceProvider } from "../protocol/mod.ts";
import { writeTraceText } from "./readback.ts";

/** Target size of one resource page. */
export const PAGE_BYTES = 1024 * 1024;

/** How far past a page's nominal end a line break is looked for before cutting mid-line. */
const LINE_SLACK = 64 * 1024;

/** Cap on the trace rendered as text for reading. */
export const MAX_TRACE_TEXT_BYTES = 64 * 1024 * 1024;

/** URI scheme of simulation resources. */
export const SIM_SCHEME = "bxp-sim://";

/** How long a kept run lives without being read (by handle or as a resource). */
export const RUN_IDLE_MS = 30 * 60 * 1000;

/** Bounds on what one session keeps. */
export interface RunLimits {
  maxRuns: number;
  maxBytes: number;
  /** Idle time after which a run is deleted (default {@link RUN_IDLE_MS}). */
  idleMs?: number;
}

/** The parts of a run `bxp_read_run` reads. */
export type RunPart = "output" | "trace" | "report";

/** One page read by handle: `text` holds bytes `[offset, next_offset ?? total_bytes)` of the part. */
export interface RunPage {
  part: RunPart;
  /** The output file's name (part "output"). */
  name?: string;
  /** Where the page starts (the asked offset, moved forward to a UTF-8 character start when inside one). */
  offset: number;
  /** Bytes of text in this page. */
  bytes: number;
  /** Where the next page starts, or null when this page reaches the end. */
  next_offset: number | null;
  total_bytes: number;
  text: string;
}

/** A read by handle that cannot be served, with the reason to tell the caller. */
export interface RunReadRefusal {
  error: string;
}

/** Handles remembered after their run is gone, so a late read is told why (bounded). */
const MAX_TOMBSTONES = 256;

const HANDLE_PATTERN = /^bxr_[A-Za-z0-9_-]{22}$/;

/**
 * A fresh run handle: `bxr_` and 16 crypto-random bytes in base64url (22 characters).
 *
 * @example
 * ```ts
 * import { newRunHandle } from "./runs.ts";
 * import assert from "node:assert/strict";
 * assert.equal(/^bxr_[A-Za-z0-9_-]{22}$/.test(newRunHandle()), true);
 * ```
 */
export function newRunHandle(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `bxr_${btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
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
  /** The full report as JSON (part "report"), once written. */
  reportPath?: string | null;
}

/** A kept run with what the store adds. */
interface StoredRun extends KeptRun {
  handle: string;
  lastUsed: number;
}

/**
 * The URI of an output file's page.
 *
 * @example
 * ```ts
 * import { outputUri } from "./runs.ts";
 * import assert from "node:assert/strict";
 * assert.equal(outputUri("t-ab12", "my out.csv"), "bxp-sim://t-ab12/output/my%20out.csv");
 * assert.equal(outputUri("t-ab12", "a.csv", 2), "bxp-sim://t-ab12/output/a.csv?page=2");
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
  readonly #idleMs: number;
  readonly #pageBytes: number;
  readonly #runs: StoredRun[] = [];
  readonly #bounds = new Map<string, Promise<number[]>>();
  readonly #traceText = new Map<string, Promise<string | null>>();
  /** Handles whose run is gone -> why (evicted / expired), oldest first. */
  readonly #gone = new Map<string, string>();
  readonly #log: (message: string) => void;
  readonly #now: () => number;
  #sweeper: ReturnType<typeof setInterval> | null = null;
  #closed = false;

  /**
   * A store with `limits`; `pageBytes` is the resource page size (default {@link PAGE_BYTES}), `now` the
   * clock (tests move it to expire runs).
   */
  constructor(
    limits: RunLimits,
    log: (message: string) => void = () => {},
    pageBytes = PAGE_BYTES,
    now: () => number = Date.now,
  ) {
    this.#limits = limits;
    this.#idleMs = limits.idleMs ?? RUN_IDLE_MS;
    this.#pageBytes = pageBytes;
    this.#log = log;
    this.#now = now;
  }

  /** Ids of the kept runs, oldest first. */
  get ids(): string[] {
    this.#sweep();
    return this.#runs.map((r) => r.id);
  }

  /** How long a run lives unused, in milliseconds. */
  get idleMs(): number {
    return this.#idleMs;
  }

  /**
   * Keep `run`; evicts (and deletes) the oldest runs beyond the bounds. A run larger than the whole byte
   * bound is not kept (and deleted at once). Returns whether `run` was kept ({@link RunStore.handleOf}
   * then names its handle).
   */
  async keep(run: KeptRun): Promise<boolean> {
    await this.#sweepNow();
    if (this.#closed || run.bytes > this.#limits.maxBytes || this.#limits.maxRuns < 1) {
      await removeQuietly(run.dir);
      return false;
    }
    this.#runs.push({ ...run, handle: newRunHandle(), lastUsed: this.#now() });
    await this.#evictOverBounds();
    this.#startSweeper();
    return true;
  }

  /** The handle of the kept run `id`, or null. */
  handleOf(id: string): string | null {
    return this.#runs.find((r) => r.id === id)?.handle ?? null;
  }

  /**
   * Attach the full report (a JSON file inside the run's folder, `bytes` long) to the kept run `id`; the
   * bytes count against the bounds like the outputs (older runs are evicted for them, never this one).
   */
  async attachReport(id: string, path: string, bytes: number): Promise<void> {
    const run = this.#runs.find((r) => r.id === id);
    if (run === undefined) return;
    run.reportPath = path;
    run.bytes += bytes;
    await this.#evictOverBounds(run);
  }

  /** Delete every kept run; later reads answer null and later runs are not kept. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
    const runs = this.#runs.splice(0);
    for (const run of runs) this.#forget(run.id);
    await Promise.all(runs.map((run) => removeQuietly(run.dir)));
  }

  /** One entry per output file and trace of each kept run (page 0). */
  list(): ResourceEntry[] {
    this.#sweep();
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
    await this.#sweepNow();
    const run = this.#runs.find((r) => r.id === target.run);
    if (run === undefined) return null;
    run.lastUsed = this.#now();
    const file = target.kind === "output" ? this.#outputPath(run, target.file) : await this.#traceTextOf(run);
    if (file === null) return null;
    const mimeType = target.kind === "output" ? "text/csv" : "text/plain";
    let bounds: number[];
    try {
      bounds = await this.#boundsOf(file);
    } catch {
      return null;
    }
    const pages = bounds.length - 1;
    if (target.page >= pages) return null;
    const from = bounds[target.page];
    const to = bounds[target.page + 1];
    let bytes: Uint8Array;
    try {
      bytes = await readRange(file, from, to);
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

  /**
   * A page of `part` of the run named by `handle`: at most `maxBytes` bytes from `offset`, ending at a line
   * end when one lies in the page's last half (else at a UTF-8 character start). Every argument is the
   * caller's: an unknown, malformed, expired or evicted handle, an unknown output name or an offset past
   * the end is refused with what to do instead.
   */
  async readByHandle(
    handle: string,
    part: RunPart,
    name: string | null,
    offset: number,
    maxBytes: number,
  ): Promise<RunPage | RunReadRefusal> {
    if (!HANDLE_PATTERN.test(handle)) {
      return {
        error: "'run' is not a run handle: give the 'run' value a bxp_simulate answer returned (bxr_ and " +
          "22 characters)",
      };
    }
    await this.#sweepNow();
    const run = this.#runs.find((r) => r.handle === handle);
    if (run === undefined) {
      const gone = this.#gone.get(handle);
      return {
        error: gone !== undefined
          ? `the run ${gone}; simulate again for a new handle`
          : "unknown run handle: this server never issued it to this client (handles belong to the client " +
            "that ran the simulation, and end with its server or session); simulate again for a new handle",
      };
    }
    run.lastUsed = this.#now();
    let file: string | null;
    if (part === "output") {
      const names = run.outputs.map((o) => o.name);
      if (name === null) {
        if (names.length !== 1) {
          return {
            error: `'name' is needed: the run has ${names.length} output files (${listNames(names)})`,
          };
        }
        name = names[0];
      }
      file = this.#outputPath(run, name);
      if (file === null) {
        return { error: `the run has no output file '${clip(name)}'; its outputs: ${listNames(names)}` };
      }
    } else {
      if (name !== null) return { error: "'name' goes with part \"output\" only" };
      file = part === "trace" ? await this.#traceTextOf(run) : run.reportPath ?? null;
      if (file === null) return { error: `the run has no ${part}` };
    }
    let size: number;
    try {
      size = (await Deno.lstat(file)).size;
    } catch {
      return { error: `the run's ${part} is no longer readable; simulate again` };
    }
    if (offset > size) {
      return { error: `'offset' ${offset} is past the end of the ${part} (${size} bytes); start at 0` };
    }
    const window = await readRange(file, offset, Math.min(size, offset + maxBytes + 3));
    if (!this.#runs.includes(run)) return { error: "the run was evicted while it was read; simulate again" };
    // An offset inside a UTF-8 character (not one this tool handed out) starts at the next character.
    let start = 0;
    while (start < 3 && start < window.length && (window[start] & 0xc0) === 0x80) start++;
    let end = Math.min(window.length, start + maxBytes);
    if (offset + end < size) {
      const nl = window.lastIndexOf(0x0a, end - 1);
      if (nl >= start + Math.floor((end - start) / 2)) end = nl + 1;
      else while (end > start && (window[end] & 0xc0) === 0x80) end--;
    }
    const from = offset + start;
    const to = offset + end;
    return {
      part,
      ...(part === "output" ? { name: name! } : {}),
      offset: from,
      bytes: to - from,
      next_offset: to < size ? to : null,
      total_bytes: size,
      text: new TextDecoder().decode(window.subarray(start, end)),
    };
  }

  #outputPath(run: StoredRun, file: string): string | null {
    const output = run.outputs.find((o) => o.name === file);
    return output === undefined ? null : join(run.dataDir, output.name);
  }

  /** Evict the oldest runs (never `keep`) while the store is over its bounds. */
  async #evictOverBounds(keep?: StoredRun): Promise<void> {
    while (
      this.#runs.length > this.#limits.maxRuns ||
      this.#runs.reduce((sum, r) => sum + r.bytes, 0) > this.#limits.maxBytes
    ) {
      const index = this.#runs.findIndex((r) => r !== keep);
      if (index === -1) break;
      const [old] = this.#runs.splice(index, 1);
      this.#bury(
        old,
        "was evicted to make room for newer runs (a client keeps its last " +
          `${this.#limits.maxRuns} runs, ${Math.round(this.#limits.maxBytes / 1048576)} MiB)`,
      );
      this.#log(`bxp_simulate: evicted kept run ${old.id}`);
      await removeQuietly(old.dir);
    }
  }

  /** Drop the runs unused for longer than the idle time (their folders are removed in the background). */
  #sweep(): void {
    this.#sweepNow().catch(() => {});
  }

  async #sweepNow(): Promise<void> {
    const limit = this.#now() - this.#idleMs;
    const expired = this.#runs.filter((r) => r.lastUsed < limit);
    if (expired.length === 0) return;
    for (const run of expired) {
      this.#runs.splice(this.#runs.indexOf(run), 1); // found by the filter above, in this same turn
      this.#bury(run, `expired: it was not read for ${Math.round(this.#idleMs / 60000)} min`);
      this.#log(`bxp_simulate: kept run ${run.id} expired`);
    }
    await Promise.all(expired.map((run) => removeQuietly(run.dir)));
  }

  /** A timer that removes expired runs from disk even when nobody asks again (it never holds the process). */
  #startSweeper(): void {
    if (this.#sweeper !== null || this.#closed) return;
    const sweeper = setInterval(() => {
      this.#sweep();
      if (this.#runs.length === 0) {
        clearInterval(sweeper);
        this.#sweeper = null;
      }
    }, Math.max(1000, Math.min(60_000, this.#idleMs)));
    Deno.unrefTimer(sweeper);
    this.#sweeper = sweeper;
  }

  #bury(run: StoredRun, why: string): void {
    this.#forget(run.id);
    this.#gone.set(run.handle, why);
    while (this.#gone.size > MAX_TOMBSTONES) this.#gone.delete(this.#gone.keys().next().value!);
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

function listNames(names: readonly string[]): string {
  if (names.length === 0) return "none";
  const shown = names.slice(0, 10).map((n) => JSON.stringify(clip(n))).join(", ");
  return names.length > 10 ? `${shown}, and ${names.length - 10} more` : shown;
}

function clip(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 200)}...`;
}

async function removeQuietly(dir: string): Promise<void> {
  try {
    await Deno.remove(dir, { recursive: true });
  } catch {
    // already gone
  }
}
