import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  toCallToolResult,
  type ToolCall,
  toolFailure,
  type ToolResult,
} from "../../../src/mcp/protocol/mod.ts";
import { createHash } from "node:crypto";
import {
  CliNotFoundError,
  Gate,
  resolveBxpCli,
  SIMULATE_STEPS,
  type SimulateHost,
  type SimulateLimits,
  Simulator,
} from "../../../src/mcp/simulate/mod.ts";
import { denoCliHost } from "../../../src/mcp/simulate/bxp_cli.ts";
import { CONFORMANCE_DIR } from "../../_support/processes.ts";
import { processAlive, processGone } from "../_support/server_process.ts";

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
  options: { fake?: boolean; timeoutMs?: number; logs?: string[]; limits?: Partial<SimulateLimits> } = {},
): SimulateHost {
  return {
    limits: options.limits,
    processGate: new Gate(8),
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
  extra: Partial<{
    template: string;
    csv: string;
    workspace: string;
    fileName: string;
    sampleRows: number;
    maxBytes: number;
  }> = {},
) => ({
  config,
  template: extra.template ?? "t",
  csv: extra.csv ?? "v\nx\n",
  workspace: extra.workspace ?? null,
  fileName: extra.fileName ?? null,
  sampleRows: extra.sampleRows,
  maxBytes: extra.maxBytes,
});

// deno-lint-ignore no-explicit-any
type Json = any;

/** The structured answer of a result (a failure's JSON text otherwise). */
function answerOf(result: ToolResult): Json {
  return result.structured ?? JSON.parse(result.text);
}

/** Every page of a resource, concatenated, following each page's `next`. */
async function readAll(simulator: Simulator, uri: string): Promise<string> {
  let text = "";
  for (let at: string | null = uri; at !== null;) {
    const contents = await simulator.resources.read(at);
    assert.ok(contents !== null, at);
    text += contents[0].text;
    at = JSON.parse(contents[1].text!).next;
  }
  return text;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

Deno.test("templates that cannot be simulated get bxp's ok:false answers, before anything is staged", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const plain = "file_pattern_in must be a plain filename suffix (no path separators or '..')";
    const cases: [string, Record<string, unknown> | null, string, string][] = [
      ["t", { xlsx_sheet: { name: "S" } }, "xlsx-input templates cannot be simulated from inline CSV", "t"],
      [
        "t",
        { file_type_in: "json" },
        "only CSV-input templates can be simulated (file_type_in must be csv)",
        "t",
      ],
      ["t", { file_pattern_in: "" }, "template is missing required file_pattern_in", "t"],
      ["t", { file_pattern_in: "/../../etc/x.csv" }, plain, "/../../etc/x.csv"],
      ["t", { file_pattern_in: "..csv" }, plain, "..csv"],
      ["t", { file_pattern_in: "a\\b.csv" }, plain, "a\\b.csv"],
    ];
    for (const [template, overrides, error, detail] of cases) {
      const call = fakeCall();
      const result = await simulator.simulate(request(fakeConfig({}, overrides ?? {}), { template }), call);
      assert.equal(result.isError, false, error);
      assert.deepEqual(result.structured, { ok: false, error, detail });
      assert.match(result.text, /^bxp_simulate could not run: /);
      assert.deepEqual(call.steps.map((s) => s[0]), [1]);
    }
    assert.deepEqual([...Deno.readDirSync(tmp)], [], "nothing staged");
  });
});

Deno.test("a template that is not there lists the config's ids; a JSON5 error says where it is", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const missing = await simulator.simulate(request(fakeConfig({}), { template: "nope" }), fakeCall());
    assert.deepEqual(missing.structured, {
      ok: false,
      error: "template not found in config",
      detail: "nope",
      available: ["t"],
    });
    const broken = await simulator.simulate(
      request('{\n  conversion_templates: {\n    t: { file_pattern_in: ".csv" ]\n}'),
      fakeCall(),
    );
    const answer = answerOf(broken);
    assert.match(answer.error, /^config is not valid JSON5: /);
    assert.equal(answer.detail, "line 3, column 34");
    assert.doesNotMatch(answer.error, /template not found/);
  });
});

