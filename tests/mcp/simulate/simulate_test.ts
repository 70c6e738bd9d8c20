import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ToolCall, toolFailure } from "../../../src/mcp/protocol/mod.ts";
import {
  CliNotFoundError,
  resolveBxpCli,
  SIMULATE_STEPS,
  type SimulateHost,
  Simulator,
} from "../../../src/mcp/simulate/mod.ts";
import { denoCliHost } from "../../../src/mcp/simulate/bxp_cli.ts";
import { CONFORMANCE_DIR } from "../../_support/processes.ts";
import { processAlive } from "../_support/server_process.ts";

const FAKE_CLI = fileURLToPath(new URL("./fixtures/fake_cli.ts", import.meta.url));

interface FakeCall extends ToolCall {
  steps: [number, number | undefined, string | undefined][];
  abort(): void;
}

function fakeCall(): FakeCall {
  const controller = new AbortController();
  const steps: FakeCall["steps"] = [];
  return {
    name: "bxp_simulate",
    requestId: 1,
    signal: controller.signal,
    progress: (p, total, message) => steps.push([p, total, message]),
    fail: toolFailure,
    steps,
    abort: () => controller.abort(new DOMException("cancelled", "AbortError")),
  };
}

async function withTemp(fn: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "bxp-sim-test-" });
  try {
    await fn(tmp);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

function host(
  tmp: string,
  options: { fake?: boolean; timeoutMs?: number; logs?: string[] } = {},
): SimulateHost {
  return {
    tempBase: () => tmp,
    locateCli: options.fake === false
      ? () => resolveBxpCli(denoCliHost())
      : () => Promise.resolve({ program: Deno.execPath(), prefixArgs: ["run", "-A", FAKE_CLI] }),
    childEnv: () => ({ PATH: Deno.env.get("PATH") ?? "", TMPDIR: tmp }),
    timeoutMs: options.timeoutMs ?? 60_000,
    log: (message) => options.logs?.push(message),
  };
}

/** A config whose template `t` is simulatable and whose `fake` member steers the stand-in CLI. */
function fakeConfig(fake: Record<string, unknown>, template: Record<string, unknown> = {}): string {
  return JSON.stringify({
    conversion_templates: { t: { data_dir: ".", file_pattern_in: ".csv", ...template } },
    fake,
  });
}

const request = (
  config: string,
  extra: Partial<{ template: string; csv: string; workspace: string }> = {},
) => ({
  config,
  template: extra.template ?? "t",
  csv: extra.csv ?? "v\nx\n",
  workspace: extra.workspace ?? null,
});

Deno.test("templates that cannot be simulated get bxp's ok:false answers, before anything is staged", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const cases: [string, Record<string, unknown> | null, string, string][] = [
      ["missing", null, "template not found in config", "missing"],
      ["t", { xlsx_sheet: { name: "S" } }, "xlsx-input templates cannot be simulated from inline CSV", "t"],
      [
        "t",
        { file_type_in: "json" },
        "only CSV-input templates can be simulated (file_type_in must be csv)",
        "t",
      ],
      ["t", { file_pattern_in: "" }, "template is missing required file_pattern_in", "t"],
      [
        "t",
        { file_pattern_in: "/../../etc/x.csv" },
        "file_pattern_in must be a plain filename suffix (no path separators or '..')",
        "/../../etc/x.csv",
      ],
      [
        "t",
        { file_pattern_in: "..csv" },
        "file_pattern_in must be a plain filename suffix (no path separators or '..')",
        "..csv",
      ],
      [
        "t",
        { file_pattern_in: "a\\b.csv" },
        "file_pattern_in must be a plain filename suffix (no path separators or '..')",
        "a\\b.csv",
      ],
    ];
    for (const [template, overrides, error, detail] of cases) {
      const call = fakeCall();
      const result = await simulator.simulate(request(fakeConfig({}, overrides ?? {}), { template }), call);
      assert.equal(result.isError, false, error);
      assert.deepEqual(JSON.parse(result.text), { ok: false, error, detail });
      assert.deepEqual(call.steps.map((s) => s[0]), [1]);
    }
    assert.deepEqual([...Deno.readDirSync(tmp)], [], "nothing staged");
  });
});

Deno.test("a missing bxp-cli is a tool failure naming where it was looked for", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator({
      ...host(tmp),
      locateCli: () =>
        Promise.reject(new CliNotFoundError("bxp-cli binary not found next to bxp-mcp", "/x/bxp-cli")),
    });
    const result = await simulator.simulate(request(fakeConfig({})), fakeCall());
    assert.equal(result.isError, true);
    assert.deepEqual(JSON.parse(result.text), {
      ok: false,
      error: "bxp-cli binary not found next to bxp-mcp",
      detail: "/x/bxp-cli",
    });
  });
});

