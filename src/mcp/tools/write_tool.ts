/**
 * The `bxp_write_config` catalog entry: the one writing tool, listed only with `--allow-write`. Every
 * argument is checked for its type here (a model may send anything), and every answer names paths
 * relative to the project root only.
 *
 * @module
 */

import {
  checkWriteTarget,
  CONFIG_WRITE_RULES,
  overwriteRefusal,
  writeChecked,
  WriteRefusedError,
} from "../security/safe_write.ts";
import { displayPath, PROTECTED_FOLDERS } from "../security/paths.ts";
import type { ToolCall, ToolResult } from "../protocol/mod.ts";
import type { ToolArgs } from "./args.ts";
import { dirname as posixDirname } from "../../util/posix_path.ts";
import { loadToolCore } from "./core_loader.ts";
import { objectSchema, stringProp } from "./schemas.ts";
import { type BxpTool, text, WRITE_TOOL_NAME, writeRefusal, WRITES_DISABLED } from "./tool_kit.ts";

/** A JSON type name for messages ("null", "array", "number", ...). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * The checked arguments of a call, or the failure naming the first bad one: wrong types ("expected a
 * boolean for 'overwrite', got string") and missing required strings.
 */
export function writeArgs(
  args: ToolArgs,
  call: ToolCall,
): { path: string; config: string; overwrite: boolean; createDirs: boolean } | ToolResult {
  // Unknown names are refused by the catalog against the exact inputSchema (it also adds max_bytes).
  const given = args ?? {};
  for (const name of ["path", "config"]) {
    if (!(name in given) || given[name] === undefined) return call.fail(`missing '${name}'`);
    if (typeof given[name] !== "string") {
      return call.fail(`expected a string for '${name}', got ${jsonTypeOf(given[name])}`);
    }
  }
  for (const name of ["overwrite", "create_dirs"]) {
    if (given[name] !== undefined && typeof given[name] !== "boolean") {
      return call.fail(`expected a boolean for '${name}', got ${jsonTypeOf(given[name])}`);
    }
  }
  return {
    path: given.path as string,
    config: given.config as string,
    overwrite: given.overwrite === true,
    createDirs: given.create_dirs === true,
  };
}

/** `bxp_write_config`. */
export const WRITE_TOOL: BxpTool = {
  name: WRITE_TOOL_NAME,
  title: "Write a config file",
  description: "Write a bxp-cli config (JSON5 text, verbatim) to a .json or .json5 file inside the " +
    "project root. Only available when bxp-mcp was started with --allow-write. The config must " +
    "validate with no error first: otherwise nothing is written and the annotated diagnostics come " +
    "back (as bxp_validate gives them). New files are created exclusively; replacing an existing file " +
    "needs overwrite: true, and overwrite: true on a missing file is refused. Never writes through a " +
    "symbolic link or outside the root, never inside version-control or dependency folders (" +
    PROTECTED_FOLDERS.join(", ") + ") at any depth. A replacement keeps the file's permission bits; a " +
    "read-only file (no owner write) is not replaced. A missing parent folder is an error unless " +
    "create_dirs: true, which creates the missing folders one by one (mode 0755 less the umask). A " +
    "config whose data_dir is absolute, starts with ~ or climbs out of the root (relative to the file's " +
    "folder), or whose file patterns, xlsx output_suffix or combined-output id hold a path separator or " +
    "'..', is refused (refused: 'outside-root', naming the template and key). " +
    "Answers {ok:true,action:'created'|'updated',path,bytes}, or " +
    "{ok:false,refused,path,error|diagnostics}; paths are always relative to the project root.",
  inputSchema: {
    ...objectSchema({
      path: stringProp("Target file relative to the project root, ending in .json or .json5."),
      config: stringProp("The full config text (JSON5), written byte for byte as UTF-8; at most 1 MiB."),
      overwrite: {
        type: "boolean",
        description: "Replace an existing file (default false). Refused when the file does not exist.",
      },
      create_dirs: {
        type: "boolean",
        description: "Create missing parent folders (default false: a missing folder is an error).",
      },
    }, ["path", "config"]),
    additionalProperties: false,
  },
  allowStructured: true,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  requiresWrite: true,
  async run(args, call, context) {
    const root = await context.root();
    if (!context.allowWrite || root === null) return call.fail(WRITES_DISABLED);
    const checked = writeArgs(args, call);
    if ("text" in checked) return checked;
    const { path, config, overwrite, createDirs } = checked;
    let shown = displayPath(path);
    const core = await loadToolCore();
    try {
      const target = await checkWriteTarget(root, path, CONFIG_WRITE_RULES);
      shown = displayPath(target.walked.relative);
      const bytes = new TextEncoder().encode(config);
      if (bytes.length > CONFIG_WRITE_RULES.maxBytes) {
        throw new WriteRefusedError(
          "too-large",
          `Config text is ${bytes.length} bytes, over the ${CONFIG_WRITE_RULES.maxBytes}-byte limit.`,
          target.walked.relative,
        );
      }
      const annotated = core.annotateConfig(config, target.walked.relative);
      if (annotated.exitCode !== 0) {
        return {
          text: JSON.stringify({
            ok: false,
            refused: "validation",
            path: target.walked.relative,
            error:
              `Refusing to write ${target.walked.relative}: the config does not validate; nothing was written.`,
            diagnostics: JSON.parse(annotated.json),
          }),
          isError: true,
        };
      }
      // The user's next bxp-cli run in the root may pick this config up (`--template <id>`): it must not
      // lead that run outside the root.
      const escapes = core.outsideRootFindings(config, posixDirname(target.walked.relative));
      if (escapes.length > 0) {
        return {
          text: JSON.stringify({
            ok: false,
            refused: "outside-root",
            path: target.walked.relative,
            error:
              `Refusing to write ${target.walked.relative}: ${escapes[0].message} (at ${escapes[0].path}); ` +
              "nothing was written.",
            findings: escapes.map((d) => ({ path: d.path, message: d.message })),
          }),
          isError: true,
        };
      }
      const refusal = overwriteRefusal(target, overwrite);
      if (refusal !== null) throw refusal;
      const action = await writeChecked(target, bytes, { overwrite, rules: CONFIG_WRITE_RULES, createDirs });
      return text(JSON.stringify({ ok: true, action, path: target.walked.relative, bytes: bytes.length }));
    } catch (error) {
      if (error instanceof WriteRefusedError) return writeRefusal(error);
      // Anything else is an OS error whose raw text names server paths: answer with its code only.
      return writeRefusal(
        new WriteRefusedError(
          "io",
          `Cannot write ${shown} (${errorCode(error)}); nothing was written.`,
          shown,
        ),
      );
    }
  },
};

/** A path-free name for an unexpected error. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^[A-Z0-9_]{2,20}$/.test(code)) return code;
  return error instanceof Error && /^[A-Za-z]{2,40}$/.test(error.name) ? error.name : "I/O error";
}
