/**
 * What every catalog entry is built from: the entry type, the context handlers get, and the shared
 * argument helpers (config text from `config` or `path`, guarded reads, required strings).
 * Tool entries live in their own modules where they are large (see `simulate_tool.ts`); the one table
 * is `catalog.ts`.
 *
 * @module
 */

import type { ToolCall, ToolResult } from "../protocol/mod.ts";
import type { Simulator } from "../simulate/mod.ts";
import { CONFIG_MAX_BYTES } from "../../config/json5.ts";
import { PathGuardError, type ProjectRoot } from "../security/paths.ts";
import { WriteRefusedError } from "../security/safe_write.ts";
import { rowArgs, stringArg, type ToolArgs } from "./args.ts";
import { type JsonSchema, rowProp, stringProp } from "./schemas.ts";
import type { EvalPool } from "./eval_pool.ts";

export { DEFAULT_MAX_BYTES, MAX_BYTES_CAP } from "./budget.ts";

/** What handlers may use besides their arguments. */
export interface ToolContext {
  /** Runs `bxp_simulate`. */
  simulator: Simulator;
  /**
   * The project root that `path` / `csv_path` arguments are relative to, or null when none is known (then
   * path arguments are refused with guidance). Asked per call: with no `--root`, the root comes from the
   * client's MCP roots, which arrive after `initialize` (legacy) or with the call itself (modern, `call`).
   */
  root(call?: ToolCall): Promise<ProjectRoot | null>;
  /** Whether bxp-mcp was started with `--allow-write` (enables `bxp_write_config`). */
  allowWrite: boolean;
  /** Where the evaluation tools run (default: the thread's shared pool of time-limited workers). */
  evalPool?: EvalPool;
}

/** Largest CSV file `bxp_simulate` reads through `csv_path` (the same bound as an inline message line). */
export const CSV_PATH_MAX_BYTES = 16 * 1024 * 1024;

/** The name of the one writing tool. */
export const WRITE_TOOL_NAME = "bxp_write_config";

/** What a client is told when it calls the writing tool on a server started without `--allow-write`. */
export const WRITES_DISABLED = "Writes are disabled. Start bxp-mcp with --allow-write (and --root DIR for " +
  "the project folder) to enable bxp_write_config.";

/** A call as catalog entries get it: the protocol's call plus the entry's answer terms (registration adds them). */
export interface BxpCall extends ToolCall {
  /** The call's `max_bytes` budget. */
  readonly budget: number;
  /** The entry's `allowStructured`. */
  readonly allowStructured: boolean;
}

/** One catalog entry. */
export interface BxpTool {
  /** Wire name. */
  name: string;
  /** Display name. */
  title: string;
  /** What the tool does and answers, for the model. */
  description: string;
  /** JSON Schema of the arguments (bxp's names and types). */
  inputSchema: JsonSchema;
  /** JSON Schema of the structured answer, where its shape is fixed. */
  outputSchema?: JsonSchema;
  /** Whether a single-JSON-object answer is also sent as `structuredContent`. */
  allowStructured: boolean;
  /** MCP tool annotations. */
  annotations: Record<string, boolean>;
  /** Only listed and callable when bxp-mcp runs with `--allow-write`. */
  requiresWrite?: boolean;
  /**
   * Older argument names still accepted: alias -> the argument it stands for (e.g. `{ id: "template" }`).
   * The alias is listed in `inputSchema` too; registration folds it into its target before `run`.
   */
  aliases?: Readonly<Record<string, string>>;
  /**
   * Older shapes still accepted for some arguments: name -> the schema a call's value is checked against
   * instead of the declared one (which `tools/list` shows, kept to what every model API takes). The
   * handler reads every accepted shape.
   */
  accepts?: Readonly<Record<string, JsonSchema>>;
  /** How to get a smaller answer, said when an answer is over its `max_bytes` budget. */
  narrowHint?: string;
  /** The implementation. */
  run(args: ToolArgs, call: BxpCall, context: ToolContext): ToolResult | Promise<ToolResult>;
}

