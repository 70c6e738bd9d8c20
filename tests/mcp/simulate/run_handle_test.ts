/**
 * Run handles (SEP-2567) through the real bxp-mcp: the official v2 client in its sessionless 2026-07-28
 * mode simulates, then reads the whole output back by handle in pages in later requests, over stdio and
 * over HTTP (there from a second client of the same address); a made-up, malformed or foreign handle is
 * refused with what to do, and neither the handle nor any answer names a server path.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { entryArgs } from "../../_support/processes.ts";
import { HttpServerProcess } from "../http/_support.ts";

const MODERN = "2026-07-28";

// deno-lint-ignore no-explicit-any
type Json = any;

interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

const CONFIG = `{
  conversion_templates: {
    pass: {
      data_dir: ".",
      file_pattern_in: ".csv",
      file_pattern_out: ".out.csv",
      input_schema: { $id: "[id]", $name: "UPPER([name])" },
      row_rules: [{ when: "TRUE", rows: [{}] }],
      output_schema: { id: "$id", name: "$name" },
    },
  },
}`;

/** 3000 rows, with non-ASCII names so a page boundary could fall inside a character. */
const CSV = ["id,name", ...Array.from({ length: 3000 }, (_, i) => `${i},näme ${i} "q"`)].join("\n") + "\n";

async function stdioClient(tmpDir: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: entryArgs("bxp-mcp"),
    env: { TMPDIR: tmpDir, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stderr: "pipe",
  });
  const client = new Client({ name: "bxp-run-handle-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: MODERN } },
  });
  await client.connect(transport, { timeout: 60_000 });
  return client;
}

async function httpClient(server: HttpServerProcess, mode: "legacy" | { pin: string }): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.auth },
  });
  const client = new Client({ name: "bxp-run-handle-http-test", version: "1.0.0" }, {
    versionNegotiation: { mode },
  });
  await client.connect(transport, { timeout: 60_000 });
  return client;
}

async function simulate(client: Client): Promise<Json> {
  const result = await client.callTool(
    { name: "bxp_simulate", arguments: { config: CONFIG, template: "pass", csv: CSV, sample_rows: 2 } },
    { timeout: 120_000 },
  ) as CallResult;
  assert.equal(result.isError, false, result.content[0]?.text);
  return result.structuredContent;
}

async function readRun(client: Client, args: Record<string, unknown>): Promise<CallResult> {
  return await client.callTool({ name: "bxp_read_run", arguments: args }) as CallResult;
}

/** Read `part` of `run` page by page (small pages); returns the pages' answers. */
async function readAll(client: Client, run: string, part: string, seen: string[]): Promise<Json[]> {
  const pages: Json[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const answer = await readRun(client, { run, part, offset, max_bytes: 8192 });
    const text = answer.content[0].text!;
    seen.push(text);
    assert.equal(answer.isError, false, text);
    const page = JSON.parse(text);
    assert.equal(page.offset, offset);
    assert.ok(page.bytes > 0 && page.bytes <= 8192, `${page.bytes}-byte page`);
    pages.push(page);
    offset = page.next_offset;
    assert.ok(pages.length < 500, "the pages end");
  }
  return pages;
}

/** The common checks: the output read back whole, the report and trace readable, refusals clear. */
async function checkReads(client: Client, report: Json, tmpDir: string): Promise<void> {
  const run: string = report.run;
  assert.match(run, /^bxr_[A-Za-z0-9_-]{22}$/);
  assert.ok(!run.includes(report.workspace), "the handle is not the workspace name");
  assert.equal(report.run_expires_after_idle_s, 1800);
  const seen: string[] = [];

  const pages = await readAll(client, run, "output", seen);
  assert.ok(pages.length > 3, `${pages.length} pages`);
  const whole = pages.map((p) => p.text).join("");
  const [output] = report.outputs;
  assert.equal(pages[0].name, output.file);
  assert.equal(pages[0].total_bytes, output.bytes);
  assert.equal(createHash("sha256").update(whole).digest("hex"), output.sha256, "the pages join to the file");
  for (const page of pages.slice(0, -1)) assert.ok(page.text.endsWith("\n"), "pages end at whole lines");

  // The whole report, uncut, and the trace.
  const reportPages = await readAll(client, run, "report", seen);
  const full = JSON.parse(reportPages.map((p) => p.text).join(""));
  assert.equal(full.output_records, 3000);
  assert.equal(full.run, run);
  const trace = JSON.parse((await readRun(client, { run, part: "trace", max_bytes: 4096 })).content[0].text!);
  assert.ok(trace.text.length > 0 && trace.next_offset !== null);

  // Refusals say what is wrong and what to do.
  const madeUp = await readRun(client, { run: "bxr_AAAAAAAAAAAAAAAAAAAAAA" });
  assert.equal(madeUp.isError, true);
  assert.match(madeUp.content[0].text!, /unknown run handle: .*simulate again/);
  const malformed = await readRun(client, { run: "../../etc/passwd" });
  assert.equal(malformed.isError, true);
  assert.match(malformed.content[0].text!, /not a run handle/);
  const noFile = await readRun(client, { run, name: "other.csv" });
  assert.match(noFile.content[0].text!, /no output file 'other\.csv'; its outputs: "input\.out\.csv"/);
  const past = await readRun(client, { run, offset: output.bytes + 1 });
  assert.match(past.content[0].text!, /past the end/);
  seen.push(madeUp.content[0].text!, malformed.content[0].text!, noFile.content[0].text!);

  for (const text of seen) assert.ok(!text.includes(tmpDir), "no answer names the server's temp folder");
}

Deno.test({
  name: "over stdio, a 2026-07-28 client simulates and reads the whole output by handle in later requests",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmpDir = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-run-handle-" }));
    const client = await stdioClient(tmpDir);
    const other = await stdioClient(tmpDir);
    try {
      const report = await simulate(client);
      await checkReads(client, report, tmpDir);
      // Another client (another bxp-mcp process) does not know the handle.
      const foreign = await readRun(other, { run: report.run });
      assert.equal(foreign.isError, true);
      assert.match(foreign.content[0].text!, /unknown run handle/);
    } finally {
      await client.close();
      await other.close();
      await Deno.remove(tmpDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "over HTTP, a handle from one sessionless request reads in later ones (a new client of the address)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await HttpServerProcess.start();
    const first = await httpClient(server, { pin: MODERN });
    const later = await httpClient(server, { pin: MODERN });
    const legacy = await httpClient(server, "legacy");
    try {
      const report = await simulate(first);
      await first.close();
      await checkReads(later, report, server.tmpDir);
      // A legacy session is a client of its own: the modern requests' handle is foreign there, and its
      // own simulation's handle reads in that session (handles work in both eras).
      const foreign = await readRun(legacy, { run: report.run });
      assert.equal(foreign.isError, true);
      assert.match(foreign.content[0].text!, /unknown run handle/);
      const own = await simulate(legacy);
      const page = await readRun(legacy, { run: own.run, max_bytes: 2048 });
      assert.equal(page.isError, false, page.content[0].text);
      assert.ok(JSON.parse(page.content[0].text!).text.startsWith("id,name\n0,NÄME 0"));
      assert.ok(!server.stderr.includes(report.run), "the log never shows a handle");
    } finally {
      await later.close();
      await legacy.close();
      await server.dispose();
    }
  },
});
