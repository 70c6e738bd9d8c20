/** The argument parser against its own flag table and bxp's forms. */

import assert from "node:assert/strict";
import { CLI_FLAGS, isSafeCliPath, parseCliArgs } from "../../src/cli/args.ts";

Deno.test("every documented flag is accepted, in both value forms", () => {
  for (const f of CLI_FLAGS) {
    if (f.flag === "--version" || f.flag === "--help") {
      assert.equal(parseCliArgs([f.flag]).kind, f.flag.slice(2));
      continue;
    }
    const value = f.flag === "--check-fs" ? "5" : "x";
    const extra = f.flag === "--data" ? ["--template", "t"] : [];
    const spaced = f.value === null ? [f.flag] : [f.flag, value];
    const equals = f.value === null ? [f.flag] : [`${f.flag}=${value}`];
    for (const args of [spaced, equals]) {
      const req = parseCliArgs([...args, ...extra]);
      assert.equal(req.kind, "run", `${args.join(" ")}: ${JSON.stringify(req)}`);
    }
  }
});

Deno.test("values land in the options; --version wins wherever it appears", () => {
  const req = parseCliArgs([
    "--config=c.json",
    "--template",
    "t",
    "--data",
    "d",
    "--fresh",
    "--trace-file",
    "x.bxtb",
  ]);
  assert.equal(req.kind, "run");
  if (req.kind !== "run") return;
  assert.deepEqual(
    [
      req.options.config,
      req.options.configExplicit,
      req.options.template,
      req.options.data,
      req.options.fresh,
    ],
    ["c.json", true, "t", "d", true],
  );
  assert.equal(req.options.traceFile, "x.bxtb");
  assert.equal(parseCliArgs(["--bogus-later", "--version"]).kind, "error");
  assert.equal(parseCliArgs(["--version", "--bogus-later"]).kind, "version");
});

Deno.test("bxp's path guard: no shell metacharacters, at most one '..'", () => {
  assert.ok(isSafeCliPath("../data/x.csv"));
  assert.ok(isSafeCliPath("foo/../bar"));
  assert.ok(!isSafeCliPath("../../etc/passwd"));
  assert.ok(!isSafeCliPath("a$(b)"));
  assert.ok(!isSafeCliPath("foo;rm -rf /"));
});

Deno.test("--strict, --findings-file, --progress=json and --exit-on-stdin-eof land in the options", () => {
  const req = parseCliArgs([
    "--strict",
    "--findings-file",
    "f.json",
    "--progress=json",
    "--exit-on-stdin-eof",
  ]);
  assert.equal(req.kind, "run");
  if (req.kind !== "run") return;
  const o = req.options;
  assert.deepEqual([o.strict, o.findingsFile, o.progressJson, o.exitOnStdinEof], [
    true,
    "f.json",
    true,
    true,
  ]);
  const plain = parseCliArgs([]);
  assert.ok(plain.kind === "run" && !plain.options.strict && plain.options.findingsFile === null);
  assert.ok(plain.kind === "run" && !plain.options.progressJson && !plain.options.exitOnStdinEof);
  assert.deepEqual(parseCliArgs(["--progress"]), {
    kind: "error",
    message: "--progress value must be 'json': got ''",
    usage: false,
  });
  assert.equal(parseCliArgs(["--progress=bar"]).kind, "error");
  assert.equal(parseCliArgs(["--findings-file"]).kind, "error");
  assert.equal(parseCliArgs(["--findings-file="]).kind, "error");
  // Machine progress goes with the machine summary and with --quiet.
  assert.equal(parseCliArgs(["--progress=json", "--debug=json"]).kind, "run");
  assert.equal(parseCliArgs(["--progress=json", "--quiet"]).kind, "run");
});
