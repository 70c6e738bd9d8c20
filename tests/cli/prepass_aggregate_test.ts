/**
 * Several records under one pre_pass key, through a real bxp-cli: the `prepass_key_collision` finding
 * (exit status unchanged, an error under --strict), `aggregate` (sum, count, first, last) on the serial
 * path, the block pipeline and the partition modes (pieces in any order), a loud stop for a sum over text,
 * and the config checks of `aggregate`.
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

/** Two fee rows of 1.20 under A1 (identical values), one under B2, one order without fees. */
const INPUT = "Type,Order,Amount\nFEE,A1,1.20\nFEE,A1,1.20\nBUY,A1,10\nFEE,B2,0.5\nBUY,B2,3\nBUY,C3,4\n" +
  "FEE,A1,0.6\n";

function config(aggregate: Record<string, string> | null) {
  return {
    conversion_templates: {
      t: {
        data_dir: ".",
        file_pattern_in: ".csv",
        file_pattern_out: ".out",
        pre_pass: {
          fees: {
            when: "[Type] = 'FEE'",
            key: "[Order]",
            values: { fee: "[Amount]", n: "1", firstfee: "[Amount]", lastfee: "[Amount]" },
            ...(aggregate === null ? {} : { aggregate }),
          },
        },
        input_schema: {
          $o: "[Order]",
          $fee: "LOOKUP('fees', [Order], 'fee')",
          $n: "LOOKUP('fees', [Order], 'n')",
          $first: "LOOKUP('fees', [Order], 'firstfee')",
          $last: "LOOKUP('fees', [Order], 'lastfee')",
        },
        row_rules: [{ when: "[Type] = 'BUY'", rows: [{}] }],
        output_schema: { o: "$o", fee: "$fee", n: "$n", first: "$first", last: "$last" },
      },
    },
  };
}

const ALL = { fee: "sum", n: "count", firstfee: "first", lastfee: "last" };

async function folder(cfg: unknown, input = INPUT): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-aggregate-" });
  await Deno.writeTextFile(join(dir, "c.json"), JSON.stringify(cfg));
  await Deno.writeTextFile(join(dir, "in.csv"), input);
  return dir;
}

async function run(dir: string, env: Record<string, string>, extra: string[] = []) {
  await Deno.remove(join(dir, "in.out")).catch(() => {});
  const r = await runBxpCli(["--config", "c.json", "--findings-file", "f.json", ...extra], { cwd: dir, env });
  const out = await Deno.readTextFile(join(dir, "in.out")).catch(() => null);
  const findings = JSON.parse(await Deno.readTextFile(join(dir, "f.json"))).findings;
  return { ...r, out, findings };
}

