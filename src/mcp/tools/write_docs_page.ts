/**
 * Writes `docs/reference/mcp-tools.md` from the tool catalog, formatted the way `deno fmt` keeps it:
 * `deno run --allow-read --allow-write=docs --allow-run src/mcp/tools/write_docs_page.ts`.
 *
 * @module
 */

import { renderToolsPage, TOOLS_PAGE_PATH } from "./docs_page.ts";

/** Run Markdown through `deno fmt` (the project's lineWidth applies), as the committed page is. */
export async function formatMarkdown(markdown: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    cwd: new URL("../../../", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(markdown));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** The page as committed: the rendered catalog, formatted. */
export async function formattedToolsPage(): Promise<string> {
  return await formatMarkdown(renderToolsPage());
}

if (import.meta.main) {
  const target = new URL(`../../../${TOOLS_PAGE_PATH}`, import.meta.url);
  await Deno.mkdir(new URL(".", target), { recursive: true });
  await Deno.writeTextFile(target, await formattedToolsPage());
  console.error(`wrote ${TOOLS_PAGE_PATH}`);
}
