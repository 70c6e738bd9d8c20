import assert from "node:assert/strict";
import {
  childEnvironment,
  type CliHost,
  CliNotFoundError,
  resolveBxpCli,
  runCli,
  withHeapCap,
} from "../../../src/mcp/simulate/bxp_cli.ts";
import { entryArgs } from "../../_support/processes.ts";

const DENO_JSON = '{"tasks":{"bxp-cli":"deno run --no-prompt --allow-read src/cli/main.ts"}}';

function fakeHost(overrides: Partial<CliHost>): CliHost {
  return {
    execPath: "/usr/local/bin/deno",
    os: "linux",
    repoRoot: new URL("file:///repo/"),
    readTextFile: () => Promise.resolve(DENO_JSON),
    exists: () => Promise.resolve(false),
    ...overrides,
  };
}

Deno.test("under deno run, bxp-cli is the repo's entry with the bxp-cli task's flags", async () => {
  assert.deepEqual(await resolveBxpCli(fakeHost({})), {
    program: "/usr/local/bin/deno",
    prefixArgs: ["run", "--no-prompt", "--allow-read", "/repo/src/cli/main.ts"],
  });
  const exe = await resolveBxpCli(fakeHost({ execPath: "/tools/DENO.EXE", os: "windows" }));
  assert.equal(exe.program, "/tools/DENO.EXE");
  assert.equal(exe.prefixArgs[0], "run");
});

Deno.test("the real deno run setup resolves to the same argument vector the tests use", async () => {
  const { denoCliHost } = await import("../../../src/mcp/simulate/bxp_cli.ts");
  const cli = await resolveBxpCli(denoCliHost());
  assert.equal(cli.program, Deno.execPath());
  assert.deepEqual(cli.prefixArgs, entryArgs("bxp-cli"));
});

Deno.test("a compiled bxp-mcp runs the bxp-cli beside it, or says where it looked", async () => {
  const seen: string[] = [];
  const host = fakeHost({
    execPath: "/opt/bxp/bxp-mcp",
    exists: (path) => {
      seen.push(path);
      return Promise.resolve(true);
    },
  });
  assert.deepEqual(await resolveBxpCli(host), { program: "/opt/bxp/bxp-cli", prefixArgs: [] });
  assert.deepEqual(seen, ["/opt/bxp/bxp-cli"]);
  await assert.rejects(
    resolveBxpCli(fakeHost({ execPath: "/opt/bxp/bxp-mcp" })),
    (e: unknown) =>
      e instanceof CliNotFoundError && e.message === "bxp-cli binary not found next to bxp-mcp" &&
      e.detail === "/opt/bxp/bxp-cli",
  );
});

Deno.test("a broken bxp-cli task is reported, not thrown raw", async () => {
  await assert.rejects(
    resolveBxpCli(fakeHost({ readTextFile: () => Promise.resolve('{"tasks":{}}') })),
    (e: unknown) => e instanceof CliNotFoundError && /no 'bxp-cli' task/.test(e.message),
  );
});

Deno.test("childEnvironment passes PATH and the temp variables only, SystemRoot on Windows", () => {
  const vars: Record<string, string> = {
    PATH: "/bin",
    TMPDIR: "/t",
    TEMP: "/t2",
    HOME: "/root",
    SECRET: "x",
    SystemRoot: "C:\\Windows",
  };
  const read = (name: string) => vars[name];
  assert.deepEqual(childEnvironment(read, "linux"), { PATH: "/bin", TMPDIR: "/t", TEMP: "/t2" });
  assert.deepEqual(childEnvironment(read, "windows"), {
    PATH: "/bin",
    TMPDIR: "/t",
    TEMP: "/t2",
    SystemRoot: "C:\\Windows",
  });
});

const script = (code: string) => ({ program: Deno.execPath(), prefixArgs: ["eval", code] });

Deno.test("runCli captures stdout and stderr with the cap and reports the exit code", async () => {
  const run = await runCli(
    script("await Deno.stdout.write(new Uint8Array(5000).fill(65)); console.error('oops'); Deno.exit(3)"),
    [],
    { env: {}, signal: new AbortController().signal, timeoutMs: 30_000, captureBytes: 1000 },
  );
  assert.equal(run.exitCode, 3);
  assert.equal(run.timedOut, false);
  assert.equal(run.stdout.bytes.length, 1000);
  assert.equal(run.stdout.dropped, 4000);
  assert.equal(new TextDecoder().decode(run.stderr.bytes), "oops\n");
});

Deno.test("runCli gives the child a stdin that stays open and silent, and arguments without a shell", async () => {
  const run = await runCli(
    script(
      "const read = Deno.stdin.read(new Uint8Array(8)).then((n) => n === null ? 'eof' : 'data'); " +
        "const open = new Promise((r) => setTimeout(() => r('open'), 300)); " +
        "console.log(JSON.stringify([await Promise.race([read, open]), Deno.args])); Deno.exit(0)",
    ),
    ["a b", "$HOME;`x`"],
    { env: {}, signal: new AbortController().signal, timeoutMs: 30_000 },
  );
  assert.deepEqual(JSON.parse(new TextDecoder().decode(run.stdout.bytes)), ["open", ["a b", "$HOME;`x`"]]);
});

Deno.test("withHeapCap: a --v8-flags argument under deno run, DENO_V8_FLAGS for a binary", () => {
  assert.deepEqual(withHeapCap({ program: "/usr/bin/deno", prefixArgs: ["run", "-A", "m.ts"] }, 512), {
    command: {
      program: "/usr/bin/deno",
      prefixArgs: ["run", "--v8-flags=--max-old-space-size=512", "-A", "m.ts"],
    },
    env: { DENO_V8_FLAGS: "--max-old-space-size=512" },
  });
  assert.deepEqual(withHeapCap({ program: "/opt/bxp-cli", prefixArgs: [] }, 512), {
    command: { program: "/opt/bxp-cli", prefixArgs: [] },
    env: { DENO_V8_FLAGS: "--max-old-space-size=512" },
  });
});

Deno.test("runCli: a watch that answers stops the child and is reported", async () => {
  let checks = 0;
  const run = await runCli(script("await new Promise((r) => setTimeout(r, 60000))"), [], {
    env: {},
    signal: new AbortController().signal,
    timeoutMs: 60_000,
    watchMs: 20,
    watch: () => Promise.resolve(++checks >= 3 ? "too big" : null),
  });
  assert.equal(run.stopped, "too big");
  assert.equal(run.timedOut, false);
  assert.equal(run.exitCode, -1);
});

Deno.test("runCli kills the child at the time limit", async () => {
  let pid = 0;
  const started = Date.now();
  const run = await runCli(script("await new Promise((r) => setTimeout(r, 60000))"), [], {
    env: {},
    signal: new AbortController().signal,
    timeoutMs: 500,
    onSpawn: (p) => pid = p,
  });
  assert.ok(run.timedOut);
  assert.equal(run.exitCode, -1);
  assert.ok(pid > 0);
  assert.ok(Date.now() - started < 15_000);
});

Deno.test("runCli refuses to start when already aborted", async () => {
  const controller = new AbortController();
  controller.abort(new DOMException("gone", "AbortError"));
  await assert.rejects(
    runCli(script("1"), [], { env: {}, signal: controller.signal, timeoutMs: 1000 }),
    (e: unknown) => e instanceof DOMException && e.message === "gone",
  );
});
