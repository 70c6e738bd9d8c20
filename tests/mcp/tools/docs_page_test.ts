import assert from "node:assert/strict";
import { renderToolsPage, TOOLS_PAGE_PATH } from "../../../src/mcp/tools/docs_page.ts";
import { formattedToolsPage } from "../../../src/mcp/tools/write_docs_page.ts";
import { BXP_TOOLS, type BxpTool } from "../../../src/mcp/tools/catalog.ts";

const REPO_ROOT = new URL("../../../", import.meta.url);

Deno.test("the committed docs/reference/mcp-tools.md is the generated page", async () => {
  const committed = await Deno.readTextFile(new URL(TOOLS_PAGE_PATH, REPO_ROOT));
  assert.equal(
    committed,
    await formattedToolsPage(),
    "out of date: run deno run --allow-read --allow-write=docs --allow-run src/mcp/tools/write_docs_page.ts",
  );
});

Deno.test("the page has a summary row and a section for every tool, with each argument", () => {
  const page = renderToolsPage();
  for (const tool of BXP_TOOLS) {
    assert.ok(page.includes(`| \`${tool.name}\` | ${tool.title} |`), tool.name);
    assert.ok(page.includes(`## \`${tool.name}\``), tool.name);
    for (const arg of [...Object.keys(tool.inputSchema.properties as object), "max_bytes"]) {
      assert.ok(page.includes(`| \`${arg}\` |`), `${tool.name}.${arg}`);
    }
  }
  assert.match(page, /## `bxp_docs`[^#]*\| `section` \| string: `functions`, `keywords`/);
  assert.match(page, /"args": \["--root", "\/abs\/project"\]/, "the registration example names the root");
  assert.match(page, /## `bxp_eval_trace`[\s\S]*Answer: text only/);
});

Deno.test("the page follows the catalog it is given, and escapes table pipes", () => {
  const extra: BxpTool = { ...BXP_TOOLS[0], name: "bxp_extra", title: "Extra", description: "a | b" };
  const page = renderToolsPage([extra]);
  assert.ok(page.includes("| `bxp_extra` | Extra | a \\| b |"));
  assert.ok(!page.includes("bxp_simulate"));
});
