/**
 * The reference page `docs/reference/mcp-tools.md`, generated from the tool catalog so it cannot drift.
 * Regenerate with `deno run --allow-read --allow-write=docs --allow-run src/mcp/tools/write_docs_page.ts`
 * (it formats {@link renderToolsPage} with `deno fmt`); a test fails while the committed page is out of date.
 *
 * @module
 */

import { BXP_TOOLS, type BxpTool } from "./catalog.ts";

/** The page's path, relative to the repository root. */
export const TOOLS_PAGE_PATH = "docs/reference/mcp-tools.md";

/** Table cells may not hold a raw `|` or a line break. */
const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

interface PropertySchema {
  type?: string | string[];
  items?: { type?: string };
  description?: string;
}

function typeName(schema: PropertySchema): string {
  if (schema.type === "array") return `array of ${schema.items?.type ?? "any"}`;
  return Array.isArray(schema.type) ? schema.type.join(" or ") : schema.type ?? "any";
}

function argumentRows(tool: BxpTool): string[] {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set((tool.inputSchema.required ?? []) as string[]);
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
 * renderToolsPage().startsWith("# MCP tools (bxp-mcp)"); // true
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
    "Register the server with an MCP client by absolute path:",
    "",
    "```json",
    '{"mcpServers": {"bxp": {"command": "/abs/path/to/bxp-mcp"}}}',
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