Deno.test("the input file name: file_name or input<file_pattern_in>, a plain name ending with the pattern", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const config = fakeConfig({ listData: true }, { file_pattern_in: "_cash.csv" });
    const named = answerOf(
      await simulator.simulate(request(config, { fileName: "acct_2024-01-01_cash.csv" }), fakeCall()),
    );
    assert.equal(named.summary, "acct_2024-01-01_cash.csv\n", "staged under its own name, alone");
    assert.equal(named.input.file, "acct_2024-01-01_cash.csv");
    const plain = answerOf(await simulator.simulate(request(config), fakeCall()));
    assert.equal(plain.summary, "input_cash.csv\n");
    for (
      const [name, why] of [
        ["../x_cash.csv", /plain file name/],
        ["a/b_cash.csv", /plain file name/],
        ["x_cash.csv\n", /plain file name/],
        ["report.csv", /must end with the template's file_pattern_in "_cash.csv"/],
      ] as const
    ) {
      const refused = answerOf(await simulator.simulate(request(config, { fileName: name }), fakeCall()));
      assert.equal(refused.ok, false, name);
      assert.match(refused.error, why, name);
    }
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
  name: "the real bxp-cli converts the trading212 dataset: bounded answer, hash, pages equal the golden",
  ignore: CONFORMANCE_DIR === null,
  async fn() {
    await withTemp(async (tmp) => {
      const dir = new URL("datasets/trading212_to_wealthfolio/", CONFORMANCE_DIR!);
      const config = await Deno.readTextFile(new URL("sample.json", dir));
      const csv = await Deno.readTextFile(new URL("sample.csv", dir));
      const expected = await Deno.readTextFile(new URL("sample.expected", dir));
      const simulator = new Simulator(host(tmp, { fake: false }));
      const call = fakeCall();
      const template = "trading212_to_wealthfolio";
      const result = await simulator.simulate(
        request(config, { template, csv, workspace: "my run#1" }),
        call,
      );
      assert.equal(result.isError, false, result.text.slice(0, 400));
      const report = answerOf(result);
      assert.equal(report.ok, true);
      assert.equal(report.status, "ok", report.diagnostics);
      assert.match(report.workspace, /^my_run_1-/);
      assert.ok(!JSON.stringify(report).includes(tmp), "no absolute server path in the answer");
      assert.ok(!JSON.stringify(report).includes(csv.slice(0, 200)), "the input is not echoed");
      assert.equal(report.input.file, "input.csv");
      const [output] = report.outputs;
      assert.equal(output.file, "input.csvx");
      assert.equal(output.sha256, sha256(expected));
      assert.equal(output.bytes, new TextEncoder().encode(expected).length);
      assert.equal(output.records, report.trace.written_rows);
      assert.equal(output.rows_shown, 20);
      assert.equal(output.complete, false);
      assert.ok(expected.startsWith(output.csv));
      assert.equal(output.csv.trimEnd().split("\n").length, 21, "header and 20 rows");
      assert.equal(report.input.records, report.trace.source_rows);
      assert.equal(report.trace.output_rows.sample.length, 20);
      assert.deepEqual(report.findings, []);
      assert.deepEqual(report.cut, []);
      assert.equal(report.queued_ms, 0);
      assert.doesNotMatch(result.text, /queued/);
      assert.match(result.text, /^bxp_simulate trading212_to_wealthfolio: ok \(exit 0\)/);
      assert.ok(result.text.split("\n").length <= 10, "the text is a short summary");
      // The full output comes back through the resource, page by page.
      assert.equal(output.uri, `bxp-sim://${report.workspace}/output/input.csvx`);
      assert.equal(await readAll(simulator, output.uri), expected);
      assert.deepEqual(result.links!.map((l) => l.uri), [output.uri, report.trace.uri]);
      const traceText = await readAll(simulator, report.trace.uri);
      assert.match(traceText, /^file_start/);
      assert.equal(traceText.match(/^output_row/gm)!.length, report.trace.written_rows);
      // Progress: the five steps in order, each value above the last.
      const values = call.steps.map((s) => s[0]);
      assert.ok(values.every((v, i) => i === 0 || v > values[i - 1]), JSON.stringify(values));
      for (const [i, message] of SIMULATE_STEPS.entries()) {
        assert.ok(call.steps.some((s) => s[0] === i + 1 && s[1] === 5 && s[2] === message), message);
      }
      // The kept workspace holds outputs and trace only; close() removes it.
      const simRoot = join(tmp, "bxp-mcp-sim");
      const workspace = join(simRoot, report.workspace);
      assert.equal((await Deno.stat(workspace)).mode! & 0o777, 0o700);
      assert.deepEqual([...Deno.readDirSync(join(workspace, "data"))].map((e) => e.name), ["input.csvx"]);
      assert.deepEqual(
        [...Deno.readDirSync(workspace)].map((e) => e.name).sort(),
        ["data", "report.json", "trace.bxtb", "trace.txt"],
        "the staged input and config are gone; the whole report is kept for bxp_read_run; the trace text " +
          "was rendered for the read above",
      );
      // The whole file when sample_rows covers it.
      const full = answerOf(
        await simulator.simulate(request(config, { template, csv, sampleRows: 1000 }), fakeCall()),
      );
      assert.equal(full.outputs[0].csv, expected);
      assert.equal(full.outputs[0].complete, true);
      assert.notEqual(full.workspace, report.workspace, "every call has its own workspace");
      await simulator.close();
      assert.deepEqual([...Deno.readDirSync(simRoot)], []);
      assert.equal(await simulator.resources.read(output.uri), null);
      const after = await simulator.simulate(request(config, { template, csv }), fakeCall());
      assert.equal(after.isError, true);
      assert.match(after.text, /session is ending/);
    });
  },
});

