/**
 * `deno task compile` cannot run here (no denort), so its command lines are checked instead: `--dry-run`
 * prints, for all six targets, one `deno compile` per program with exactly the flags of its deno.json task
 * (what the tests run with), never prompting, embedding the worker modules, into dist/<target>/.
 */
import assert from "node:assert/strict";
import {
  binaryName,
  COMPILE_TARGETS,
  compileArgs,
  ENTRY_INCLUDES,
  ENTRY_MODULES,
  entryPointFlags,
  resolveTargets,
} from "../../src/distribution/mod.ts";
import { REPO_ROOT } from "../_support/processes.ts";

const denoJson = Deno.readTextFileSync(new URL("deno.json", REPO_ROOT));

Deno.test("compile --dry-run prints both programs for the six targets with the task flags", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      "tools/compile.ts",
      "--dry-run",
    ],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  assert.equal(lines.length, 12);
  assert.equal(COMPILE_TARGETS.length, 6);
  for (const target of COMPILE_TARGETS) {
    for (const entry of ["bxp-cli", "bxp-mcp"] as const) {
      const expected = `deno ${compileArgs(denoJson, entry, target).join(" ")}`;
      assert.ok(lines.includes(expected), expected);
    }
  }
});

Deno.test("the compile flags are the task flags: never prompt, bxp-mcp can narrow its worker, workers embedded", () => {
  for (const entry of ["bxp-cli", "bxp-mcp"] as const) {
    const args = compileArgs(denoJson, entry, "aarch64-apple-darwin");
    const flags = entryPointFlags(denoJson, entry);
    assert.deepEqual(args.slice(1, 1 + flags.length), flags);
    assert.ok(flags.includes("--no-prompt"), entry);
    assert.ok(!flags.includes("--allow-all") && !flags.includes("-A"), entry);
    // FFI only for bxp-mcp's path guard, and only for the C library's paths (never the whole FFI).
    assert.ok(!flags.includes("--allow-ffi"), entry);
    assert.equal(flags.some((f) => f.startsWith("--allow-ffi=")), entry === "bxp-mcp", entry);
    // bxp-mcp --http listens on an address known only at run time: the binary carries --allow-net and its
    // session worker narrows it to that one HOST:PORT (none on stdio); bxp-cli never has network.
    assert.equal(flags.some((f) => f.startsWith("--allow-net")), entry === "bxp-mcp", entry);
    for (const module of ENTRY_INCLUDES[entry]) {
      assert.ok(args.join(" ").includes(`--include ${module}`), module);
      Deno.statSync(new URL(module, REPO_ROOT));
    }
    assert.deepEqual(args.slice(-5), [
      "--target",
      "aarch64-apple-darwin",
      "--output",
      `dist/aarch64-apple-darwin/${entry}`,
      ENTRY_MODULES[entry],
    ]);
  }
  const mcp = entryPointFlags(denoJson, "bxp-mcp");
  assert.ok(mcp.includes("--unstable-worker-options"), "the session worker's narrowed permissions need it");
  assert.ok(ENTRY_INCLUDES["bxp-mcp"].includes("src/mcp/server_worker.ts"));
  assert.ok(!entryPointFlags(denoJson, "bxp-cli").includes("--allow-run"), "bxp-cli spawns nothing");
});

/** Runs tools/compile.ts with the task's permissions. */
async function compileTool(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-run", "--allow-env", "tools/compile.ts", ...args],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("compile --help explains every flag and exits 0 without building", async () => {
  const { code, stdout } = await compileTool("--help");
  assert.equal(code, 0);
  for (const word of ["--target", "host", "--dry-run", "--help", "DENORT_BIN", "tools/smoke.ts"]) {
    assert.ok(stdout.includes(word), word);
  }
  for (const target of COMPILE_TARGETS) assert.ok(stdout.includes(target), target);
  assert.ok(stdout.includes(Deno.build.target), "names this machine's target");
});

Deno.test("compile --target host builds just this machine's two binaries", async () => {
  const { code, stdout, stderr } = await compileTool("--target", "host", "--dry-run");
  assert.equal(code, 0, stderr);
  assert.deepEqual(stdout.trim().split("\n"), [
    `deno ${compileArgs(denoJson, "bxp-cli", Deno.build.target).join(" ")}`,
    `deno ${compileArgs(denoJson, "bxp-mcp", Deno.build.target).join(" ")}`,
  ]);
});

Deno.test("compile refuses an unknown flag or target with a one-line message and exit 2", async () => {
  for (const args of [["--bogus"], ["--target", "sparc-sun-solaris", "--dry-run"]]) {
    const { code, stdout, stderr } = await compileTool(...args);
    assert.equal(code, 2, args.join(" "));
    assert.equal(stdout, "");
    assert.match(stderr, /^compile: .*(bogus|sparc-sun-solaris).*\(see --help\)\n$/);
    assert.ok(!stderr.includes("    at "), "no stack trace");
  }
});

Deno.test("resolveTargets: host, duplicates, all by default, unknown refused", () => {
  assert.deepEqual(resolveTargets(["host", "x86_64-apple-darwin", "host"], "x86_64-apple-darwin"), [
    "x86_64-apple-darwin",
  ]);
  assert.deepEqual(resolveTargets(undefined, "x"), [...COMPILE_TARGETS]);
  assert.deepEqual(resolveTargets([], "x"), [...COMPILE_TARGETS]);
  assert.throws(() => resolveTargets(["host"], "riscv64gc-unknown-linux-gnu"), /this machine's target/);
  assert.equal(binaryName("bxp-mcp", "windows"), "bxp-mcp.exe");
  assert.equal(binaryName("bxp-mcp", "darwin"), "bxp-mcp");
});

Deno.test("every module src/ loads by URL at run time (a worker) is embedded in a binary", async () => {
  // deno compile only embeds what it sees statically; a worker started from `new URL("./x.ts",
  // import.meta.url)` that is missing from --include fails only inside the compiled binary.
  const included = new Set(Object.values(ENTRY_INCLUDES).flat());
  const found: string[] = [];
  const walk = async (dir: URL) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir));
      else if (e.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(new URL(e.name, dir));
        for (const m of text.matchAll(/new URL\("(\.{1,2}\/[^"]+\.ts)", import\.meta\.url\)/g)) {
          const module = new URL(m[1], new URL(e.name, dir)).href.slice(REPO_ROOT.href.length);
          found.push(module);
        }
      }
    }
  };
  await walk(new URL("src/", REPO_ROOT));
  assert.ok(found.includes("src/mcp/tools/eval_worker.ts"), `scan works: ${found.join(", ")}`);
  for (const module of found) assert.ok(included.has(module), `${module} is not in ENTRY_INCLUDES`);
});