Deno.test("pre_pass aggregate: sum, count, first and last give the same table serially and in blocks", async () => {
  const dir = await folder(config(ALL));
  try {
    for (const env of [{ BXP_WORKERS: "0" }, BLOCKS]) {
      const r = await run(dir, env);
      assertEquals(r.code, 0, r.stderr);
      // A1: 1.20 + 1.20 + 0.6 exactly, three records, the first and the last fee.
      assertEquals(r.out, "o,fee,n,first,last\nA1,3,3,1.2,0.6\nB2,0.5,1,0.5,0.5\nC3,,,,\n");
      // Every field named in aggregate: the combining is meant, nothing to report.
      assertEquals(r.findings, []);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pre_pass collision: a finding naming block, key, writes and records; exit 0, --strict fails", async () => {
  const dir = await folder(config(null));
  try {
    for (const env of [{ BXP_WORKERS: "0" }, BLOCKS]) {
      const r = await run(dir, env);
      assertEquals(r.code, 0, r.stderr);
      assertEquals(r.out, "o,fee,n,first,last\nA1,0.6,1,0.6,0.6\nB2,0.5,1,0.5,0.5\nC3,,,,\n");
      assertEquals(r.findings.length, 1, JSON.stringify(r.findings));
      const f = r.findings[0];
      assertEquals(
        [f.code, f.template, f.file, f.block, f.key, f.writes, f.records, f.keys],
        ["prepass_key_collision", "t", "in.csv", "fees", "A1", 3, [1, 2], 1],
      );
      assert(
        r.text.includes("finding (prepass_key_collision): template 't': pre_pass block 'fees' key 'A1'"),
      );
      assertEquals(r.stderr, "");
      const strict = await run(dir, env, ["--strict"]);
      assertEquals(strict.code, 1);
      assertEquals(strict.out, null);
    }
    // Naming only some fields keeps the finding for the rest.
    await Deno.writeTextFile(join(dir, "c.json"), JSON.stringify(config({ fee: "sum" })));
    assertEquals((await run(dir, { BXP_WORKERS: "0" })).findings.length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pre_pass aggregate: a sum over text stops the file loudly, on every path alike", async () => {
  const dir = await folder(config(ALL), INPUT.replace("FEE,B2,0.5", "FEE,B2,n/a"));
  try {
    const texts = new Set<string>();
    const traces = new Set<string>();
    // One block for the whole file: the records before the failing one are in the failing block.
    for (const env of [{ BXP_WORKERS: "0" }, BLOCKS, { ...BLOCKS, BXP_BLOCK_BYTES: "4096" }]) {
      const r = await runBxpCli(["--config", "c.json", "--trace-file", "t.bxtb"], { cwd: dir, env });
      assertEquals(r.code, 1);
      texts.add(r.stderr);
      // The failing block's frames up to the failing record are kept, as the serial pass writes them.
      traces.add(btoa(String.fromCharCode(...await Deno.readFile(join(dir, "t.bxtb")))));
    }
    assertEquals(traces.size, 1);
    assertEquals([...texts], [
      `fatal error: pre_pass block 'fees' record 4 of 'in.csv': aggregate "sum" of 'fee' needs a number, ` +
      `got "n/a"\n`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pre_pass aggregate: an unknown field or word is a config error naming the key", async () => {
  const dir = await folder(config({ fee: "sum", fees: "count", n: "total" }));
  try {
    const r = await runBxpCli(["--validate", "--config", "c.json"], { cwd: dir });
    assertEquals(r.code, 1);
    const all = r.text + r.stderr;
    assert(all.includes("pre_pass.fees.aggregate.n must be last | first | sum | count, got 'total'"), all);
    assert(all.includes("pre_pass.fees.aggregate names 'fees', which is not one of its values"), all);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function cli(args: string[], cwd: string, stdin: string | Uint8Array) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL("../../src/cli/main.ts", import.meta.url).pathname, ...args],
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin);
  await w.close();
  const r = await child.output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

Deno.test("partition: pieces' aggregates and key writes, in any order, give one run's output and finding", async () => {
  for (const aggregating of [true, false]) {
    const dir = await folder(config(aggregating ? ALL : null));
    try {
      const whole = await run(dir, { BXP_WORKERS: "0" });
      const base = ["--config", "c.json", "--template", "t"];
      const plan = JSON.parse((await cli(["--partition-plan", ...base], dir, '{"names":["in.csv"]}')).out);
      // Only an aggregating template needs the pieces' lists unmerged.
      assertEquals(plan.prepass_aggregate, aggregating);
      const lines = INPUT.split("\n").slice(1, -1);
      await Deno.writeTextFile(join(dir, "head.bin"), "Type,Order,Amount\n");
      // One record a piece: every collision crosses pieces.
      const piece = (
        i: number,
      ) => ["--file", "in.csv", "--head", "head.bin", "--first-record", String(i + 1)];
      const entries: unknown[] = [];
      const writes: unknown[] = [];
      for (let i = 0; i < lines.length; i++) {
        const r = await cli(["--partition-prepass", ...base, ...piece(i)], dir, lines[i] + "\n");
        assertEquals(r.code, 0, r.err);
        entries.push(JSON.parse(r.out).entries);
        writes.push(JSON.parse(r.out).writes);
      }
      await Deno.writeTextFile(join(dir, "lookups.json"), JSON.stringify(entries.reverse()));
      let out = "o,fee,n,first,last\n";
      const stats = [];
      for (let i = 0; i < lines.length; i++) {
        const args = ["--partition-convert", ...base, ...piece(i), "--stats-file", "s.json"];
        const r = await cli([...args, "--lookups", "lookups.json"], dir, lines[i] + "\n");
        assertEquals(r.code, 0, r.err);
        out += r.out;
        stats.push(JSON.parse(await Deno.readTextFile(join(dir, "s.json"))));
      }
      assertEquals(out, whole.out);
      const request = {
        dir: ".",
        files: [{
          name: "in.csv",
          head_b64: btoa("Type,Order,Amount\n"),
          sample_b64: btoa(INPUT),
          output: "./in.out",
          pieces: stats,
          prepass_writes: writes.reverse(),
        }],
        combined: null,
      };
      const summary = await cli(
        ["--partition-summary", ...base, "--elapsed-ms", "0"],
        dir,
        JSON.stringify(request),
      );
      assertEquals(summary.code, whole.code);
      const findingLines = (t: string) => t.split("\n").filter((l) => l.includes("finding ("));
      assertEquals(findingLines(summary.out), findingLines(whole.text));
      assertEquals(findingLines(summary.out).length, aggregating ? 0 : 1);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});
