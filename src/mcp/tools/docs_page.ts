/**
 * The reference page `docs/reference/mcp-tools.md`, generated from the tool catalog so it cannot drift.
 * Regenerate with `deno run --allow-read --allow-write=docs --allow-run src/mcp/tools/write_docs_page.ts`
 * (it formats {@link renderToolsPage} with `deno fmt`); a test fails while the committed page is out of date.
 *
 * @module
 */

import { BXP_TOOLS, type BxpTool, listedInputSchema } from "./catalog.ts";
import { DEFAULT_MAX_BYTES, MAX_BYTES_CAP } from "./budget.ts";
import { EVAL_TIME_LIMIT_MS } from "./eval_pool.ts";

/** The page's path, relative to the repository root. */
export const TOOLS_PAGE_PATH = "docs/reference/mcp-tools.md";

/** Table cells may not hold a raw `|` or a line break. */
const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

interface PropertySchema {
  type?: string | string[];
  items?: { type?: string; properties?: Record<string, unknown> };
  enum?: unknown[];
  description?: string;
}

/** `string`, `array of string`, `array of {map, key, value}`, ... */
function typeName(schema: PropertySchema): string {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? "any"];
  const items = schema.items;
  const item = items?.type === "object" && items.properties !== undefined
    ? `{${Object.keys(items.properties).join(", ")}}`
    : items?.type ?? "any";
  const named = types.map((t) => t === "array" ? `array of ${item}` : t).join(" or ");
  return schema.enum === undefined ? named : `${named}: ${schema.enum.map((v) => `\`${v}\``).join(", ")}`;
}

function argumentRows(tool: BxpTool): string[] {
  const schema = listedInputSchema(tool);
  const properties = (schema.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) return ["No arguments."];
  return [
    "| Argument | Type | Required | Description |",
    "| --- | --- | --- | --- |",
    ...names.map((name) => {
      const p = properties[name];
      return `| \`${name}\` | ${typeName(p)} | ${required.has(name) ? "yes" : "no"} | ${
        cell(p.description ?? "")
      } |`;
    }),
  ];
}

function answerLine(tool: BxpTool): string {
  if (!tool.allowStructured) return "Answer: text only (never `structuredContent`).";
  if (tool.outputSchema === undefined) {
    return "Answer: text; a single JSON object is also sent as `structuredContent` (no fixed output schema).";
  }
  const members = Object.keys((tool.outputSchema.properties ?? {}) as Record<string, unknown>);
  return `Answer: text plus \`structuredContent\`, validated by its \`outputSchema\` (members: ${
    members.map((m) => `\`${m}\``).join(", ")
  }).`;
}

/**
 * The whole page, from `tools` (default: the catalog).
 *
 * @example
 * ```ts
 * import { renderToolsPage } from "./docs_page.ts";
 * import assert from "node:assert/strict";
 * assert.equal(renderToolsPage().startsWith("# MCP tools (bxp-mcp)"), true);
 * ```
 */
export function renderToolsPage(tools: readonly BxpTool[] = BXP_TOOLS): string {
  const lines = [
    "# MCP tools (bxp-mcp)",
    "",
    "<!-- Generated from src/mcp/tools/catalog.ts by src/mcp/tools/write_docs_page.ts. Do not edit. -->",
    "",
    "The tools the `bxp-mcp` stdio server offers to an agent, in `tools/list` order. A failed call (a " +
    "missing or malformed argument, a host failure) answers `isError: true` with the text `error: <message>`; " +
    'a domain verdict such as `{"ok":false,...}` is a normal answer.',
    "",
    "Every call's arguments are checked against the tool's `inputSchema` before it runs: an unknown " +
    "argument name is refused with the valid names and a did-you-mean, a wrong type is named as such " +
    "(`expected a string for 'expr', got number`), and a top-level `null` counts as absent. Every tool " +
    `also takes \`max_bytes\`, the answer's byte budget (default ${DEFAULT_MAX_BYTES}, at most ` +
    `${MAX_BYTES_CAP}): a larger answer is refused with its size and how to narrow the request. The ` +
    "evaluation tools (`bxp_validate`, `bxp_validate_expr`, `bxp_eval`, `bxp_eval_batch`, " +
    `\`bxp_eval_trace\`) run on a worker thread with a ${EVAL_TIME_LIMIT_MS / 1000} s time limit, and ` +
    "cancelling a call (`notifications/cancelled`) stops its work.",
    "",
    "`path` and `csv_path` arguments are relative to the project root: the `--root` folder, or the " +
    "client's single MCP root when bxp-mcp runs without `--root`; the working directory is never the root.",
    "",
    "Register the server with an MCP client by absolute path, naming the project root:",
    "",
    "```json",
    '{"mcpServers": {"bxp": {"command": "/abs/path/to/bxp-mcp", "args": ["--root", "/abs/project"]}}}',
    "```",
    "",
    "and list its tools from a shell with the MCP Inspector:",
    "",
    "```sh",
    "npx @modelcontextprotocol/inspector --cli /abs/path/to/bxp-mcp --method tools/list",
    "```",
    "",
    "| Tool | Title | Description |",
    "| --- | --- | --- |",
    ...tools.map((t) => `| \`${t.name}\` | ${cell(t.title)} | ${cell(t.description)} |`),
  ];
  for (const tool of tools) {
    lines.push(
      "",
      `## \`${tool.name}\``,
      "",
      cell(tool.description),
      "",
      ...argumentRows(tool),
      "",
      answerLine(tool),
    );
  }
  return lines.join("\n") + "\n";
}