Deno.test({
  name: "the real bxp-cli converts the trading212 dataset: golden output, counts, progress, workspace layout",
  ignore: CONFORMANCE_DIR === null,
  async fn() {
    await withTemp(async (tmp) => {
      const dir = new URL("datasets/trading212_to_wealthfolio/", CONFORMANCE_DIR!);
      const config = await Deno.readTextFile(new URL("sample.json", dir));
      const csv = await Deno.readTextFile(new URL("sample.csv", dir));
      const expected = await Deno.readTextFile(new URL("sample.expected", dir));
      const simulator = new Simulator(host(tmp, { fake: false }));
      const workspace = join(tmp, "bxp-mcp-sim", "my_run_1");
      // A leftover from an earlier run must be wiped.
      await Deno.mkdir(join(workspace, "data"), { recursive: true });
      await Deno.writeTextFile(join(workspace, "data", "stale.csvx"), "old\n");

      const call = fakeCall();
      const result = await simulator.simulate(
        request(config, { template: "trading212_to_wealthfolio", csv, workspace: "my run#1" }),
        call,
      );
      assert.equal(result.isError, false, result.text.slice(0, 400));
      const report = JSON.parse(result.text);
      assert.deepEqual(Object.keys(report), [
        "ok",
        "template",
        "exit_code",
        "status",
        "input",
        "output_records",
        "outputs",
        "summary",
        "diagnostics",
        "trace",
        "workspace",
      ]);
      assert.equal(report.ok, true);
      assert.equal(report.exit_code, 0);
      assert.equal(report.status, "ok");
      assert.equal(report.workspace, workspace);
      assert.deepEqual(report.outputs.map((o: { file: string }) => o.file), ["input.csvx"]);
      assert.equal(report.outputs[0].csv, expected);
      assert.equal(report.input.csv, csv);
      assert.equal(report.input.records, report.trace.source_rows);
      assert.equal(report.output_records, report.trace.written_rows);
      assert.equal(report.outputs[0].records, report.output_records);
      assert.equal(report.trace.output_rows.count, report.trace.written_rows);
      assert.match(report.summary, /trading212_to_wealthfolio/);
      // Every sampled row points at the start of a data line of the input.
      const lines = csv.split("\n");
      for (const s of report.trace.output_rows.sample) {
        assert.ok(s.input_row >= 2);
        const lineStart = new TextEncoder().encode(lines.slice(0, s.input_row - 1).join("\n") + "\n").length;
        assert.equal(s.source_offset, lineStart, `row ${s.input_row}`);
      }
      assert.deepEqual(call.steps, SIMULATE_STEPS.map((m, i) => [i + 1, 4, m]));

      assert.equal(await Deno.readTextFile(join(workspace, "config.json")), config);
      assert.equal(await Deno.readTextFile(join(workspace, "data", "input.csv")), csv);
      assert.ok((await Deno.stat(join(workspace, "trace.bxtb"))).size > 4);
      assert.deepEqual(
        [...Deno.readDirSync(join(workspace, "data"))].map((e) => e.name).sort(),
        ["input.csv", "input.csvx"],
      );
    });
  },
});

Deno.test("exit code, outputs in name order, oversized output, trace samples capped at 200 with input lines", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const csv = "v\n" + "x\n".repeat(300);
    const config = fakeConfig({
      stdout: "summary text\n",
      stderr: "warning: something\n",
      outputs: { "b.csvx": "h\n1\n2\n", "a.csvx": "h\r\n1\r\n\r\n" },
      bigOutput: { name: "c.csvx", bytes: 16 * 1024 * 1024 + 1 },
      filteredRows: 250,
      exitCode: 2,
    }, { file_pattern_in: "_cash.csv" });
    const result = await simulator.simulate(request(config, { csv }), fakeCall());
    const report = JSON.parse(result.text);
    assert.equal(result.isError, false);
    assert.equal(report.exit_code, 2);
    assert.equal(report.status, "warnings");
    assert.equal(report.summary, "summary text\n");
    assert.equal(report.diagnostics, "warning: something\n");
    assert.equal(report.input.records, 300);
    assert.deepEqual(report.outputs.slice(0, 2), [
      { file: "a.csvx", records: 1, csv: "h\r\n1\r\n\r\n" },
      { file: "b.csvx", records: 2, csv: "h\n1\n2\n" },
    ]);
    assert.equal(report.outputs[2].file, "c.csvx");
    assert.match(report.outputs[2].error, /16777217 bytes, over the 16777216-byte/);
    assert.equal(report.outputs.length, 3, "the staged input_cash.csv is not an output");
    assert.equal(report.output_records, 3);
    const trace = report.trace;
    assert.equal(trace.available, true);
    assert.equal(trace.source_rows, 251);
    assert.equal(trace.errors, 1);
    assert.equal(trace.filtered.count, 250);
    assert.equal(trace.filtered.sample.length, 200);
    assert.deepEqual(trace.filtered.sample[199], { input_row: 201, source_offset: 400, reason: "rule_skip" });
    assert.deepEqual(trace.output_rows, {
      count: 1,
      sample: [{ input_row: 2, source_offset: 2, output_idx: 1, rule: 0, action: "BUY" }],
    });
    assert.deepEqual(trace.row_errors.sample, [{
      input_row: 3,
      source_offset: 4,
      variable: "$x",
      kind: "UnknownFunction",
      detail: "NOPE",
      origin: "input_schema",
    }]);
    assert.equal(trace.prepass_entries, 1);
  });
});

