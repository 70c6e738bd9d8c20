/**
 * bxp_simulate as real clients see it: the official MCP SDK client over stdio to the real bxp-mcp process
 * and the real bxp-cli. A 50 MB input answers within the client's limits and the session carries on; the
 * full output reads back through resources/read; a csv_path input keeps its file name, so the simulated
 * demo gives exactly the real run's output; and a bxp-mcp killed with SIGKILL takes its bxp-cli with it.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { entryArgs, REPO_ROOT, runBxpCli } from "../_support/processes.ts";
import { processAlive, ServerProcess, SLOW_CONFIG, SLOW_CSV } from "./_support/server_process.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface CallResult {
  content: { type: string; text?: string; uri?: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

async function connect(root: string, tmpDir: string) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: entryArgs("bxp-mcp", ["--root", root]),
    env: { TMPDIR: tmpDir, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stderr: "pipe",
  });
  const errors: unknown[] = [];
  const client = new Client({ name: "bxp-sim-test", version: "1.0.0" });
  client.onerror = (error: unknown) => errors.push(error);
  await client.connect(transport);
  return { client, errors };
}

const PASS_CONFIG = `{
  conversion_templates: {
    pass: {
      data_dir: ".",
      file_pattern_in: ".csv",
      file_pattern_out: ".out.csv",
      input_schema: { $id: "[id]", $name: "UPPER([name])", $amount: "[amount]" },
      row_rules: [{ when: "TRUE", rows: [{}] }],
      output_schema: { id: "$id", name: "$name", amount: "$amount" },
    },
  },
}`;

async function withDirs(fn: (root: string, tmp: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "bxp-sim-root-" });
  const tmp = await Deno.makeTempDir({ prefix: "bxp-sim-tmp-" });
  try {
    await fn(root, tmp);
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "the SDK client simulates a 50 MB input, reads the output back by pages, and ten more calls succeed",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withDirs(async (root, tmp) => {
      const rows: string[] = ["id,name,amount"];
      for (let i = 0; rows.length <= 1_000_000; i++) {
        rows.push(`${i},name number ${i} of a great many rows,${i % 977}.25`);
      }
      const csv = rows.join("\n") + "\n";
      await Deno.writeTextFile(join(root, "big.csv"), csv);
      assert.ok(csv.length > 50_000_000, `${csv.length} bytes`);
      await Deno.writeTextFile(join(root, "pass.json5"), PASS_CONFIG);

      const { client, errors } = await connect(root, tmp);
      try {
        const progress: string[] = [];
        const result = await client.callTool(
          { name: "bxp_simulate", arguments: { path: "pass.json5", template: "pass", csv_path: "big.csv" } },
          undefined,
          {
            timeout: 120_000,
            resetTimeoutOnProgress: true,
            onprogress: (p: { message?: string }) => progress.push(p.message ?? ""),
          },
        ) as CallResult;
        assert.equal(result.isError, false, result.content[0].text?.slice(0, 500));
        const report = result.structuredContent;
        assert.equal(report.status, "ok", report.diagnostics);
        assert.equal(report.input.file, "big.csv");
        assert.equal(report.input.records, 1_000_000);
        assert.equal(report.output_records, 1_000_000);
        const [output] = report.outputs;
        assert.equal(output.file, "big.out.csv");
        assert.equal(output.rows_shown, 20);
        const answerBytes = JSON.stringify(result).length;
        assert.ok(answerBytes < 300 * 1024, `the answer is ${answerBytes} bytes`);
        assert.ok(progress.includes("running conversion"), progress.join(" | "));
        assert.ok(progress.some((m) => /^running conversion: \d+ records/.test(m)), progress.join(" | "));

        // resources/read: the first page, then the next one it names.
        const links = result.content.filter((c) => c.type === "resource_link");
        assert.equal(links[0].uri, output.uri);
        const first = await client.readResource({ uri: output.uri }) as Json;
        const [page, info] = first.contents;
        assert.ok(page.text.startsWith("id,name,amount\n0,NAME NUMBER 0 OF A GREAT MANY ROWS,0.25\n"));
        const meta = JSON.parse(info.text);
        assert.equal(meta.page, 0);
        assert.equal(meta.total_bytes, output.bytes);
        assert.ok(meta.pages > 40, `${meta.pages} pages`);
        const second = await client.readResource({ uri: meta.next }) as Json;
        assert.match(
          second.contents[0].text.split("\n")[0],
          /^\d+,NAME NUMBER \d+ OF A GREAT MANY ROWS,\d+\.25$/,
        );
        assert.equal(JSON.parse(second.contents[1].text).from_byte, meta.to_byte);
        const listed = await client.listResources() as Json;
        assert.ok(listed.resources.some((r: Json) => r.uri === output.uri));
        await assert.rejects(client.readResource({ uri: "bxp-sim://nope/output/x.csv" }));

        // The session is still healthy: ten more calls.
        for (let i = 0; i < 10; i++) {
          const small = await client.callTool({
            name: "bxp_simulate",
            arguments: { config: PASS_CONFIG, template: "pass", csv: `id,name,amount\n${i},a,1\n` },
          }) as CallResult;
          assert.equal(small.isError, false);
          assert.equal(small.structuredContent.outputs[0].csv, `id,name,amount\n${i},A,1\n`);
        }
        assert.deepEqual(errors, []);
      } finally {
        await client.close();
      }
      // The session's end removed every workspace.
      const left = [...Deno.readDirSync(join(tmp, "bxp-mcp-sim"))];
      assert.deepEqual(left, [], "no workspace outlives the session");
    });
  },
});

Deno.test({
  name: "simulating samples/demo from csv_path gives the real run's output, byte for byte",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withDirs(async (root, tmp) => {
      const demo = new URL("samples/demo/", REPO_ROOT);
      const input = "statement_2024-01-01_2024-12-31.csv";
      await Deno.mkdir(join(root, "data"));
      await Deno.copyFile(new URL("bxp-cli.json", demo), join(root, "bxp-cli.json"));
      await Deno.copyFile(new URL(`data/${input}`, demo), join(root, "data", input));
      const real = await runBxpCli(["--config", join(root, "bxp-cli.json")]);
      assert.equal(real.code, 0, real.stderr);
      const produced = await Deno.readFile(join(root, "data", "statement_2024-01-01_2024-12-31.tracker.csv"));
      await Deno.remove(join(root, "data", "statement_2024-01-01_2024-12-31.tracker.csv"));

      const { client } = await connect(root, tmp);
      try {
        const result = await client.callTool({
          name: "bxp_simulate",
          arguments: { path: "bxp-cli.json", template: "broker_to_tracker", csv_path: `data/${input}` },
        }) as CallResult;
        const report = result.structuredContent;
        assert.equal(report.input.file, input);
        const [output] = report.outputs;
        assert.equal(output.file, "statement_2024-01-01_2024-12-31.tracker.csv");
        assert.equal(output.sha256, createHash("sha256").update(produced).digest("hex"));
        const realRecords = new TextDecoder().decode(produced).trim().split("\n").length - 1;
        assert.equal(report.output_records, realRecords);
        // With an inline csv and no file_name the date range in the name is lost: not the real run.
        const inline = await client.callTool({
          name: "bxp_simulate",
          arguments: {
            path: "bxp-cli.json",
            template: "broker_to_tracker",
            csv: await Deno.readTextFile(join(root, "data", input)),
            file_name: input,
          },
        }) as CallResult;
        assert.equal(inline.structuredContent.outputs[0].sha256, output.sha256, "file_name restores it");
        const missing = await client.callTool({
          name: "bxp_simulate",
          arguments: { path: "bxp-cli.json", template: "broker_to_tracker" },
        }) as CallResult;
        assert.equal(missing.isError, true);
        assert.match(missing.content[0].text!, /csv_path/);
      } finally {
        await client.close();
      }
    });
  },
});

Deno.test({
  name: "SIGKILL of bxp-mcp during a long simulate: bxp-cli sees its stdin close and exits",
  ignore: Deno.build.os === "windows",
  async fn() {
    const server = await ServerProcess.start();
    try {
      await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
      await server.response(1);
      await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await server.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "bxp_simulate", arguments: { config: SLOW_CONFIG, template: "slow", csv: SLOW_CSV } },
      });
      const pidLine = /bxp-cli pid (\d+) running/;
      await server.waitUntil(() => pidLine.test(server.stderr), "bxp-cli to start");
      const pid = Number(pidLine.exec(server.stderr)![1]);
      assert.ok(await processAlive(pid), "bxp-cli is running");
      Deno.kill(server.pid, "SIGKILL");
      let gone = false;
      for (let i = 0; i < 200 && !gone; i++) {
        gone = !await processAlive(pid);
        if (!gone) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(gone, "bxp-cli exited after its parent was killed");
    } finally {
      await server.dispose();
    }
  },
});

Deno.test({
  name: "parallel simulate calls on the real server queue behind two running bxp-cli and say so",
  async fn() {
    const server = await ServerProcess.start();
    try {
      await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
      await server.response(1);
      await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const csv = SLOW_CSV.split("\n").slice(0, 1500).join("\n") + "\n";
      const ids = [10, 11, 12, 13, 14];
      for (const id of ids) {
        await server.call(id, "bxp_simulate", { config: SLOW_CONFIG, template: "slow", csv }, {
          progressToken: `q${id}`,
        });
      }
      const reports = [];
      for (const id of ids) reports.push((await server.response(id, 120_000)).result.structuredContent);
      assert.ok(reports.every((r) => r.status === "ok"), JSON.stringify(reports.map((r) => r.status)));
      const queued = reports.filter((r) => r.queued_ms > 0);
      assert.ok(queued.length >= 3, `queued: ${reports.map((r) => r.queued_ms).join(", ")}`);
      const waiting = server.messages.filter((m) =>
        m.method === "notifications/progress" &&
        m.params.message?.startsWith("waiting for a free simulation slot")
      );
      assert.ok(waiting.length >= ids.length, "every call reported the waiting step");
      const pids = [...server.stderr.matchAll(/bxp-cli pid (\d+) running/g)];
      assert.equal(pids.length, ids.length, "one bxp-cli per call, started one after another");
      assert.equal(await server.close(), 0);
    } finally {
      await server.dispose();
    }
  },
});
