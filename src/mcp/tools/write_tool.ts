/**
 * The `bxp_write_config` catalog entry: the one writing tool, listed only with `--allow-write`.
 *
 * @module
 */

import { annotateConfig } from "../../inspect/mod.ts";
import {
  checkWriteTarget,
  CONFIG_WRITE_RULES,
  overwriteRefusal,
  writeChecked,
  WriteRefusedError,
} from "../security/safe_write.ts";
import { objectSchema, stringProp } from "./schemas.ts";
import { type BxpTool, required, text, WRITE_TOOL_NAME, writeRefusal, WRITES_DISABLED } from "./tool_kit.ts";

/** `bxp_write_config`. */
export const WRITE_TOOL: BxpTool = {
  name: WRITE_TOOL_NAME,
  title: "Write a config file",
  description: "Write a bxp-cli config (JSON5 text, verbatim) to a .json or .json5 file inside the " +
    "project root. Only available when bxp-mcp was started with --allow-write. The config must " +
    "validate with no error first: otherwise nothing is written and the annotated diagnostics come " +
    "back (as bxp_validate gives them). New files are created exclusively; replacing an existing file " +
    "needs overwrite: true, and overwrite: true on a missing file is refused. Never writes through a " +
    "symbolic link or outside the root. Answers {ok:true,action:'created'|'updated',path,bytes}, " +
    "or {ok:false,refused,path,error|diagnostics}.",
  inputSchema: objectSchema({
    path: stringProp("Target file relative to the project root, ending in .json or .json5."),
    config: stringProp("The full config text (JSON5), written byte for byte as UTF-8; at most 1 MiB."),
    overwrite: {
      type: "boolean",
      description: "Replace an existing file (default false). Refused when the file does not exist.",
    },
  }, ["path", "config"]),
  allowStructured: true,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  requiresWrite: true,
  async run(args, call, context) {
    const root = await context.root();
    if (!context.allowWrite || root === null) return call.fail(WRITES_DISABLED);
    const path = required(args, call, "path");
    if (typeof path !== "string") return path;
    const config = required(args, call, "config");
    if (typeof config !== "string") return config;
    const overwrite = args?.overwrite ?? false;
    if (typeof overwrite !== "boolean") return call.fail("'overwrite' must be a boolean");
    try {
      const target = await checkWriteTarget(root, path, CONFIG_WRITE_RULES);
      const bytes = new TextEncoder().encode(config);
      if (bytes.length > CONFIG_WRITE_RULES.maxBytes) {
        throw new WriteRefusedError(
          "too-large",
          `Config text is ${bytes.length} bytes, over the ${CONFIG_WRITE_RULES.maxBytes}-byte limit.`,
          target.walked.relative,
        );
      }
      const annotated = annotateConfig(config, target.walked.relative);
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
      const refusal = overwriteRefusal(target, overwrite);
      if (refusal !== null) throw refusal;
      const action = await writeChecked(target, bytes, { overwrite, rules: CONFIG_WRITE_RULES });
      return text(JSON.stringify({ ok: true, action, path: target.walked.relative, bytes: bytes.length }));
    } catch (error) {
      if (error instanceof WriteRefusedError) return writeRefusal(error);
      throw error;
    }
  },
};
