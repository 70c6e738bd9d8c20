/**
 * Discovery tools: what is under the project root and what an input file looks like, so an agent need not
 * guess paths or dialects.
 *
 * - `bxp_list_files` walks the root (bounded, never following a link, skipping version-control and
 *   dependency folders) and lists configs and data files with size and modification time, optionally
 *   filtered by a small safe glob.
 * - `bxp_peek_csv` reads the first MiB of one file through the root guard and reports the dialect the
 *   sniffer detects (encoding, delimiter, decimal separator, quote, header line and column names) with the
 *   first records, decoded by the repository's own CSV reader, as a run would read them.
 *
 * @module
 */

import { parseEncoding } from "../../formats/encoding.ts";
import { PathGuardError, PROTECTED_FOLDERS } from "../security/paths.ts";
import { MAX_DEPTH, MAX_VISITED, walkTree } from "../security/tree_walk.ts";
import type { ToolCall, ToolResult } from "../protocol/mod.ts";
import type { ToolArgs } from "./args.ts";
import { compileGlob, GlobError, MAX_GLOB_LENGTH } from "./glob.ts";
import { loadToolCore } from "./core_loader.ts";
import { answerSchema, integerProp, objectSchema, stringProp } from "./schemas.ts";
import { type BxpTool, isResult, READ_ONLY, readUnderRoot } from "./tool_kit.ts";

/** Default and hard maximum of `bxp_list_files`'s `limit`. */
export const LIST_LIMIT_DEFAULT = 200;
/** Hard maximum of `bxp_list_files`'s `limit`. */
export const LIST_LIMIT_MAX = 2000;
/** Bytes `bxp_peek_csv` reads from the start of a file. */
export const PEEK_BYTES = 1024 * 1024;
/** Default and hard maximum of `bxp_peek_csv`'s `rows`. */
export const PEEK_ROWS_DEFAULT = 10;
/** Hard maximum of `bxp_peek_csv`'s `rows`. */
export const PEEK_ROWS_MAX = 100;
/** Longest field (in characters) `bxp_peek_csv` shows whole; longer ones are cut with a marker. */
export const PEEK_FIELD_CHARS = 200;

/** File kinds by extension (lower case, with the dot). */
const KINDS: Readonly<Record<string, string>> = {
  ".json5": "config",
  ".json": "json",
  ".csv": "csv",
  ".tsv": "csv",
  ".txt": "csv",
  ".tab": "csv",
  ".psv": "csv",
  ".dat": "csv",
  ".xlsx": "xlsx",
  ".xlsm": "xlsx",
  ".zip": "zip",
  ".bxtb": "trace",
};

/**
 * The kind of a file name: `config` (.json5), `json` (a config or JSON data), `csv` (.csv .tsv .txt .tab
 * .psv .dat), `xlsx`, `zip`, `trace` (.bxtb), else `other`.
 *
 * @example
 * ```ts
 * import { fileKind } from "./discovery_tools.ts";
 * import assert from "node:assert/strict";
 * assert.equal(fileKind("in/Statement.CSV"), "csv");
 * ```
 */
