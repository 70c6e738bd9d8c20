/** The committed reference pages are exactly what the code's tables generate (run `deno task docs`). */

import assert from "node:assert/strict";
import { referencePages } from "../../tools/reference_docs.ts";
import { FUNCTIONS } from "../../src/lang/mod.ts";
import { CONFIG_SCHEMA } from "../../src/config/schema.ts";

Deno.test("docs/reference pages are up to date with the registry, schema and flag tables", async () => {
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
