/**
 * `fill_down` through a real bxp-cli: blank cells of the named columns take the previous record's value
 * before any expression (pre_pass included) reads the record, bare-column copies included; the block
 * settings change nothing (such a file stays serial); the partition modes refuse the template; bad values
 * are config errors.
 */

import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { runBxpCli } from "../_support/processes.ts";

const BLOCKS = {
  BXP_WORKERS: "2",
  BXP_PARALLEL_MIN_BYTES: "1",
  BXP_WORKERS_JOIN_MS: "0",
  BXP_BLOCK_BYTES: "16",
};

/** A date and an account written only on a group's first row; a spaces-only cell is blank too. */
const INPUT = "Date,Acct,Amount\n2024-01-02,A,1\n,,2\n  ,B,3\n2024-01-05,,4\n";

function config(extra: Record<string, unknown>) {
  return {
    conversion_templates: {
      t: {
        data_dir: ".",
        file_pattern_in: ".csv",
        file_pattern_out: ".out",
        fill_down: ["Date", "Acct"],
        pre_pass: { when: "1", key: "[Date]", values: { n: "[Amount]" }, aggregate: { n: "sum" } },
        // Bare columns ($d, $a) are copied from the record's text on the fast path: filled cells must win.
        input_schema: { $d: "[Date]", $a: "[Acct]", $x: "[Amount]", $s: "LOOKUP([Date], 'n')" },
        row_rules: [{ when: "1", rows: [{}] }],
        output_schema: { d: "$d", a: "$a", x: "$x", s: "$s" },
        ...extra,
      },
    },
  };
}

async function folder(cfg: unknown): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-fill-down-" });
  await Deno.writeTextFile(join(dir, "c.json"), JSON.stringify(cfg));
  await Deno.writeTextFile(join(dir, "in.csv"), INPUT);
  return dir;
}

Deno.test("fill_down: blank cells take the previous record's value in both passes, serially and with blocks set", async () => {
  const dir = await folder(config({}));
  try {
    const envs: Record<string, string>[] = [{ BXP_WORKERS: "0" }, BLOCKS, { BXP_REFERENCE: "1" }];
    for (const env of envs) {
      await Deno.remove(join(dir, "in.out")).catch(() => {});
      const r = await runBxpCli(["--config", "c.json"], { cwd: dir, env });
      assertEquals(r.code, 0, r.stderr);
      assertEquals(
        await Deno.readTextFile(join(dir, "in.out")),
        "d,a,x,s\n2024-01-02,A,1,6\n2024-01-02,A,2,6\n2024-01-02,B,3,6\n2024-01-05,B,4,4\n",
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fill_down: a column the header lacks is an unknown_column finding", async () => {
  const dir = await folder(config({ fill_down: ["Date", "Acount"] }));
  try {
    const r = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assertEquals(r.code, 0, r.stderr);
    assert(r.text.includes("fill_down names 'Acount', which matches no column of 'in.csv'"), r.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fill_down: the partition modes refuse the template, naming why", async () => {
  const dir = await folder(config({}));
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        new URL("../../src/cli/main.ts", import.meta.url).pathname,
        "--partition-plan",
        "--config",
        "c.json",
        "--template",
        "t",
      ],
      cwd: dir,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode('{"names":["in.csv"]}'));
    await w.close();
    const r = await child.output();
    assertEquals(r.code, 1);
    const err = new TextDecoder().decode(r.stderr);
    assert(err.includes("uses fill_down ('Date', 'Acct')"), err);
    assert(err.includes("a piece cannot know the previous piece's last row"), err);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fill_down: not an array, a non-string, an empty name or a headerless file is a config error", async () => {
  for (
    const [extra, text] of [
      [{ fill_down: "Date" }, "fill_down must be an array of column names, got string"],
      [{ fill_down: ["Date", 3] }, "fill_down.1 must be a column name (a string), got integer"],
      [{ fill_down: [""] }, "fill_down column name must not be empty"],
      [{ csv_header_line: 0 }, "fill_down names header columns, but csv_header_line is 0"],
    ] as const
  ) {
    const dir = await folder(config(extra));
    try {
      const r = await runBxpCli(["--validate", "--config", "c.json"], { cwd: dir });
      assertEquals(r.code, 1, JSON.stringify(extra));
      assert((r.text + r.stderr).includes(text), r.text + r.stderr);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("fill_down: --explain shows a record as the run reads it, filled cells and pre_pass totals included", async () => {
  const dir = await folder(config({}));
  try {
    const r = await runBxpCli(["--config", "c.json", "--explain", "3"], { cwd: dir });
    assertEquals(r.code, 0, r.stderr);
    assert(r.text.includes('[Date] = "2024-01-02"'), r.text);
    assert(r.text.includes('[Acct] = "B"'), r.text);
    assert(r.text.includes('$s = "6"'), r.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
