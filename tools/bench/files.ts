/**
 * The bench's files on disk: generated inputs cached under `.bench/data/`, their configs beside them, and
 * streaming comparisons of outputs (multi-gigabyte files are never read whole).
 * @module
 */

import { BENCH_MODES, benchConfigText, type BenchMode, INPUT_SUFFIX, outputSuffix } from "./config.ts";
import {
  DEFAULT_CELL_WIDTH,
  DEFAULT_SEED,
  workloadChunks,
  workloadColumns,
  type WorkloadSpec,
} from "./workload.ts";

/** Bumped whenever the generator's output changes, so stale cached inputs are not reused. */
const GENERATOR_VERSION = 1;

/** A generated input, ready for a run. */
export interface PreparedInput {
  /** Folder holding the input, its configs and (during a run) the outputs. */
  dir: string;
  /** The CSV file. */
  inputPath: string;
  /** Where bxp-cli writes its output for that input, per mode. */
  outputPath: Record<BenchMode, string>;
  /** Size of the input in bytes. */
  bytes: number;
  /** The input's header names. */
  columns: string[];
  /** The config file for each mode. */
  configPath: Record<BenchMode, string>;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Streams the workload to `path` (through a `.partial` file, so an interrupted run never leaves half a file). */
export async function writeWorkloadFile(path: string, spec: WorkloadSpec): Promise<void> {
  const partial = `${path}.partial`;
  const file = await Deno.open(partial, { write: true, create: true, truncate: true });
  try {
    for (const chunk of workloadChunks(spec)) {
      for (let done = 0; done < chunk.length;) done += await file.write(chunk.subarray(done));
    }
  } finally {
    file.close();
  }
  await Deno.rename(partial, path);
}

/**
 * The input for `spec` under `root` (`.bench/data/`), generated on first use and reused afterwards, with a
 * config for each mode written beside it (bxp-cli resolves `data_dir: "."` against the config's folder).
 */
export async function prepareInput(root: string, spec: WorkloadSpec): Promise<PreparedInput> {
  const cellWidth = spec.cellWidth ?? DEFAULT_CELL_WIDTH;
  const seed = spec.seed ?? DEFAULT_SEED;
  const quoted = spec.quoted === true ? "-q" : "";
  const dir = `${root}/g${GENERATOR_VERSION}-r${spec.rows}-c${spec.cols}-w${cellWidth}-s${seed}${quoted}`;
  await Deno.mkdir(dir, { recursive: true });
  const inputPath = `${dir}/input${INPUT_SUFFIX}`;
  if (!(await exists(inputPath))) await writeWorkloadFile(inputPath, { ...spec, cellWidth, seed });
  const columns = workloadColumns(spec.cols);
  const configPath = Object.fromEntries(BENCH_MODES.map((m) => [m, `${dir}/bxp-cli.${m}.json`])) as Record<
    BenchMode,
    string
  >;
  for (const mode of BENCH_MODES) await Deno.writeTextFile(configPath[mode], benchConfigText(columns, mode));
  return {
    dir,
    inputPath,
    outputPath: Object.fromEntries(BENCH_MODES.map((m) => [m, `${dir}/input${outputSuffix(m)}`])) as Record<
      BenchMode,
      string
    >,
    bytes: (await Deno.stat(inputPath)).size,
    columns,
    configPath,
  };
}

/** Removes a file if it is there. */
export async function removeQuietly(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch {
    // already gone
  }
}

/** How two files compare. */
export interface FileComparison {
  identical: boolean;
  /** Byte offset of the first difference (or of the shorter file's end), null when identical. */
  firstDifference: number | null;
  sizeA: number;
  sizeB: number;
}

async function readFull(file: Deno.FsFile, buf: Uint8Array): Promise<number> {
  let filled = 0;
  while (filled < buf.length) {
    const n = await file.read(buf.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return filled;
}

/** Compares two files byte for byte in 1 MiB steps. */
export async function compareFiles(a: string, b: string): Promise<FileComparison> {
  const [fa, fb] = await Promise.all([Deno.open(a), Deno.open(b)]);
  try {
    const sizeA = (await fa.stat()).size;
    const sizeB = (await fb.stat()).size;
    const bufA = new Uint8Array(1 << 20);
    const bufB = new Uint8Array(1 << 20);
    for (let offset = 0;;) {
      const [na, nb] = await Promise.all([readFull(fa, bufA), readFull(fb, bufB)]);
      const n = Math.min(na, nb);
      for (let i = 0; i < n; i++) {
        if (bufA[i] !== bufB[i]) return { identical: false, firstDifference: offset + i, sizeA, sizeB };
      }
      if (na !== nb) return { identical: false, firstDifference: offset + n, sizeA, sizeB };
      if (na === 0) return { identical: true, firstDifference: null, sizeA, sizeB };
      offset += n;
    }
  } finally {
    fa.close();
    fb.close();
  }
}

/** Counts the LF-terminated lines of a file (a row count for quote-free CSV). */
export async function countLines(path: string): Promise<number> {
  const file = await Deno.open(path);
  try {
    const buf = new Uint8Array(1 << 20);
    let lines = 0;
    for (;;) {
      const n = await file.read(buf);
      if (n === null) return lines;
      for (let i = 0; i < n; i++) if (buf[i] === 0x0a) lines++;
    }
  } finally {
    file.close();
  }
}

/** The line around byte `offset` of a file (for saying where two outputs part ways). */
export async function lineAt(path: string, offset: number, maxBytes = 300): Promise<string> {
  const file = await Deno.open(path);
  try {
    const start = Math.max(0, offset - maxBytes);
    await file.seek(start, Deno.SeekMode.Start);
    const buf = new Uint8Array(maxBytes * 2);
    const n = await readFull(file, buf);
    const text = new TextDecoder().decode(buf.subarray(0, n));
    const at = offset - start;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    const lineEnd = text.indexOf("\n", at);
    return text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  } finally {
    file.close();
  }
}
