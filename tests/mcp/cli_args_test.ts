import assert from "node:assert/strict";
import { parseMcpArgs } from "../../src/mcp/cli_args.ts";

Deno.test("no arguments serve MCP", () => {
  assert.deepEqual(parseMcpArgs([]), { kind: "serve" });
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
