import assert from "node:assert/strict";
import { parseMcpArgs } from "../../src/mcp/cli_args.ts";

Deno.test("no arguments serve MCP on the working directory, writes disabled", () => {
  assert.deepEqual(parseMcpArgs([]), { kind: "serve", root: null, allowWrite: false });
});

Deno.test("--root DIR, --root=DIR and --allow-write in any order", () => {
  assert.deepEqual(parseMcpArgs(["--root", "/srv/p"]), { kind: "serve", root: "/srv/p", allowWrite: false });
  assert.deepEqual(parseMcpArgs(["--allow-write", "--root=rel/dir"]), {
    kind: "serve",
    root: "rel/dir",
    allowWrite: true,
  });
  assert.deepEqual(parseMcpArgs(["--allow-write"]), { kind: "serve", root: null, allowWrite: true });
});

Deno.test("--root without a value, repeated options and stray words are usage errors", () => {
  const message = (args: string[]) => {
    const parsed = parseMcpArgs(args);
    assert.equal(parsed.kind, "usage_error", args.join(" "));
    return (parsed as { message: string }).message;
  };
  assert.equal(message(["--root"]), "--root needs a directory");
  assert.equal(message(["--root="]), "--root needs a directory");
  assert.equal(message(["--root", "a", "--root", "b"]), "--root given twice");
  assert.equal(message(["--allow-write", "--allow-write"]), "--allow-write given twice");
  assert.equal(message(["--root", "a", "extra"]), "unknown argument 'extra'");
});

Deno.test("--version, --help and -h", () => {
  assert.deepEqual(parseMcpArgs(["--version"]), { kind: "version" });
  assert.deepEqual(parseMcpArgs(["--help"]), { kind: "help" });
  assert.deepEqual(parseMcpArgs(["-h"]), { kind: "help" });
});

Deno.test("unknown and trailing arguments are usage errors naming the argument", () => {
  assert.deepEqual(parseMcpArgs(["--bogus"]), { kind: "usage_error", message: "unknown argument '--bogus'" });
  assert.deepEqual(parseMcpArgs(["serve"]), { kind: "usage_error", message: "unknown argument 'serve'" });
  const trailing = parseMcpArgs(["--version", "x"]);
  assert.equal(trailing.kind, "usage_error");
  assert.match((trailing as { message: string }).message, /'x' after --version/);
});
