/**
 * The whole agent workflow through the official SDK clients, over stdio and HTTP, in every era a client
 * can speak: the v1 client (`@modelcontextprotocol/sdk`, legacy 2025-11-25) and the v2 client
 * (`@modelcontextprotocol/client`) in its legacy, `auto` and pinned 2026-07-28 modes. Each one reads the
 * docs, lists the project's files, peeks at an export, drafts a template, validates the draft, simulates the
 * conversion and reads the output back by the run's handle, against a real bxp-mcp with `--root`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { entryArgs } from "../_support/processes.ts";
import { HttpServerProcess } from "./http/_support.ts";

const EXPORT = "Date;Payee;Amount\n02.01.2025;Stadtwerke;-84,20\n05.01.2025;Arbeitgeber GmbH;2.450,00\n" +
  "17.01.2025;Bäckerei Kurz;-6,35\n";

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What the workflow needs of a client, whichever SDK it is. */
interface AgentClient {
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function call(client: AgentClient, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const result = await client.callTool({ name, arguments: args }) as ToolResult;
  assert.notEqual(result.isError, true, `${name}: ${result.content[0]?.text?.slice(0, 400)}`);
  return result;
}

function structured(result: ToolResult): Record<string, unknown> {
  return result.structuredContent ?? JSON.parse(result.content[0].text!);
}

/** docs, list, peek, draft, validate, simulate, read the output back by handle. */
async function workflow(client: AgentClient): Promise<void> {
  const docs = await call(client, "bxp_docs", { section: "functions", name: "DATE_CONVERT" });
  assert.match(docs.content[0].text!, /DATE_CONVERT/);

  const files = structured(await call(client, "bxp_list_files", {}));
  assert.match(JSON.stringify(files), /statement\.csv/);

  const peek = structured(await call(client, "bxp_peek_csv", { path: "inbox/statement.csv" }));
  assert.match(JSON.stringify(peek), /Payee/);

  const draft = structured(await call(client, "bxp_draft_template", { csv_path: "inbox/statement.csv" }));
  const config = draft.config as string;
  const template = draft.template_id as string;
  assert.equal(typeof config, "string");
  assert.equal((draft.self_check as { ok: boolean }).ok, true, JSON.stringify(draft.self_check));

  const verdict = structured(await call(client, "bxp_validate", { config }));
  assert.equal(verdict.ok, true, JSON.stringify(verdict).slice(0, 600));

  const report = structured(
    await call(client, "bxp_simulate", { config, template, csv_path: "inbox/statement.csv" }),
  );
  assert.equal(report.status, "ok", JSON.stringify(report).slice(0, 600));
  const run = report.run as string;
  assert.match(run, /^bxr_/);
  const output = (report.outputs as { name: string }[])[0].name;

  const page = JSON.parse(
    (await call(client, "bxp_read_run", { run, part: "output", name: output })).content[0]
      .text!,
  );
  const rows = (page.text as string).trimEnd().split("\n");
  assert.equal(rows.length, 4, page.text); // the header and the three bookings
  assert.match(page.text, /Bäckerei Kurz/);
  assert.match(page.text, /-6\.35/);
}

async function project(): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "bxp-agent-" }));
  await Deno.mkdir(join(root, "inbox"));
  await Deno.writeTextFile(join(root, "inbox", "statement.csv"), EXPORT);
  return root;
}

function stdioParams(root: string, tmp: string) {
  return {
    command: Deno.execPath(),
    args: entryArgs("bxp-mcp", ["--root", root]),
    env: { TMPDIR: tmp, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stderr: "pipe" as const,
  };
}

type Mode = "v1" | "v2 legacy" | "v2 auto" | "v2 pinned 2026-07-28";
const MODES: Mode[] = ["v1", "v2 legacy", "v2 auto", "v2 pinned 2026-07-28"];

function v2Mode(mode: Mode): "legacy" | "auto" | { pin: string } {
  return mode === "v2 legacy" ? "legacy" : mode === "v2 auto" ? "auto" : { pin: "2026-07-28" };
}

for (const mode of MODES) {
  Deno.test({
    name:
      `agent workflow over stdio with the ${mode} client: docs, files, peek, draft, validate, simulate, read`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const root = await project();
      const tmp = await Deno.makeTempDir({ prefix: "bxp-agent-tmp-" });
      const client: AgentClient = mode === "v1"
        ? new V1Client({ name: "bxp-agent-v1", version: "1.0.0" })
        : new V2Client({ name: "bxp-agent-v2", version: "1.0.0" }, {
          versionNegotiation: { mode: v2Mode(mode) },
        });
      try {
        if (client instanceof V1Client) {
          await (client as V1Client).connect(new V1Stdio(stdioParams(root, tmp)), { timeout: 60_000 });
        } else await (client as V2Client).connect(new V2Stdio(stdioParams(root, tmp)), { timeout: 60_000 });
        await workflow(client);
      } finally {
        await client.close();
        await Deno.remove(root, { recursive: true });
        await Deno.remove(tmp, { recursive: true }).catch(() => {});
      }
    },
  });

  Deno.test({
    name:
      `agent workflow over HTTP with the ${mode} client: docs, files, peek, draft, validate, simulate, read`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const root = await project();
      const server = await HttpServerProcess.start([], "127.0.0.1", { root });
      const url = new URL(server.url);
      const requestInit = { headers: server.auth };
      const client: AgentClient = mode === "v1"
        ? new V1Client({ name: "bxp-agent-v1", version: "1.0.0" })
        : new V2Client({ name: "bxp-agent-v2", version: "1.0.0" }, {
          versionNegotiation: { mode: v2Mode(mode) },
        });
      try {
        if (client instanceof V1Client) {
          await (client as V1Client).connect(new V1Http(url, { requestInit }), { timeout: 60_000 });
        } else await (client as V2Client).connect(new V2Http(url, { requestInit }), { timeout: 60_000 });
        await workflow(client);
      } finally {
        await client.close();
        await server.dispose();
        await Deno.remove(root, { recursive: true }).catch(() => {});
      }
    },
  });
}
