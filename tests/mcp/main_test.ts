/** The bxp-mcp program outside the protocol: --version, --help and a refused argument. */
import assert from "node:assert/strict";
import { entryArgs } from "../_support/processes.ts";
import { BXP_TOOLS } from "../../src/mcp/tools/catalog.ts";
import { VERSION } from "../../src/version.ts";

async function runMain(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: entryArgs("bxp-mcp", args),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("bxp-mcp --version prints the build and exits", async () => {
  const { code, stdout } = await runMain(["--version"]);
  assert.equal(code, 0);
  assert.equal(stdout, `bxp-mcp ${VERSION}\n`);
});

Deno.test("bxp-mcp --help and -h list every catalog tool in order, the writing one marked", async () => {
  for (const flag of ["--help", "-h"]) {
    const { code, stdout } = await runMain([flag]);
    assert.equal(code, 0);
    assert.match(stdout, /^bxp-mcp .*stdio/);
    const listed = stdout.split("Tools:\n")[1].split("\n\n")[0].trim().split("\n").map((l) =>
      l.trim().split(/\s+/)[0]
    );
    assert.deepEqual(listed, BXP_TOOLS.map((t) => t.name));
    assert.match(stdout, /bxp_write_config +Write a config file \(with --allow-write\)\n/);
    assert.match(stdout, /--root DIR/);
  }
});

Deno.test("an unknown argument is refused on stderr with exit 2 and nothing on stdout", async () => {
  const { code, stdout, stderr } = await runMain(["--bogus"]);
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.match(stderr, /unknown argument '--bogus'.*--help/);
});

Deno.test("a missing --root folder is refused on stderr with exit 2, naming it", async () => {
  const { code, stdout, stderr } = await runMain(["--root", "/nonexistent/bxp-root"]);
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.match(stderr, /Project root does not exist or is not readable: \/nonexistent\/bxp-root/);
});