export function fileKind(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = name.lastIndexOf(".");
  return dot > 0 ? KINDS[name.slice(dot)] ?? "other" : "other";
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

/** An optional argument of `type`, or the failure naming it ("expected an integer for 'limit', got string"). */
function optional<T>(
  args: ToolArgs,
  call: ToolCall,
  name: string,
  type: "string" | "integer",
): T | undefined | ToolResult {
  const value = args?.[name];
  if (value === undefined || value === null) return undefined;
  const ok = type === "integer" ? Number.isInteger(value) : typeof value === "string";
  if (!ok) {
    return call.fail(
      `expected ${type === "integer" ? "an integer" : "a string"} for '${name}', got ${typeName(value)}`,
    );
  }
  return value as T;
}

/** A bounded integer argument with a default. */
function boundedInt(
  args: ToolArgs,
  call: ToolCall,
  name: string,
  fallback: number,
  max: number,
): number | ToolResult {
  const value = optional<number>(args, call, name, "integer");
  if (value === undefined) return fallback;
  if (typeof value !== "number") return value;
  if (value < 1 || value > max) return call.fail(`'${name}' must be between 1 and ${max}, got ${value}`);
  return value;
}

const LIST_FILE_SCHEMA = objectSchema({
  path: stringProp("Relative to the project root, '/'-separated."),
  kind: { type: "string", enum: ["config", "json", "csv", "xlsx", "zip", "trace", "other"] },
  size: integerProp("Bytes."),
  modified: { type: ["string", "null"], description: "Last modification, ISO 8601 UTC." },
}, ["path", "kind", "size", "modified"]);

/** `bxp_list_files`. */
export const LIST_FILES_TOOL: BxpTool = {
  name: "bxp_list_files",
  title: "List files under the project root",
  description: "List config and data files under the project root (bxp-mcp --root): .json5 configs, " +
    ".json, CSV-like (.csv .tsv .txt .tab .psv .dat), .xlsx, .zip and .bxtb traces, each with its " +
    "relative path, kind, size and modification time, in path order. 'glob' filters by relative path " +
    "('*' and '?' within a folder name, '**' for any folders, e.g. 'data/**/*.csv'); with a glob every " +
    "matching regular file is listed whatever its extension. Symbolic links are never followed (listed " +
    `under skipped), and ${PROTECTED_FOLDERS.join(", ")} folders are skipped. Bounded: at most 'limit' ` +
    `files (default ${LIST_LIMIT_DEFAULT}, at most ${LIST_LIMIT_MAX}), ${MAX_VISITED} entries visited and ` +
    `${MAX_DEPTH} folder levels (a larger folder is not read past the entry budget); 'truncated' and ` +
    "'note' say when the list is incomplete and why. Use the paths as " +
    "'path' or 'csv_path' of the other tools.",
  inputSchema: objectSchema({
    glob: stringProp(`Optional filter on the relative path (at most ${MAX_GLOB_LENGTH} characters).`),
    limit: {
      type: "integer",
      minimum: 1,
      maximum: LIST_LIMIT_MAX,
      description: `Most files listed (default ${LIST_LIMIT_DEFAULT}).`,
    },
  }),
  outputSchema: answerSchema({
    files: { type: "array", items: LIST_FILE_SCHEMA },
    count: integerProp("Files listed."),
    truncated: {
      type: ["string", "null"],
      enum: ["limit", "max-visited", null],
      description:
        "Why the list is incomplete: 'limit' (more files match) or 'max-visited'; null when complete.",
    },
    visited: integerProp("Entries looked at."),
    skipped: {
      type: "array",
      items: objectSchema({
        path: stringProp(),
        reason: {
          type: "string",
          enum: ["symlink", "protected-folder", "not-regular", "too-deep", "changed", "unreadable"],
        },
      }, ["path", "reason"]),
      description: "Entries not listed or not entered (the first 100).",
    },
    skipped_count: integerProp("All skipped entries."),
    note: stringProp("When truncated: what was cut and how to see the rest."),
  }, ["files", "count", "truncated", "visited", "skipped", "skipped_count"]),
  allowStructured: true,
  annotations: READ_ONLY,
  async run(args, call, context) {
    const glob = optional<string>(args, call, "glob", "string");
    if (glob !== undefined && typeof glob !== "string") return glob;
    const limit = boundedInt(args, call, "limit", LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX);
    if (typeof limit !== "number") return limit;
    let accept: (path: string) => boolean = (path) => fileKind(path) !== "other";
    if (glob !== undefined) {
      try {
        accept = compileGlob(glob);
      } catch (error) {
        if (error instanceof GlobError) return call.fail(error.message);
        throw error;
      }
    }
    const root = await context.root();
    if (root === null) {
      return call.fail("bxp_list_files needs a project root (start bxp-mcp with --root DIR)");
    }
    try {
      const walked = await walkTree(root, { accept, limit });
      const note = walked.truncated === "max-visited"
        ? `the walk stopped after ${MAX_VISITED} entries (a folder with more entries is read only up to ` +
          "there, and what it lists is not the first names in order): the list is incomplete. Move " +
          "inputs into smaller folders, or look at one file by path."
        : walked.truncated === "limit"
        ? `more files match than 'limit' (${limit}): raise limit (at most ${LIST_LIMIT_MAX}) or narrow 'glob'.`
        : null;
      return {
        text: JSON.stringify({
          files: walked.files.map((f) => ({ ...f, kind: fileKind(f.path) })),
          count: walked.files.length,
          truncated: walked.truncated,
          visited: walked.visited,
          skipped: walked.skipped,
          skipped_count: walked.skippedCount,
          ...(note === null ? {} : { note }),
        }),
      };
    } catch (error) {
      if (error instanceof PathGuardError) return call.fail(error.message);
      throw error;
    }
  },
};

/** A field for display: at most {@link PEEK_FIELD_CHARS} characters, longer ones cut with a marker. */
export function clipField(value: string): string {
  const chars = [...value];
  if (chars.length <= PEEK_FIELD_CHARS) return value;
  return `${chars.slice(0, PEEK_FIELD_CHARS).join("")}…[+${chars.length - PEEK_FIELD_CHARS} chars]`;
}

const DELIMITERS = [",", ";", "\t", "|"];

/** `bxp_peek_csv`. */
export const PEEK_CSV_TOOL: BxpTool = {
  name: "bxp_peek_csv",
  title: "Peek at a CSV file",
  description: "Look at a CSV-like file under the project root before writing a config for it: reads " +
    `the first ${PEEK_BYTES / 1024 / 1024} MiB through the root guard (no links, no '..') and answers the ` +
    "detected encoding, delimiter, decimal separator, thousands grouping, quote, the header line (as " +
    "csv_header_line counts it: among non-empty lines) after any preamble, the column names and kinds, " +
    `and the first 'rows' records (default ${PEEK_ROWS_DEFAULT}, at most ${PEEK_ROWS_MAX}) decoded as a ` +
    `run would read them; fields over ${PEEK_FIELD_CHARS} characters are cut with a '…[+N chars]' ` +
    "marker. At most the first 10000 records and 512 columns are examined (columns_total gives the " +
    "header's width; a note says what was cut). 'config_settings' holds the matching config keys. " +
    "'notes' lists ambiguities to check. " +
    "'encoding' / 'delimiter' force a choice instead of detecting it.",
  inputSchema: objectSchema({
    path: stringProp("The file, relative to the project root (e.g. from bxp_list_files)."),
    rows: {
      type: "integer",
      minimum: 1,
      maximum: PEEK_ROWS_MAX,
      description: `Records to show (default ${PEEK_ROWS_DEFAULT}).`,
    },
    encoding: stringProp("Force an input encoding instead of detecting it (e.g. windows-1250)."),
    delimiter: stringProp("Force a delimiter instead of detecting it: one of , ; | or a tab."),
  }, ["path"]),
  outputSchema: answerSchema({
    path: stringProp(),
    size: integerProp("The file's size in bytes."),
    bytes_read: integerProp(),
    truncated: { type: "boolean", description: "Only the first part of the file was read." },
    encoding: stringProp(),
    bom: { type: "boolean" },
    delimiter: stringProp(),
    quote: { type: "string", enum: ["none", "single", "double"] },
    decimal_separator: { type: "string", enum: [".", ","] },
    thousands: stringProp(),
    header_line: integerProp("As csv_header_line counts it (1-based among non-empty lines)."),
    header_physical_line: integerProp("1-based line of the header in the file."),
    preamble_lines: integerProp(),
    columns_total: integerProp("The header's field count; only the first 512 are in columns and records."),
    columns: {
      type: "array",
      items: objectSchema({
        name: stringProp(),
        index: integerProp(),
        kind: stringProp(),
        format: stringProp("bxp date format of a date column."),
      }, ["name", "index", "kind"]),
    },
    records: { type: "array", items: { type: "array", items: { type: "string" } } },
    data_records: integerProp("Data records in the part read."),
    footer_lines: integerProp(),
    config_settings: { type: "object" },
    notes: { type: "array", items: { type: "string" } },
  }, ["path", "encoding", "delimiter", "quote", "decimal_separator", "header_line", "columns", "records"]),
  allowStructured: true,
  annotations: READ_ONLY,
  async run(args, call, context) {
    const path = args?.path;
    if (path === undefined || path === null) return call.fail("missing 'path'");
    if (typeof path !== "string") return call.fail(`expected a string for 'path', got ${typeName(path)}`);
    const kind = fileKind(path);
    if (kind === "xlsx" || kind === "zip" || kind === "trace") {
      return call.fail(
        `bxp_peek_csv reads CSV-like text; ${path.slice(0, 200)} is a ${kind} file (bxp_simulate reads it)`,
      );
    }
    const rows = boundedInt(args, call, "rows", PEEK_ROWS_DEFAULT, PEEK_ROWS_MAX);
    if (typeof rows !== "number") return rows;
    const encoding = optional<string>(args, call, "encoding", "string");
    if (encoding !== undefined && typeof encoding !== "string") return encoding;
    if (encoding !== undefined && parseEncoding(encoding) === null) {
      return call.fail(`'encoding' ${JSON.stringify(encoding.slice(0, 40))} is not one bxp reads`);
    }
    const delimiter = optional<string>(args, call, "delimiter", "string");
    if (delimiter !== undefined && typeof delimiter !== "string") return delimiter;
    if (delimiter !== undefined && !DELIMITERS.includes(delimiter)) {
      return call.fail("'delimiter' must be one of , ; | or a tab character");
    }
    const read = await readUnderRoot(
      call,
      context,
      path,
      (root) => root.readHead(path, { maxBytes: PEEK_BYTES, what: "CSV" }),
    );
    if (isResult(read)) return read;
    const core = await loadToolCore();
    const s = core.sniffCsv(read.bytes, {
      maxRecords: rows,
      maxBytes: PEEK_BYTES,
      ...(encoding === undefined ? {} : { encoding }),
      ...(delimiter === undefined ? {} : { delimiter }),
    });
    const notes = [...s.notes];
    if (read.truncated) {
      notes.push(`only the first ${PEEK_BYTES} of ${read.size} bytes were read; counts cover that part`);
    }
    return {
      text: JSON.stringify({
        path: read.relative,
        size: read.size,
        bytes_read: read.bytes.length,
        truncated: read.truncated || s.truncated,
        encoding: s.encoding,
        bom: s.bom,
        delimiter: s.delimiter,
        quote: s.quote,
        decimal_separator: s.decimalSeparator,
        thousands: s.thousands,
        header_line: s.headerLine,
        header_physical_line: s.headerPhysicalLine,
        preamble_lines: s.preambleLines,
        columns_total: s.columnsTotal,
        columns: s.columns.map((c) => ({
          name: clipField(c.name),
          index: c.index,
          kind: c.kind,
          ...(c.format === undefined ? {} : { format: c.format }),
        })),
        records: s.records.slice(0, rows).map((record) => record.map(clipField)),
        data_records: s.dataRecords,
        footer_lines: s.footerLines,
        config_settings: {
          csv_input_encoding: s.encoding,
          csv_delimiter_in: s.delimiter,
          csv_text_quote_in: s.quote,
          csv_decimal_separator_in: s.decimalSeparator,
          csv_header_line: s.headerLine,
        },
        notes,
      }),
    };
  },
};

/** The discovery entries of the catalog, in listing order. */
export const DISCOVERY_TOOLS: readonly BxpTool[] = [LIST_FILES_TOOL, PEEK_CSV_TOOL];
