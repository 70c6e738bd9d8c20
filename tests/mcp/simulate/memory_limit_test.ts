/**
 * bxp_simulate's limit on the child's whole resident memory (Linux): memory outside the V8 heap (which
 * the heap cap does not see) and a real bxp-cli on a fan-out config are killed at the limit, with a clear
 * "memory limit" failure, and the limit is stated in the answer's limits.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { toolFailure } from "../../../src/mcp/protocol/mod.ts";
import { ServerProcess, type Wire } from "../_support/server_process.ts";
import {
  DEFAULT_LIMITS,
  Gate,
  residentProbe,
  resolveBxpCli,
  type SimulateHost,
  Simulator,
} from "../../../src/mcp/simulate/mod.ts";
import { denoCliHost } from "../../../src/mcp/simulate/bxp_cli.ts";

const FAKE_CLI = fileURLToPath(new URL("./fixtures/fake_cli.ts", import.meta.url));

function call() {
  return {
    name: "bxp_simulate",
    requestId: 1,
    signal: new AbortController().signal,
    progress: () => {},
    fail: toolFailure,
  };
}

function host(tmp: string, fake: boolean, residentMiB: number, logs: string[]): SimulateHost {
  return {
    limits: { residentMiB },
    processGate: new Gate(8),
    tempBase: () => tmp,
    locateCli: fake
      ? () => Promise.resolve({ program: Deno.execPath(), prefixArgs: ["run", "-A", FAKE_CLI] })
      : () => resolveBxpCli(denoCliHost()),
    childEnv: () => ({ PATH: Deno.env.get("PATH") ?? "", TMPDIR: tmp }),
    timeoutMs: 90_000,
    log: (message) => logs.push(message),
  };
}

/** One input record becomes 1 500 output rows of 64 Ki characters. */
const FAN_OUT = `{ conversion_templates: { fan: { data_dir: ".", file_pattern_in: ".csv",
  file_pattern_out: ".out.csv", input_schema: { $a: "RPAD([A], 1000000, 'x')" },
  row_rules: [{ when: "1 = 1", rows: [${Array(1500).fill("{}").join(",")}] }],
  output_schema: { a: "$a" } } } }`;

const linuxWithProbe = Deno.build.os === "linux" && residentProbe() !== null;

Deno.test({
  name: "the probe reads this process's resident memory on Linux",
  ignore: !linuxWithProbe,
  fn() {
    const rss = residentProbe()!(Deno.pid);
    assert.ok(rss !== null && rss > 10 * 1048576 && rss < 8 * 1024 * 1048576, String(rss));
    assert.equal(residentProbe()!(2 ** 31 - 2), null, "no such process");
  },
});