Deno.test("exit code, outputs in name order, streamed big output, trace samples cut to sample_rows", async () => {
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
    const result = await simulator.simulate(request(config, { csv, sampleRows: 50 }), fakeCall());
    const report = answerOf(result);
    assert.equal(result.isError, false);
    assert.equal(report.exit_code, 2);
    assert.equal(report.status, "warnings");
    assert.equal(report.summary, "summary text\n");
    assert.equal(report.diagnostics, "warning: something\n");
    // The stand-in's trace read 251 records of the 300 lines: the report says which count is which, and why.
    const { not_records: why, ...input } = report.input;
    assert.deepEqual(input, {
      file: "input_cash.csv",
      bytes: csv.length,
      records: 251,
      records_from: "trace",
      data_lines: 300,
    });
    assert.match(why, /^49 of the 300 non-empty lines after the first are not records/);
    const strip = ({ uri: _uri, ...rest }: Json) => rest;
    assert.deepEqual(report.outputs.slice(0, 2).map(strip), [
      {
        file: "a.csvx",
        records: 1,
        bytes: 8,
        sha256: sha256("h\r\n1\r\n\r\n"),
        rows_shown: 1,
        complete: true,
        csv: "h\r\n1\r\n\r\n",
      },
      {
        file: "b.csvx",
        records: 2,
        bytes: 6,
        sha256: sha256("h\n1\n2\n"),
        rows_shown: 2,
        complete: true,
        csv: "h\n1\n2\n",
      },
    ]);
    const big = report.outputs[2];
    assert.equal(big.file, "c.csvx");
    assert.equal(big.bytes, 16 * 1024 * 1024 + 1);
    assert.equal(big.sha256, createHash("sha256").update(new Uint8Array(big.bytes).fill(0x41)).digest("hex"));
    assert.equal(big.records, 0, "one line: a header only");
    assert.equal(big.csv, "", "a head with no whole line shows nothing");
    assert.equal(report.outputs.length, 3, "the staged input_cash.csv is not an output");
    assert.equal(report.output_records, 3);
    const trace = report.trace;
    assert.equal(trace.source_rows, 251);
    assert.equal(trace.filtered.count, 250);
    assert.equal(trace.filtered.sample.length, 50);
    assert.deepEqual(trace.filtered.sample[49], { input_row: 51, source_offset: 100, reason: "rule_skip" });
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

Deno.test("max_bytes bounds the whole answer; the cuts are listed and counts stay exact", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const rows = Array.from({ length: 2000 }, (_, i) => `${i},${"w".repeat(200)}`).join("\n");
    const config = fakeConfig({
      outputs: { "a.csvx": `h,x\n${rows}\n`, "b.csvx": `h,x\n${rows}\n` },
      stderr: "d".repeat(100_000) + "\n",
      filteredRows: 9,
    });
    const maxBytes = 16 * 1024;
    const result = await simulator.simulate(request(config, { sampleRows: 1000, maxBytes }), fakeCall());
    const report = answerOf(result);
    const size = new TextEncoder().encode(JSON.stringify(toCallToolResult(result, true))).length;
    assert.ok(size <= maxBytes, `${size} bytes on the wire`);
    assert.ok(size > maxBytes - 4096, `${size} bytes: the budget is used, not squandered`);
    assert.equal(result.links!.length, 3, "links to both outputs and the trace");
    assert.ok(report.cut.length > 0);
    assert.ok(report.cut.some((c: string) => c.startsWith("output rows:")), report.cut.join("; "));
    assert.equal(report.outputs[0].records, 2000);
    assert.equal(report.outputs[0].complete, false);
    assert.ok(report.outputs[0].rows_shown < 1000);
    assert.equal(report.trace.filtered.count, 9);
    assert.match(result.text, /cut to fit max_bytes/);
  });
});

