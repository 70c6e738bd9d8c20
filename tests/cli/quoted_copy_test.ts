/**
 * Quoted input fields take the pass-through copy too (their text between the quotes is their value), so
 * every way a quoted field can differ from an unquoted one must still reach the output rules: the input
 * delimiter inside it, a doubled quote, a lazy quote, spaces, and a line holding one field only. Serial and
 * block-parallel runs alike, through the real bxp-cli.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runBxpCli } from "../_support/processes.ts";

const INPUT = [
  "name,code",
  '"a,b","1"',
  '"c",2',
  'plain," pad "',
  '"d""e",3',
  '"lazy"quote",4',
  '"only"',
  '"x,y"',
  "",
].join("\n");

type Columns = "both" | "name" | "reversed";

function config(quoteOut: string, columns: Columns): string {
  // `reversed` reads the columns right to left, so the copy checks visit a line's fields out of order.
  const input = columns === "both"
    ? '$name: "[name]", $code: "[code]"'
    : columns === "reversed"
    ? '$code: "[code]", $name: "[name]"'
    : '$name: "[name]"';
  const output = columns === "both"
    ? 'name: "$name", code: "$code"'
    : columns === "reversed"
    ? 'code: "$code", name: "$name"'
    : 'name: "$name"';
  return `{ conversion_templates: { t: {
    data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv", csv_text_quote_out: "${quoteOut}",
    input_schema: { ${input} }, row_rules: [{ when: "1 = 1", rows: [{}] }], output_schema: { ${output} },
  } } }`;
}

const EXPECTED: Record<string, string> = {
  "double both": 'name,code\n"a,b",1\nc,2\nplain,pad\n"d""e",3\n"lazy""quote",4\nonly,\n"x,y",\n',
  "none both": 'name,code\na,b,1\nc,2\nplain,pad\nd"e,3\nlazy"quote,4\nonly,\nx,y,\n',
  "double name": 'name\n"a,b"\nc\nplain\n"d""e"\n"lazy""quote"\nonly\n"x,y"\n',
  "none name": 'name\na,b\nc\nplain\nd"e\nlazy"quote\nonly\nx,y\n',
  "double reversed": 'code,name\n1,"a,b"\n2,c\npad,plain\n3,"d""e"\n4,"lazy""quote"\n,only\n,"x,y"\n',
};

for (const parallel of [false, true]) {
  Deno.test(`quoted fields are copied only when the output rules leave them unchanged (${parallel ? "parallel" : "serial"})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "bxp-quoted-copy-" });
    try {
      await Deno.writeTextFile(join(dir, "in.csv"), INPUT);
      const env: Record<string, string> = parallel
        ? { BXP_WORKERS: "2", BXP_PARALLEL_MIN_BYTES: "1", BXP_WORKERS_JOIN_MS: "0", BXP_BLOCK_BYTES: "16" }
        : { BXP_WORKERS: "0" };
      for (const [key, expected] of Object.entries(EXPECTED)) {
        const [quoteOut, columns] = key.split(" ") as [string, Columns];
        await Deno.writeTextFile(join(dir, "c.json"), config(quoteOut, columns));
        const run = await runBxpCli(["--config", join(dir, "c.json")], { env });
        assert.equal(await Deno.readTextFile(join(dir, "in.out.csv")), expected, key);
        const log = new TextDecoder().decode(run.stdout) + run.stderr;
        // Unquoted output of a value holding the delimiter breaks the row: the run says so.
        assert.equal(/unquoted_delimiter/.test(log), quoteOut === "none", `${key}: ${log}`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a quoted field holding the output delimiter (not the input one) is quoted on output", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bxp-quoted-copy-" });
  try {
    await Deno.writeTextFile(join(dir, "in.csv"), 'a,b,c\n"x;y","p","q;"\n"1","2;3","4"\n');
    await Deno.writeTextFile(
      join(dir, "c.json"),
      `{ conversion_templates: { t: {
        data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out.csv", csv_delimiter_out: ";",
        csv_text_quote_out: "double",
        input_schema: { $c: "[c]", $a: "[a]", $b: "[b]" }, row_rules: [{ when: "1 = 1", rows: [{}] }],
        output_schema: { a: "$a", b: "$b", c: "$c" },
      } } }`,
    );
    const envs: Record<string, string>[] = [
      { BXP_WORKERS: "0" },
      { BXP_WORKERS: "2", BXP_PARALLEL_MIN_BYTES: "1", BXP_WORKERS_JOIN_MS: "0" },
    ];
    for (const env of envs) {
      await runBxpCli(["--config", join(dir, "c.json")], { env });
      assert.equal(await Deno.readTextFile(join(dir, "in.out.csv")), 'a;b;c\n"x;y";p;"q;"\n1;"2;3";4\n');
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
