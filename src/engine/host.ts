/**
 * What the conversion engine needs from its surroundings. The engine is pure: the CLI adapter implements
 * these with the real file system and streams; nothing here touches `Deno.*`.
 *
 * @example
 * ```ts
 * import type { EngineFs, Reporter } from "./host.ts";
 * import assert from "node:assert/strict";
 * const said: string[] = [];
 * const quiet: Reporter = { info() {}, warning: (text) => said.push(text), fatal() {}, debug() {} };
 * quiet.warning("warning: a\n");
 * assert.deepEqual(said, ["warning: a\n"]);
 * ```
 * @module
 */

/** An output being written: bytes go to a temporary file beside the target until `commit` renames it. */
export interface StagedOutput {
  /**
   * Appends bytes. May return before they reach the disk, but waits while too much is queued (a slow disk
   * stalls the caller instead of filling memory).
   */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Done writing (no `write` may follow): writes what is buffered and lets go of the write buffers and any
   * file handle; the output stays staged until `commit` or `abort` (an unpacked member waits for its
   * archive's other members, which may be thousands). Optional.
   */
  flush?(): Promise<void>;
  /** Makes the output visible under its final name (atomic rename). */
  commit(): Promise<void>;
  /** Discards everything written; the final name is left untouched. */
  abort(): Promise<void>;
}

/**
 * A file opened for reads at any offset.
 *
 * @example
 * ```ts
 * import type { RandomAccessFile } from "./host.ts";
 * import { MemoryFs } from "./memory_fs.ts";
 * import assert from "node:assert/strict";
 * const fs = new MemoryFs("/p");
 * fs.put("data/book.xlsx", new Uint8Array(100).map((_, i) => i));
 * const file: RandomAccessFile = await fs.openRandomAccess("data/book.xlsx");
 * try {
 *   const tail = await file.read(Math.max(0, file.size - 22), 22);
 *   assert.deepEqual([tail.length, tail[0]], [22, 78]);
 * } finally {
 *   await file.close();
 * }
 * ```
 */
export interface RandomAccessFile {
  /** Size in bytes when opened. */
  readonly size: number;
  /**
   * `length` bytes from `offset` in a fresh array the caller owns (fewer only where the file ends). Reads may
   * overlap in time: each names its own offset.
   */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** Releases the file. */
  close(): Promise<void>;
}

/** How {@link EngineFs.readChunks} may read. */
export interface ReadChunksOptions {
  /** A chunk is valid only until the next one is asked for (its buffer is reused). */
  reuseBuffers?: boolean;
  /** The chunk size the caller would like; a hint an implementation may ignore. */
  chunkBytes?: number;
  /**
   * Where the caller would like the next chunk read: called before each read, it answers a view the chunk
   * may be read into (then yielded as a prefix of that view, which the caller recognises and need not
   * copy). A hint too: an implementation may yield chunks of its own instead.
   */
  into?: () => Uint8Array;
}

/** File system operations, with paths as plain strings. */
export interface EngineFs {
  /**
   * True when every {@link StagedOutput.write} is done with its bytes (copied them, or written them) by the
   * time it returns, so the caller may reuse the array right away (the engine then recycles its output
   * buffers). Default false: written arrays are never touched again.
   */
  readonly writesCopy?: boolean;
  /** Names of the regular files (and links to files) in `dir`, or null when `dir` does not exist. */
  listFiles(dir: string): Promise<string[] | null>;
  /**
   * The file's bytes in chunks (bounded memory). With `reuseBuffers`, a chunk is only valid until the next
   * one is requested (buffers are recycled: fresh memory is slow to come by on some machines); only callers
   * that copy what they keep may ask for it. `chunkBytes` is the chunk size the caller would like (a hint:
   * the block pipeline asks for its block size, so each block is copied from one chunk or two).
   */
  readChunks(path: string, options?: ReadChunksOptions): AsyncIterable<Uint8Array>;
  /** The whole file. Containers no longer use it (see {@link EngineFs.openRandomAccess}). */
  readFile(path: string): Promise<Uint8Array>;
  /**
   * Opens a file for reads at any offset (zip and xlsx containers: the central directory sits at the end,
   * members anywhere), so only the ranges needed are in memory. Close it when done.
   */
  openRandomAccess(path: string): Promise<RandomAccessFile>;
  exists(path: string): Promise<boolean>;
  /** Size in bytes of a file. */
  fileSize(path: string): Promise<number>;
  /**
   * Starts a staged output. With `exclusive`, answers "exists" when the final name is already taken
   * (the `--fresh` rule); the final name is claimed only at commit.
   */
  createOutput(path: string, exclusive: boolean): Promise<StagedOutput | "exists">;
  /** Writes a whole file through a staged output. */
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
  /** Joins path segments the platform's way. */
  join(...parts: string[]): string;
  /**
   * Removes temporary files a killed run left in `dir` (only the implementation's own temp naming, only when
   * their owner is gone) and answers one line per removed file, for the run to report. Optional.
   */
  sweepStaleTemps?(dir: string): Promise<string[]>;
}

/**
 * Where the run's human messages go. Each text is one complete message including its trailing newline,
 * exactly as bxp prints it; the adapter decides on quiet/debug modes and streams.
 */
export interface Reporter {
  /** Informational stdout lines (summaries, progress). */
  info(text: string): void;
  /** Warnings (stderr). */
  warning(text: string): void;
  /** Fatal errors (stderr). */
  fatal(text: string): void;
  /** `--debug` diagnostics (stdout): expression errors, unmatched rows. Only called when debug is on. */
  debug(text: string): void;
}

/**
 * Live counters of a run's main passes, mutated by the engine and read by whoever shows progress (on a timer,
 * so the engine never waits for it): records processed and input bytes reached over the whole run.
 */
export interface ProgressCounters {
  records: number;
  bytes: number;
  /** Bytes of every input file the run will convert (known before the first template starts). */
  totalBytes: number;
  /**
   * Asked between records and between blocks whether the run must stop (a signal came); absent: never.
   * A signal handler cannot run while the engine keeps the thread busy, so the engine asks instead.
   */
  readonly stop?: StopCheck | null;
}

/**
 * Whether the run must stop now. Cheap (a shared-memory flag read): the engine asks once a record. An
 * adapter may end the process itself inside {@link StopCheck.requested} (after removing its temporary
 * files); when it answers true, the engine throws {@link RunStopped}.
 */
export interface StopCheck {
  requested(): boolean;
}

/** Thrown by the engine when its {@link StopCheck} asks it to stop; outputs in progress are aborted. */
export class RunStopped extends Error {
  constructor() {
    super("the run was stopped");
    this.name = "RunStopped";
  }
}

/** Throws {@link RunStopped} when `stop` asks for it (null: never). */
export function checkStop(stop: StopCheck | null | undefined): void {
  if (stop?.requested()) throw new RunStopped();
}