Deno.test("no trace file means trace.available false; the child sees only the minimal environment", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp, { limits: { heapMiB: 300 } }));
    const result = await simulator.simulate(request(fakeConfig({ printEnvKeys: true })), fakeCall());
    const report = answerOf(result);
    assert.deepEqual(report.trace, { available: false });
    assert.deepEqual(JSON.parse(report.summary).sort(), ["DENO_V8_FLAGS", "PATH", "TMPDIR"]);
    assert.equal(report.limits.heap_mib, 300);
  });
});

Deno.test("bxp-progress lines become progress notifications and leave the diagnostics; findings are answered", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp));
    const call = fakeCall();
    const findings = {
      findings: [{
        code: "dup",
        template: "t",
        column: "A",
        rule: 2,
        message: "m",
        extra: { x: 1 },
        file: 7,
      }],
    };
    const result = await simulator.simulate(
      request(fakeConfig({ progressLines: 4, stderr: "real warning\n", findings })),
      call,
    );
    const report = answerOf(result);
    assert.equal(report.diagnostics, "real warning\n");
    assert.deepEqual(report.findings, [{ code: "dup", template: "t", column: "A", rule: 2, message: "m" }]);
    const running = call.steps.filter((s) => /^running conversion: \d+ records/.test(s[2] ?? ""));
    assert.deepEqual(running.map((s) => s[2]), [
      "running conversion: 10 records, 100 of 1000 bytes",
      "running conversion: 20 records, 200 of 1000 bytes",
      "running conversion: 30 records, 300 of 1000 bytes",
      "running conversion: 40 records, 400 of 1000 bytes",
    ]);
    assert.ok(running.every((s) => s[0] > 4 && s[0] < 5 && s[1] === 5));
  });
});

Deno.test("the time limit kills bxp-cli and answers a tool failure without server paths", async () => {
  await withTemp(async (tmp) => {
    const logs: string[] = [];
    const simulator = new Simulator(host(tmp, { timeoutMs: 1_500, logs }));
    const result = await simulator.simulate(request(fakeConfig({ sleepMs: 60_000 })), fakeCall());
    assert.equal(result.isError, true);
    const answer = JSON.parse(result.text);
    assert.equal(answer.ok, false);
    assert.match(answer.error, /did not finish within 2 s and was killed/);
    assert.ok(!result.text.includes(tmp));
    const pid = Number(/pid (\d+)/.exec(logs.join("\n"))![1]);
    assert.ok(await processGone(pid));
    assert.deepEqual(
      [...Deno.readDirSync(join(tmp, "bxp-mcp-sim"))],
      [],
      "the failed run's workspace is gone",
    );
  });
});