/** Annotations of a tool that only reads. */
export const READ_ONLY = { readOnlyHint: true, openWorldHint: false };
export const CONFIG_ARG = stringProp("The full bxp-cli config text (JSON5). Give this or path.");
/** The failure of a config tool called with neither `config` nor `path`. */
export const MISSING_CONFIG = "missing 'config' (or 'path': a config file under the project root)";
/** The failure of a tool called with neither `csv` nor `csv_path`. */
export const MISSING_CSV = "missing 'csv' (or 'csv_path': a CSV file under the project root)";
export const PATH_ARG = stringProp(
  "Instead of config: the config file's path relative to the project root (bxp-mcp --root), e.g. " +
    "configs/bank.json5. Read through the root guard: no symlinks, no '..' escapes, at most 1 MiB.",
);
export const ROW_HEADERS = rowProp('Optional column header names, e.g. ["Price","Qty"].');
export const ROW_FIELDS = rowProp(
  "Optional field values of the row, parallel to headers; ragged rows are fine.",
);

/**
 * A required string argument, or the tool failure: `missing '<name>'` when absent (or null), `expected a
 * string for '<name>', got <type>` when it is something else.
 */
export function required(args: ToolArgs, call: ToolCall, name: string): string | ToolResult {
  const value = args?.[name];
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return call.fail(`missing '${name}'`);
  return call.fail(`expected a string for '${name}', got ${Array.isArray(value) ? "array" : typeof value}`);
}

/** The row arguments, or the tool failure naming the malformed one. */
export function row(args: ToolArgs, call: ToolCall) {
  try {
    return rowArgs(args);
  } catch (error) {
    return call.fail(error instanceof Error ? error.message : String(error));
  }
}

/** A plain text answer. */
export const text = (value: string): ToolResult => ({ text: value });

/**
 * The config text of a call: inline `config` (answered at once, so a caller can go on without waiting a
 * microtask), or the file at `path` read through the root guard.
 */
export function configText(
  args: ToolArgs,
  call: ToolCall,
  context: ToolContext,
): { text: string; label: string } | ToolResult | Promise<{ text: string; label: string } | ToolResult> {
  const inline = stringArg(args, "config");
  const path = stringArg(args, "path");
  if (inline !== null && path !== null) return call.fail("give either 'config' or 'path', not both");
  if (inline !== null) return { text: inline, label: "<config>" };
  if (path === null) return call.fail(MISSING_CONFIG);
  return readUnderRoot(
    call,
    context,
    path,
    (root) =>
      root.readText(path, { maxBytes: CONFIG_MAX_BYTES, what: "Config" }).then((r) => ({
        text: r.text,
        label: r.relative,
      })),
  );
}

/**
 * Why a path argument cannot be used without a project root, and how to get one. A 2026-07-28 request is
 * told that `--root` is the way: that revision deprecates MCP roots (SEP-2577), so a modern client is not
 * expected to offer one (one that still declares the capability is asked, and answered roots are used).
 *
 * @example
 * ```ts
 * import { noRootMessage } from "./tool_kit.ts";
 * import type { ToolCall } from "../protocol/server.ts";
 * import assert from "node:assert/strict";
 * assert.match(
 *   noRootMessage({ modern: null } as ToolCall, "data/in.csv"),
 *   /^no project root for the path "data\/in\.csv": start bxp-mcp with --root DIR \(the folder /,
 * );
 * ```
 */
export function noRootMessage(call: ToolCall, path: string): string {
  const start = `no project root for the path ${JSON.stringify(path.slice(0, 200))}: start bxp-mcp with ` +
    "--root DIR (the folder path arguments are relative to)";
  return call.modern
    ? `${start}. This is an MCP 2026-07-28 request, and that revision deprecates client roots: its ` +
      "project folder comes from --root. Inline arguments (config, csv) work without a root."
    : `${start}, or use a client that offers exactly one file:// MCP root. Inline arguments (config, csv) ` +
      "work without a root.";
}

/** Run a guarded read; a refusal becomes the tool failure naming the path. */
export async function readUnderRoot<T>(
  call: ToolCall,
  context: ToolContext,
  path: string,
  read: (root: ProjectRoot) => Promise<T>,
): Promise<T | ToolResult> {
  const root = await context.root();
  if (root === null) return call.fail(noRootMessage(call, path));
  try {
    return await read(root);
  } catch (error) {
    if (error instanceof PathGuardError) return call.fail(error.message);
    throw error;
  }
}

/** Whether a helper answered with a tool result (a failure) rather than its value. */
export const isResult = (value: unknown): value is ToolResult =>
  typeof value === "object" && value !== null && "text" in value && !("label" in value) &&
  !("bytes" in value);

/** The JSON answer of a refused write (`isError`), naming the stable reason. */
export function writeRefusal(error: WriteRefusedError): ToolResult {
  return {
    text: JSON.stringify({ ok: false, refused: error.reason, path: error.path, error: error.message }),
    isError: true,
  };
}
