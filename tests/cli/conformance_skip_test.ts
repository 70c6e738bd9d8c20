/** The conformance support module says why conformance tests are ignored when the data is absent. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

Deno.test("without ../shared/conformance the support module prints the skip reason once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-noconf-" });
  try {
    // A checkout without the sibling data: the module placed where ../../../shared does not exist.
    const deep = join(dir, "a", "b", "c");
    await Deno.mkdir(deep, { recursive: true });
    const src = fileURLToPath(new URL("../_support/conformance.ts", import.meta.url));
    await Deno.copyFile(src, join(deep, "conformance.ts"));
    await Deno.writeTextFile(
      join(deep, "main.ts"),
      `import { NEEDS_CONFORMANCE } from "./conformance.ts";\nimport "./conformance.ts";\nconsole.log(JSON.stringify(NEEDS_CONFORMANCE));\n`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", "--allow-read", join(deep, "main.ts")],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const lines = text.trim().split("\n");
    assert.equal(lines.length, 2, text);
    assert.match(lines[0], /^skipped: \.\.\/shared\/conformance not found/);
    assert.equal(lines[1], '{"ignore":true}');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