Deno.test("a run writing past the disk budget is killed and the answer says so", async () => {
  await withTemp(async (tmp) => {
    const logs: string[] = [];
    const simulator = new Simulator(host(tmp, { logs, limits: { diskBudgetBytes: 1024 * 1024 } }));
    const result = await simulator.simulate(
      request(fakeConfig({ grow: { name: "big.csvx", chunkBytes: 256 * 1024 } })),
      fakeCall(),
    );
    assert.equal(result.isError, true);
    assert.match(JSON.parse(result.text).error, /over the 1048576-byte disk budget \(1 MiB per simulation\)/);
    const pid = Number(/pid (\d+)/.exec(logs.join("\n"))![1]);
    assert.ok(await processGone(pid));
    assert.deepEqual([...Deno.readDirSync(join(tmp, "bxp-mcp-sim"))], []);
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
    assert.ok(!call.steps.some((s) => s[0] >= 5), "no step after the abort");
  });
});

Deno.test("close() kills running children, removes every workspace, and refuses later calls", async () => {
  await withTemp(async (tmp) => {
    const logs: string[] = [];
    const simulator = new Simulator(host(tmp, { logs }));
    await simulator.simulate(request(fakeConfig({ outputs: { "kept.csvx": "h\n1\n" } })), fakeCall());
    assert.equal(simulator.resources.list().length, 1);
    const pending = simulator.simulate(request(fakeConfig({ sleepMs: 60_000 })), fakeCall());
    while (!logs.some((l) => /pid \d+/.test(l))) await new Promise((r) => setTimeout(r, 20));
    const pid = Number(/pid (\d+)/.exec(logs.join("\n"))![1]);
    await simulator.close();
    await assert.rejects(pending);
    assert.equal(await processAlive(pid), false);
    assert.deepEqual([...Deno.readDirSync(join(tmp, "bxp-mcp-sim"))], []);
    assert.deepEqual(simulator.resources.list(), []);
  });
});

Deno.test("calls with the same label, in one session or two, run in separate workspaces at once", async () => {
  await withTemp(async (tmp) => {
    const journal = join(tmp, "journal.txt");
    const config = fakeConfig({ sleepMs: 400, journal, listData: true });
    const one = new Simulator(host(tmp));
    const two = new Simulator(host(tmp)); // a second server process on the same temp folder
    const inputs = ["v\n1\n", "v\n1\n2\n", "v\n1\n2\n3\n"];
    const results = await Promise.all([
      one.simulate(request(config, { csv: inputs[0], workspace: "same" }), fakeCall()),
      one.simulate(request(config, { csv: inputs[1], workspace: "same" }), fakeCall()),
      two.simulate(request(config, { csv: inputs[2], workspace: "same" }), fakeCall()),
    ]);
    const reports = results.map(answerOf);
    assert.deepEqual(reports.map((r) => r.input.records), [1, 2, 3], "each run saw its own input");
    assert.deepEqual(reports.map((r) => r.summary), ["input.csv\n", "input.csv\n", "input.csv\n"]);
    assert.equal(new Set(reports.map((r) => r.workspace)).size, 3);
    const events = (await Deno.readTextFile(journal)).trim().split("\n").map((l) => l.split(" ")[0]);
    assert.deepEqual(events.slice(0, 2), ["start", "start"], "no turn-taking between workspaces");
    await one.close();
    await two.close();
  });
});

