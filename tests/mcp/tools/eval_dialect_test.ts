/**
 * bxp_eval, bxp_eval_batch and bxp_eval_trace read a row in the run's dialect when asked, through a real
 * bxp-mcp: `decimal_separator`, or a template's (from an inline config, a config file under the root, or
 * the template library), with the template's maps; an unknown template is refused with the ids there
 * are. Without these arguments an answer is what it always was.
 */
import assert from "node:assert/strict";
import { resultText, ServerProcess, type Wire } from "../_support/server_process.ts";

const ROW = { headers: ["Amount", "Sym"], fields: ["172,50", "BTC"] };

const CONFIG = `{
  maps: { sym: { BTC: "BTC-USD" } },
  conversion_templates: {
    card: { data_dir: ".", file_pattern_in: ".csv", input_schema: {}, output_schema: {} },
    bank: {
      data_dir: ".",
      file_pattern_in: ".csv",
      csv_delimiter_in: ";",
      csv_decimal_separator_in: ",",
      maps: { sym: { BTC: "BTC-EUR" } },
      input_schema: {},
      output_schema: {},
    },
  },
}`;

let ids = 0;

async function call(server: ServerProcess, name: string, args: unknown): Promise<Wire> {
  const id = `c${ids++}`;
  await server.call(id, name, args);
  return (await server.response(id)).result;
}

/** The `{ok, value}` (or error) answer of a bxp_eval call that did not fail. */
async function evaluated(server: ServerProcess, args: Record<string, unknown>): Promise<Wire> {
  const result = await call(server, "bxp_eval", args);
  assert.equal(result.isError, false, JSON.stringify(result).slice(0, 400));
  return JSON.parse(resultText({ result }));
}

Deno.test("bxp_eval reads a decimal comma as the run does when given the separator or the template", async () => {
  const root = await Deno.makeTempDir({ prefix: "bxp-eval-dialect-" });
  await Deno.writeTextFile(`${root}/bxp.json5`, CONFIG);
  const server = await ServerProcess.start(["--root", root]);
  try {
    const expr = "[Amount] * 1";
    // Today's answer, unchanged without the new arguments.
    const plain = await evaluated(server, { expr, ...ROW });
    assert.equal(plain.ok, false);
    assert.equal(plain.error, "NotANumber");

    assert.deepEqual(await evaluated(server, { expr, ...ROW, decimal_separator: "," }), {
      ok: true,
      value: "172.5",
    });
    assert.deepEqual(await evaluated(server, { expr, ...ROW, decimal_separator: "." }), plain);
    // The template's csv_decimal_separator_in, from inline text or a file under the root.
    for (const source of [{ config: CONFIG }, { path: "bxp.json5" }]) {
      assert.deepEqual(await evaluated(server, { expr, ...ROW, template: "bank", ...source }), {
        ok: true,
        value: "172.5",
      });
    }
    // The template's own maps over the config's; the other template keeps the config's map and the dot.
    const remap = { expr: "REMAP([Sym], 'sym')", ...ROW, config: CONFIG };
    assert.equal((await evaluated(server, { ...remap, template: "bank" })).value, "BTC-EUR");
    assert.equal((await evaluated(server, { ...remap, template: "card" })).value, "BTC-USD");
    assert.equal((await evaluated(server, { expr, ...ROW, config: CONFIG, template: "card" })).ok, false);
    // A call's own map replaces the template's of that name; its separator overrides the template's.
    const own = { maps: [{ map: "sym", key: "BTC", value: "XBT" }] };
    assert.equal((await evaluated(server, { ...remap, template: "bank", ...own })).value, "XBT");
    const dotted = await evaluated(server, {
      expr,
      ...ROW,
      config: CONFIG,
      template: "bank",
      decimal_separator: ".",
    });
    assert.equal(dotted.ok, false);
    // A library template by id alone: its maps (revolutx: BTC -> BTC-USD).
    const library = { expr: "REMAP([Sym], 'revolutx')", ...ROW, template: "revolutx_to_wealthfolio" };
    assert.equal((await evaluated(server, library)).value, "BTC-USD");
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("bxp_eval_batch and bxp_eval_trace take the dialect too, inline and on a worker", async () => {
  const server = await ServerProcess.start([]);
  try {
    // A regular expression is never answered inline: the second expression runs the job on a worker.
    for (const second of ["[Amount] + 1", "IF(REGEX_MATCH([Sym], '^B'), [Amount] + 1, 0)"]) {
      const result = await call(server, "bxp_eval_batch", {
        ...ROW,
        exprs: ["[Amount] * 2", second],
        config: CONFIG,
        template: "bank",
      });
      assert.equal(result.isError, false, JSON.stringify(result).slice(0, 400));
      assert.deepEqual(JSON.parse(resultText({ result })).results, [
        { ok: true, value: "345" },
        { ok: true, value: "173.5" },
      ]);
    }
    const batch = await call(server, "bxp_eval_batch", {
      ...ROW,
      exprs: ["[Amount] * 2"],
      decimal_separator: ",",
    });
    assert.deepEqual(JSON.parse(resultText({ result: batch })).results, [{ ok: true, value: "345" }]);

    const trace = await call(server, "bxp_eval_trace", {
      expr: "ROUND([Amount], 0)",
      ...ROW,
      decimal_separator: ",",
    });
    assert.equal(trace.isError, false);
    const lines = resultText({ result: trace }).trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.at(-1), { t: "final", value: "173" });
  } finally {
    await server.close();
  }
});

Deno.test("an unknown template is refused naming the templates there are", async () => {
  const server = await ServerProcess.start([]);
  try {
    for (const name of ["bxp_eval", "bxp_eval_trace"]) {
      const refused = await call(server, name, {
        expr: "[Amount] * 1",
        ...ROW,
        config: CONFIG,
        template: "bnak",
      });
      assert.equal(refused.isError, true, name);
      assert.equal(
        resultText({ result: refused }),
        "error: template 'bnak' not found in the config; its templates: card, bank",
      );
    }
    const batch = await call(server, "bxp_eval_batch", {
      ...ROW,
      exprs: ["1"],
      config: CONFIG,
      template: "x",
    });
    assert.equal(batch.isError, true);
    assert.match(
      resultText({ result: batch }),
      /template 'x' not found in the config; its templates: card, bank/,
    );
    // Two templates and no id: the id is asked for, with the choices.
    const unnamed = await call(server, "bxp_eval", { expr: "1", config: CONFIG });
    assert.equal(unnamed.isError, true);
    assert.match(resultText({ result: unnamed }), /'template' must name the template .*: card, bank/);
    // Not in the library either.
    const library = await call(server, "bxp_eval", { expr: "1", template: "revolut_to_wealthfolio" });
    assert.equal(library.isError, true);
    assert.match(
      resultText({ result: library }),
      /not found in the template library.*revolutx_to_wealthfolio/,
    );
    // A separator the run does not offer the model is refused by the schema.
    const semicolon = await call(server, "bxp_eval", { expr: "1", decimal_separator: ";" });
    assert.equal(semicolon.isError, true);
    assert.match(resultText({ result: semicolon }), /decimal_separator/);
    // Broken config text is refused, not evaluated without its dialect.
    const broken = await call(server, "bxp_eval", {
      expr: "1",
      config: "{conversion_templates: {",
      template: "a",
    });
    assert.equal(broken.isError, true);
    assert.match(resultText({ result: broken }), /config does not parse/);
  } finally {
    await server.close();
  }
});