Deno.test("no trace file means trace.available false; the child sees only the minimal environment", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const result = await simulator.simulate(request(fakeConfig({ printEnvKeys: true })), fakeCall());
    const report = JSON.parse(result.text);
    assert.deepEqual(report.trace, { available: false });
    assert.deepEqual(JSON.parse(report.summary).sort(), ["PATH", "TMPDIR"]);
  });
});

Deno.test("the time limit kills bxp-cli and answers a tool failure", async () => {
  await withTemp(async (tmp) => {
    const logs: string[] = [];
    const simulator = new Simulator(host(tmp, { timeoutMs: 1_500, logs }));
    const started = Date.now();
    const result = await simulator.simulate(request(fakeConfig({ sleepMs: 60_000 })), fakeCall());
    assert.ok(Date.now() - started < 20_000);
    assert.equal(result.isError, true);
    const answer = JSON.parse(result.text);
    assert.equal(answer.ok, false);
    assert.match(answer.error, /did not finish within 2 s and was killed/);
    const pid = Number(/pid (\d+)/.exec(logs.join("\n"))![1]);
    assert.equal(await processAlive(pid), false);
  });
});

Deno.test("aborting the call kills bxp-cli and rejects", async () => {
  await withTemp(async (tmp) => {
    const logs: string[] = [];
    const simulator = new Simulator(host(tmp, { logs }));
    const call = fakeCall();
    const pending = simulator.simulate(request(fakeConfig({ sleepMs: 60_000 })), call);
    while (!logs.some((l) => /pid \d+/.test(l))) await new Promise((r) => setTimeout(r, 20));
    const pid = Number(/pid (\d+)/.exec(logs.join("\n"))![1]);
    assert.equal(await processAlive(pid), true);
    call.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof DOMException && e.name === "AbortError");
    assert.equal(await processAlive(pid), false);
    assert.ok(!call.steps.some((s) => s[0] === 4), "no step after the abort");
  });
});

Deno.test("runs on the same workspace take turns; other workspaces run alongside", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const journal = join(tmp, "journal.txt");
    const config = fakeConfig({ sleepMs: 400, journal });
    await Promise.all([
      simulator.simulate(request(config), fakeCall()),
      simulator.simulate(request(config), fakeCall()),
    ]);
    const events = (await Deno.readTextFile(journal)).trim().split("\n").map((l) => l.split(" ")[0]);
    assert.deepEqual(events, ["start", "end", "start", "end"]);

    await Deno.remove(journal);
    await Promise.all([
      simulator.simulate(request(config, { workspace: "one" }), fakeCall()),
      simulator.simulate(request(config, { workspace: "two" }), fakeCall()),
    ]);
    const parallel = (await Deno.readTextFile(journal)).trim().split("\n").map((l) => l.split(" ")[0]);
    assert.deepEqual(parallel.slice(0, 2), ["start", "start"]);
  });
});

Deno.test("a workspace or bxp-mcp-sim folder that is a symlink is refused and left untouched", async () => {
  await withTemp(async (tmp) => {
    const outside = join(tmp, "outside");
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "keep.txt"), "precious");
    const base = join(tmp, "base");
    await Deno.mkdir(join(base, "bxp-mcp-sim"), { recursive: true });
    await Deno.symlink(outside, join(base, "bxp-mcp-sim", "t"));
    const simulator = new Simulator({ ...host(tmp), tempBase: () => base });
    const result = await simulator.simulate(request(fakeConfig({})), fakeCall());
    assert.equal(result.isError, true);
    const answer = JSON.parse(result.text);
    assert.match(answer.error, /symlink/);
    assert.equal(answer.detail, join(base, "bxp-mcp-sim", "t"));
    assert.equal(await Deno.readTextFile(join(outside, "keep.txt")), "precious");

    const base2 = join(tmp, "base2");
    await Deno.mkdir(base2);
    await Deno.symlink(outside, join(base2, "bxp-mcp-sim"));
    const second = await new Simulator({ ...host(tmp), tempBase: () => base2 }).simulate(
      request(fakeConfig({})),
      fakeCall(),
    );
    assert.equal(second.isError, true);
    assert.equal(JSON.parse(second.text).detail, join(base2, "bxp-mcp-sim"));
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["keep.txt"]);
  });
});