Deno.test("past the per-session limit calls queue (and say how long); a queued call can be cancelled", async () => {
  await withTemp(async (tmp) => {
    const logs: string[] = [];
    const simulator = new Simulator(host(tmp, { logs, limits: { perSession: 1 } }));
    const config = fakeConfig({ sleepMs: 1500 });
    const first = simulator.simulate(request(config), fakeCall());
    const queuedCall = fakeCall();
    const second = simulator.simulate(request(config), queuedCall);
    const cancelled = fakeCall();
    const third = simulator.simulate(request(config), cancelled);
    while (!logs.some((l) => /pid \d+/.test(l))) await new Promise((r) => setTimeout(r, 20));
    cancelled.abort();
    await assert.rejects(third, (e: unknown) => e instanceof DOMException && e.name === "AbortError");
    const [a, b] = (await Promise.all([first, second])).map(answerOf);
    assert.equal(a.queued_ms, 0, "the first call did not wait");
    assert.ok(b.queued_ms >= 500, `queued ${b.queued_ms} ms`);
    assert.equal(logs.filter((l) => /pid \d+/.test(l)).length, 2, "the cancelled call never started bxp-cli");
    assert.ok(queuedCall.steps.some((s) => s[2] === "waiting for a free simulation slot"));
    await simulator.close();
  });
});

Deno.test("the scratch folder must be a real folder of ours that nobody else can write", async () => {
  await withTemp(async (tmp) => {
    const outside = join(tmp, "outside");
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "keep.txt"), "precious");
    const tryBase = async (base: string) => {
      const result = await new Simulator({ ...host(tmp), tempBase: () => base }).simulate(
        request(fakeConfig({})),
        fakeCall(),
      );
      assert.equal(result.isError, true);
      const answer = JSON.parse(result.text);
      assert.equal(answer.detail, "$TMPDIR/bxp-mcp-sim");
      assert.ok(!result.text.includes(tmp), "no absolute server path");
      return answer.error as string;
    };
    const linked = join(tmp, "linked");
    await Deno.mkdir(linked);
    await Deno.symlink(outside, join(linked, "bxp-mcp-sim"));
    assert.match(await tryBase(linked), /symlink/);

    const open = join(tmp, "open");
    await Deno.mkdir(join(open, "bxp-mcp-sim"), { recursive: true });
    await Deno.chmod(join(open, "bxp-mcp-sim"), 0o777);
    assert.match(await tryBase(open), /writable by group or others \(mode 777\)/);
    assert.deepEqual([...Deno.readDirSync(join(open, "bxp-mcp-sim"))], [], "nothing created in it");

    if (Deno.build.os !== "windows" && Deno.uid() === 0) {
      const foreign = join(tmp, "foreign");
      await Deno.mkdir(join(foreign, "bxp-mcp-sim"), { recursive: true, mode: 0o700 });
      await Deno.chmod(join(foreign, "bxp-mcp-sim"), 0o700);
      await Deno.chown(join(foreign, "bxp-mcp-sim"), 65534, 65534);
      assert.match(await tryBase(foreign), /belongs to another user/);
      assert.deepEqual([...Deno.readDirSync(join(foreign, "bxp-mcp-sim"))], [], "its probe was removed");
    }
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["keep.txt"]);

    // A missing scratch folder is created 0700.
    const fresh = join(tmp, "fresh");
    await Deno.mkdir(fresh);
    const ok = await new Simulator({ ...host(tmp), tempBase: () => fresh }).simulate(
      request(fakeConfig({})),
      fakeCall(),
    );
    assert.equal(ok.isError, false, ok.text);
    assert.equal((await Deno.stat(join(fresh, "bxp-mcp-sim"))).mode! & 0o777, 0o700);
  });
});

Deno.test("the real bxp-cli's findings reach the answer (a template writing no rows)", async () => {
  await withTemp(async (tmp) => {
    const simulator = new Simulator(host(tmp, { fake: false }));
    const config = `{conversion_templates:{t:{data_dir:".",file_pattern_in:".csv",file_pattern_out:".out",
      input_schema:{$v:"[v]"},output_schema:{v:"$v"}}}}`;
    const report = answerOf(await simulator.simulate(request(config, { csv: "v\n1\n2\n" }), fakeCall()));
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.equal(report.output_records, 0);
    assert.ok(
      report.findings.some((f: Json) => f.code === "zero_rows" && f.template === "t"),
      JSON.stringify(report.findings),
    );
    assert.doesNotMatch(report.diagnostics, /bxp-progress/);
    await simulator.close();
  });
});
