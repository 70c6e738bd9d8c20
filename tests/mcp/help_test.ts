import assert from "node:assert/strict";
import { helpText, SERVER_INSTRUCTIONS, serverInstructions } from "../../src/mcp/help.ts";
import { versionText } from "../../src/mcp/identity.ts";
import { BXP_TOOLS, type BxpTool } from "../../src/mcp/tools/catalog.ts";
import { VERSION } from "../../src/version.ts";

Deno.test("versionText is 'bxp-mcp <version>' and a newline", () => {
  assert.equal(versionText(), `bxp-mcp ${VERSION}\n`);
});

Deno.test("helpText lists every catalog tool with its title, and follows the catalog it is given", () => {
  const text = helpText();
  for (const tool of BXP_TOOLS) {
    const note = tool.requiresWrite ? " \\(with --allow-write\\)" : "";
    assert.match(text, new RegExp(`\\n  ${tool.name} +${tool.title}${note}\\n`));
  }
  const extra: BxpTool = { ...BXP_TOOLS[0], name: "bxp_extra_tool", title: "An extra tool" };
  assert.match(helpText([...BXP_TOOLS, extra]), /\n {2}bxp_extra_tool +An extra tool\n/);
});

Deno.test("the instructions point the agent at bxp_docs, bxp_eval_trace and bxp_simulate", () => {
  assert.match(SERVER_INSTRUCTIONS, /bxp_docs first/);
  assert.match(SERVER_INSTRUCTIONS, /bxp_eval_trace to debug an expression/);
  assert.match(SERVER_INSTRUCTIONS, /bxp_simulate to verify a finished config/);
});

Deno.test("the instructions give the path rules, the budgets, and name extra catalog tools", () => {
  assert.match(SERVER_INSTRUCTIONS, /relative to the project root/);
  assert.match(SERVER_INSTRUCTIONS, /working directory is never the root/);
  assert.match(SERVER_INSTRUCTIONS, /max_bytes \(default 262144 bytes, at most 4194304\)/);
  assert.match(SERVER_INSTRUCTIONS, /stop after 5 s/);
  const extra: BxpTool = { ...BXP_TOOLS[0], name: "bxp_peek_csv", title: "Peek" };
  assert.match(serverInstructions([...BXP_TOOLS.slice(0, 9), extra]), /sample files with bxp_peek_csv\./);
  assert.doesNotMatch(serverInstructions(BXP_TOOLS.filter((t) => !t.requiresWrite)), /bxp_write_config/);
});