Deno.test({
  name: "memory outside the V8 heap: the child is killed at the resident limit with 'memory limit'",
  ignore: !linuxWithProbe,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "bxp-sim-mem-" });
    const logs: string[] = [];
    const simulator = new Simulator(host(tmp, true, 256, logs));
    try {
      const config = JSON.stringify({
        conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv" } },
        // At most 768 MiB, so a limit that failed to stop it cannot hurt the machine.
        fake: { allocate: { chunkBytes: 16 * 1048576, maxBytes: 768 * 1048576 } },
      });
      const started = Date.now();
      const result = await simulator.simulate(
        { config, template: "t", csv: "v\nx\n", workspace: null },
        call(),
      );
      const body = JSON.parse(result.text);
      assert.equal(result.isError, true, result.text);
      assert.match(
        body.error,
        /^bxp-cli was killed: memory limit\. Its resident memory reached \d+ MiB, over the 256 MiB limit per simulation/,
      );
      const seen = Number(/reached (\d+) MiB/.exec(body.error)![1]);
      // 16 MiB every 20 ms, read every 50 ms: the kill lands within a few chunks of the limit.
      assert.ok(seen > 256 && seen < 256 + 160, `killed at ${seen} MiB`);
      assert.ok(Date.now() - started < 30_000);
      assert.ok(logs.some((l) => /bxp-cli killed at \d+ MiB resident/.test(l)), logs.join("\n"));
    } finally {
      await simulator.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "a real bxp-cli on a fan-out config is killed at the resident limit; a normal run states the limit",
  ignore: !linuxWithProbe,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "bxp-sim-mem-" });
    const logs: string[] = [];
    // bxp-cli itself starts at about 100 MiB: 400 MiB is a fan-out's, not a start's.
    const simulator = new Simulator(host(tmp, false, 400, logs));
    try {
      const csv = "A\n" + Array.from({ length: 40 }, (_, i) => String(i + 1)).join("\n") + "\n";
      const result = await simulator.simulate(
        { config: FAN_OUT, template: "fan", csv, workspace: null },
        call(),
      );
      const body = JSON.parse(result.text);
      assert.equal(result.isError, true, result.text.slice(0, 400));
      assert.match(body.error, /bxp-cli was killed: memory limit.*over the 400 MiB limit/, body.error);

      const small = await simulator.simulate({
        config: FAN_OUT.replace("1000000", "3").replace(/\[(\{\},)+\{\}\]/, "[{}]"),
        template: "fan",
        csv: "A\n1\n",
        workspace: null,
      }, call());
      assert.notEqual(small.isError, true, small.text.slice(0, 400));
      assert.equal((small.structured as { limits: Record<string, number> }).limits.resident_mib, 400);
    } finally {
      await simulator.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "through bxp-mcp's sandboxed session the child's resident memory is watched (limits.resident_mib)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const server = await ServerProcess.start();
    try {
      const config = FAN_OUT.replace("1000000", "3").replace(/\[(\{\},)+\{\}\]/, "[{}]");
      await server.call("s", "bxp_simulate", { config, template: "fan", csv: "A\n1\n" });
      const answer: Wire = (await server.response("s")).result;
      assert.equal(answer.isError, false, JSON.stringify(answer).slice(0, 400));
      assert.equal(answer.structuredContent.limits.resident_mib, DEFAULT_LIMITS.residentMiB);
      assert.ok(
        DEFAULT_LIMITS.residentMiB * 1048576 + 100 * 1048576 < 1.5e9,
        "limit plus overshoot < 1.5 GB",
      );
    } finally {
      await server.close();
      await server.dispose();
    }
  },
});

/** VmRSS of process `pid` in KiB, or null once it is gone. */
function residentKb(pid: number): number | null {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1] ?? "0");
  } catch {
    return null;
  }
}

Deno.test({
  name:
    "through bxp-mcp, a fan-out bxp_simulate is killed under 1.5 GB of resident memory with 'memory limit'",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const server = await ServerProcess.start();
    let peakKb = 0;
    let watching = true;
    let guardKilled = false;
    // The test's own evidence of the bound, read from outside; it also keeps a regression from eating
    // the machine (the child is killed past 1.6 GB, which fails the test).
    const watcher = (async () => {
      while (watching) {
        const pid = Number(/bxp-cli pid (\d+)/.exec(server.stderr)?.[1] ?? "0");
        const kb = pid > 0 ? residentKb(pid) : null;
        if (kb !== null) {
          peakKb = Math.max(peakKb, kb);
          if (kb > 1_600_000) {
            guardKilled = true;
            Deno.kill(pid, "SIGKILL");
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      const csv = "A\n" + Array.from({ length: 40 }, (_, i) => String(i + 1)).join("\n") + "\n";
      await server.call("s", "bxp_simulate", { config: FAN_OUT, template: "fan", csv });
      const answer: Wire = (await server.response("s", 150_000)).result;
      const body = JSON.parse(answer.content[0].text);
      assert.equal(guardKilled, false, `the child passed 1.6 GB (${Math.round(peakKb / 1024)} MiB)`);
      assert.equal(answer.isError, true, JSON.stringify(body).slice(0, 400));
      assert.match(body.error, /^bxp-cli was killed: memory limit\./, body.error);
      assert.match(body.error, new RegExp(`over the ${DEFAULT_LIMITS.residentMiB} MiB limit per simulation`));
      assert.ok(peakKb * 1024 < 1.5e9, `bxp-cli peaked at ${Math.round(peakKb / 1024)} MiB`);
      assert.match(server.stderr, /bxp-cli killed at \d+ MiB resident/);
      // The session goes on.
      await server.send({ jsonrpc: "2.0", id: "p", method: "ping" });
      assert.deepEqual((await server.response("p")).result, {});
    } finally {
      watching = false;
      await watcher;
      await server.close();
      await server.dispose();
    }
  },
});
