/**
 * Writes `docs/reference/mcp-tools.md` from the tool catalog:
 * `deno run --allow-write=docs src/mcp/tools/write_docs_page.ts`.
 *
 * @module
 */

import { renderToolsPage, TOOLS_PAGE_PATH } from "./docs_page.ts";

if (import.meta.main) {
  const target = new URL(`../../../${TOOLS_PAGE_PATH}`, import.meta.url);
  await Deno.mkdir(new URL(".", target), { recursive: true });
  await Deno.writeTextFile(target, renderToolsPage());
  console.error(`wrote ${TOOLS_PAGE_PATH}`);
}
