/** The committed reference pages are exactly what the code's tables generate (run `deno task docs`). */

import assert from "node:assert/strict";
import { ANNOTATION_COLUMNS, mcpToolAnnotationsPage, referencePages } from "../../tools/reference_docs.ts";
import { BXP_TOOLS } from "../../src/mcp/tools/catalog.ts";
import { FUNCTIONS } from "../../src/lang/mod.ts";
import { CONFIG_SCHEMA } from "../../src/config/schema.ts";

Deno.test("docs/reference pages are up to date with the registry, schema, flag and tool tables", async () => {
  for (const [name, text] of Object.entries(referencePages())) {
    const committed = await Deno.readTextFile(new URL(`../../docs/reference/${name}`, import.meta.url));
    assert.equal(committed, text, `docs/reference/${name} is stale: run \`deno task docs\``);
  }
});

Deno.test("the expressions page lists every function and the schema page every key", () => {
  const pages = referencePages();
  for (const f of FUNCTIONS) assert.ok(pages["expressions.md"].includes(`| \`${f.name}(`), f.name);
  for (const f of CONFIG_SCHEMA) assert.ok(pages["config-schema.md"].includes(`| \`${f.key}\` |`), f.key);
});

Deno.test("the annotations page has one row per catalog tool, each cell its annotation or the MCP default", () => {
  const rows = new Map(
    mcpToolAnnotationsPage().split("\n").filter((l) => l.startsWith("| `bxp_"))
      .map((l) => l.split("|").slice(1, -1).map((c) => c.trim()))
      .map(([tool, ...cells]) => [tool.replace(/^`(\w+)`( \*)?$/, "$1"), cells]),
  );
  assert.deepEqual([...rows.keys()], BXP_TOOLS.map((t) => t.name));
  for (const tool of BXP_TOOLS) {
    const cells = rows.get(tool.name)!;
    ANNOTATION_COLUMNS.forEach((column, i) => {
      const set = tool.annotations[column.hint];
      const want = typeof set === "boolean"
        ? (set ? "yes" : "no")
        : tool.annotations.readOnlyHint === true && column.hint !== "openWorldHint"
        ? "–"
        : `(${column.default ? "yes" : "no"})`;
      assert.equal(cells[i], want, `${tool.name} ${column.title}`);
    });
  }
  // The catalog's two writing tools are told apart from the readers.
  assert.deepEqual(rows.get("bxp_write_config"), ["no", "yes", "yes", "no"]);
  assert.deepEqual(rows.get("bxp_simulate"), ["no", "no", "yes", "no"]);
  assert.ok(mcpToolAnnotationsPage().includes("| `bxp_write_config` * |"));
});

Deno.test("the annotations page follows the catalog it is given", () => {
  const page = mcpToolAnnotationsPage([{
    ...BXP_TOOLS[0],
    name: "bxp_x",
    annotations: { openWorldHint: true },
  }]);
  assert.ok(page.includes("| `bxp_x` | (no) | (yes) | (no) | yes |"), page);
  assert.ok(!page.includes("bxp_validate"));
});
