/**
 * Messages between the page and the core worker. Every request carries an `id`; the worker answers with
 * the same `id` and either `result` or `error`.
 * @module
 */

import type { RecordExplanation, RecordOutcome } from "../src/explain/mod.ts";

/** An input file the user loaded. */
export interface InputFile {
  name: string;
  bytes: Uint8Array;
}

/** A diagnostic placed in the config text (`from`/`to` are character offsets into it). */
export interface PlacedDiagnostic {
  severity: "error" | "warning" | "info";
  code: string;
  message: string;
  path: string;
  line: number;
  col: number;
  from: number;
  to: number;
  suggest?: string;
}

/** A function of the expression language, for completion and hover docs. */
export interface FunctionInfo {
  name: string;
  signature: string;
  description: string;
  example: string;
}

/** A config key of the schema table, for completion and hover docs. */
export interface KeyInfo {
  key: string;
  type_name: string;
  description: string;
  default: string | null;
  enum_values: readonly string[] | null;
}

/** The record outcomes the input filter offers; `errors` marks records with expression errors. */
export type OutcomeFilter = RecordOutcome | "errors";

/** One input record in the run's input table. */
export interface InputRow {
  recordNum: number;
  fields: string[];
  outcome: RecordOutcome;
  errors: number;
  /** Output rows the record produced. */
  written: number;
}

/** One input file a template read during the run. */
export interface InputTable {
  template: string;
  /** The path the engine read (relative to the config folder, as bxp-cli names it). */
  path: string;
  file: string;
  names: string[];
  rows: InputRow[];
  total: number;
  counts: Record<RecordOutcome | "errors", number>;
}

/** A file the run wrote. */
export interface OutputFile {
  /** Path relative to the config folder. */
  path: string;
  name: string;
  bytes: Uint8Array;
}

/** A run's result. */
export interface RunResult {
  diagnostics: PlacedDiagnostic[];
  /** The messages bxp-cli would print, in order. */
  log: { level: "info" | "warning" | "fatal"; text: string }[];
  outputs: OutputFile[];
  inputs: InputTable[];
  exitCode: number;
  rowsIn: number;
  rowsOut: number;
  ms: number;
}

/** One traced call of the scratchpad's expression. */
export interface TraceCall {
  fn: string;
  /** Character offsets into the expression. */
  from: number;
  to: number;
  value: string;
}

/** The scratchpad's result. */
export interface TraceResult {
  calls: TraceCall[];
  value: string | null;
  error: { error: string; detail: string; from: number; to: number } | null;
}

/** What the page asks. */
export type Request =
  | { id: number; kind: "catalog" }
  | { id: number; kind: "validate"; config: string }
  | { id: number; kind: "run"; config: string; files: InputFile[]; rowLimit: number }
  | { id: number; kind: "explain"; template: string; path: string; recordNum: number }
  | { id: number; kind: "trace"; expr: string; headers: string[]; fields: string[] };

/** The worker's answers, by request kind. */
export interface Answers {
  catalog: { functions: FunctionInfo[]; keys: KeyInfo[] };
  validate: PlacedDiagnostic[];
  run: RunResult;
  explain: RecordExplanation | null;
  trace: TraceResult;
}

/** The envelope of an answer. */
export type Response =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string };
