/**
 * bxp-cli as a user meets it: flags and their errors, exit statuses, stdout/stderr routing, --dry-run,
 * --fresh, --trace/--trace-file, --debug=json, and data safety (a failed run leaves no partial output and
 * never touches its inputs).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { BXTB_MAGIC, readBxtb } from "../../src/trace/bxtb.ts";
import { runBxpCli } from "../_support/processes.ts";

const CONFIG = `{
  // a small template: two columns, a rule that skips, one that fans out
  conversion_templates: {
    t: {
      data_dir: "in",
      file_pattern_in: ".csv",
      file_pattern_out: ".converted",
      input_schema: { $n: "[Name]", $v: "[Value] * 2" },
      row_rules: [
        { when: "[Name] = 'skip'", rows: [] },
        { when: "[Name] = 'two'", rows: [{ $action: "'A'" }, { $action: "'B'" }] },
        { when: "1 = 1", rows: [{ $action: "'X'" }] },
      ],
      output_schema: { name: "$n", value: "$v", action: "$action" },
    },
  },
}`;
const INPUT = "Name,Value\none,1\nskip,2\ntwo,3\n";
const EXPECTED = "name,value,action\none,2,X\ntwo,6,A\ntwo,6,B\n";

async function workspace(input = INPUT, config = CONFIG): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-cli-" });
  await Deno.mkdir(join(dir, "in"));
  await Deno.writeTextFile(join(dir, "in", "data.csv"), input);
  await Deno.writeTextFile(join(dir, "bxp-cli.json"), config);
  return dir;
}

async function withWorkspace(fn: (dir: string) => Promise<void>, input?: string, config?: string) {
  const dir = await workspace(input, config);
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const listing = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

Deno.test("no arguments reads ./bxp-cli.json and prints bxp's summary lines", () =>
  withWorkspace(async (dir) => {
    const res = await runBxpCli([], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(await Deno.readTextFile(join(dir, "in", "data.converted")), EXPECTED);
    assert.match(
      res.text,
      /^\n=== template: t ===\nprocessing 'data\.csv'\nsummary: errors:0 warnings:0 time:\d+\.\d{3}s\n/,
    );
    assert.match(res.text, /\n=== overall summary ===\nerrors:0 warnings:0 time:\d+\.\d{3}s\n$/);
    assert.equal(res.stderr, "");
  }));

Deno.test("--version and --help answer without a config", async () => {
  const v = await runBxpCli(["--version"]);
  assert.equal(v.code, 0);
  assert.match(v.text, /^bxp-cli \d+\.\d+\.\d+\n$/);
  const h = await runBxpCli(["--help"]);
  assert.equal(h.code, 0);
  for (
    const flag of [
      "--config",
      "--template",
      "--data",
      "--fresh",
      "--dry-run",
      "--trace",
      "--trace-file",
      "--debug=json",
      "--quiet",
      "--check-fs",
    ]
  ) {
    assert.ok(h.text.includes(flag), flag);
  }
});

Deno.test("usage errors: exit 1, the message on stderr, nothing on stdout", async (t) => {
  const cases: [string[], RegExp][] = [
    [["--bogus"], /error: unknown argument: --bogus/],
    [["--data", "x"], /error: --data requires --template/],
    [["--debug=xml"], /error: --debug value must be 'json': got 'xml'/],
    [["--trace", "--debug"], /error: --trace and --debug cannot be used together/],
    [["--quiet", "--debug=json"], /error: --quiet and --debug cannot be used together/],
    [["--trace=json"], /--trace value must be 'bin'/],
    [["--trace-file="], /--trace-file requires a non-empty path/],
    [["--check-fs", "soon"], /--check-fs requires a non-negative integer \(seconds\): got 'soon'/],
    [["--template"], /--template requires a value/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" "), async () => {
      const res = await runBxpCli(args);
      assert.equal(res.code, 1);
      assert.match(res.stderr, message);
      assert.equal(res.text, "");
    });
  }
});

Deno.test("a missing config is named; a config error names file, line and column", () =>
  withWorkspace(async (dir) => {
    const missing = await runBxpCli([], { cwd: join(dir, "in") });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /error: default configuration file bxp-cli\.json missing/);
    const explicit = await runBxpCli(["--config", "nope.json"], { cwd: dir });
    assert.match(explicit.stderr, /error: configuration file not found: nope\.json/);

    await Deno.writeTextFile(
      join(dir, "bad.json"),
      "{\n  conversion_templates: {\n    t: { data_dir: [1,,] }\n  }\n}\n",
    );
    const bad = await runBxpCli(["--config", "bad.json"], { cwd: dir });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /bad\.json/);
    assert.match(bad.stderr, /line 3/);
    assert.doesNotMatch(bad.stderr, /at .*\.ts:\d+/, "no stack trace");
  }));

Deno.test("--template with --data converts another folder; an unknown template is an error", () =>
  withWorkspace(async (dir) => {
    await Deno.mkdir(join(dir, "other"));
    await Deno.writeTextFile(join(dir, "other", "x.csv"), "Name,Value\nz,5\n");
    const res = await runBxpCli(["--template=t", "--data", "other"], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(await Deno.readTextFile(join(dir, "other", "x.converted")), "name,value,action\nz,10,X\n");
    assert.deepEqual(listing(join(dir, "in")), ["data.csv"]);
    const unknown = await runBxpCli(["--template", "nope"], { cwd: dir });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /template 'nope' is not defined in bxp-cli\.json/);
    // A library template's id does not pull in the library while a bxp-cli.json is here: the config wins.
    const library = await runBxpCli(["--template", "anycoin_to_wealthfolio"], { cwd: dir });
    assert.equal(library.code, 1);
    assert.match(library.stderr, /template 'anycoin_to_wealthfolio' is not defined in bxp-cli\.json/);
    assert.doesNotMatch(library.stderr, /using library template/);
  }));

Deno.test("--dry-run runs everything and writes nothing", () =>
  withWorkspace(async (dir) => {
    const res = await runBxpCli(["--dry-run"], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(listing(join(dir, "in")), ["data.csv"]);
  }));

Deno.test("--fresh never overwrites an existing output", () =>
  withWorkspace(async (dir) => {
    await Deno.writeTextFile(join(dir, "in", "data.converted"), "precious\n");
    const res = await runBxpCli(["--fresh"], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.text, /skipping 'data\.csv' \(output exists\)/);
    assert.equal(await Deno.readTextFile(join(dir, "in", "data.converted")), "precious\n");
    const again = await runBxpCli([], { cwd: dir });
    assert.equal(again.code, 0);
    assert.equal(await Deno.readTextFile(join(dir, "in", "data.converted")), EXPECTED);
  }));

Deno.test("--trace puts only BXTB on stdout; --trace-file mirrors it", () =>
  withWorkspace(async (dir) => {
    const res = await runBxpCli(["--trace", "--trace-file", "run.bxtb"], { cwd: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(new DataView(res.stdout.buffer).getUint32(0, true), BXTB_MAGIC);
    const file = await Deno.readFile(join(dir, "run.bxtb"));
    assert.deepEqual(file, res.stdout);
    const frames = readBxtb(file);
    assert.deepEqual(frames.map((f) => f.type), [
      "file_start",
      "output_row",
      "filtered_row",
      "output_row",
      "output_row",
      "file_end",
      "done",
    ]);
    const rows = frames.filter((f) => f.type === "output_row");
    assert.deepEqual(rows.map((f) => [f.sourceLocator, f.outputIdx, f.ruleIdx, f.action]), [
      [11, 0, 2, "X"],
      [24, 1, 1, "A"],
      [24, 2, 1, "B"],
    ]);
    const skipped = frames.find((f) => f.type === "filtered_row");
    assert.deepEqual(skipped && [skipped.sourceLocator, skipped.reason], [17, "rule_skip"]);
  }));

Deno.test("warnings give exit status 2 and go to stderr; --quiet silences both streams", () =>
  withWorkspace(async (dir) => {
    const res = await runBxpCli([], { cwd: dir });
    assert.equal(res.code, 2);
    assert.match(res.stderr, /warning: 1 input_schema expression error\(s\) in 'data\.csv'/);
    assert.match(res.text, /errors:0 warnings:1/);
    const quiet = await runBxpCli(["--quiet"], { cwd: dir });
    assert.equal(quiet.code, 2);
    assert.equal(quiet.text + quiet.stderr, "");
  }, "Name,Value\nok,1\nbad,abc\n"));

Deno.test("--debug=json prints one JSON document with the counts and the captured messages", () =>
  withWorkspace(async (dir) => {
    const res = await runBxpCli(["--debug=json"], { cwd: dir });
    assert.equal(res.code, 2);
    assert.equal(res.stderr, "");
    const doc = JSON.parse(res.text);
    assert.equal(doc.fatal, false);
    assert.deepEqual(
      doc.templates.map((
        t: Record<string, unknown>,
      ) => [t.id, t.files, t.rows_in, t.rows_out, t.warnings, t.errors]),
      [["t", 1, 2, 2, 1, 0]],
    );
    assert.equal(doc.overall.id, "*");
    assert.ok(doc.messages.some((m: string) => m.includes("expression error")));
  }, "Name,Value\nok,1\nbad,abc\n"));

Deno.test("a run that fails midway leaves no partial output and does not touch the input", async () => {
  // A record with no line break within 10 MB stops the run after a good first record.
  const input = "Name,Value\nfine,1\n" + "x".repeat(11 * 1024 * 1024);
  await withWorkspace(async (dir) => {
    await Deno.writeTextFile(join(dir, "in", "data.converted"), "old output\n");
    const before = await Deno.readFile(join(dir, "in", "data.csv"));
    const res = await runBxpCli([], { cwd: dir });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /fatal error: 'data\.csv': no line break found in 10 MB/);
    assert.deepEqual(listing(join(dir, "in")), ["data.converted", "data.csv"], "no temporary file is left");
    assert.equal(
      await Deno.readTextFile(join(dir, "in", "data.converted")),
      "old output\n",
      "old output intact",
    );
    assert.deepEqual(await Deno.readFile(join(dir, "in", "data.csv")), before);
  }, input);
});

Deno.test("an output name that would leave the data folder is refused and nothing is written", async () => {
  const config = CONFIG.replace('file_pattern_out: ".converted"', 'file_pattern_out: "/../../ESCAPED.out"');
  await withWorkspace(
    async (dir) => {
      const res = await runBxpCli([], { cwd: dir });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /output name '.*ESCAPED\.out' for 'data\.csv' is not a plain file name/);
      assert.deepEqual(listing(dir), ["bxp-cli.json", "in"]);
      assert.deepEqual(listing(join(dir, "in")), ["data.csv"]);
    },
    undefined,
    config,
  );
});

Deno.test("a filename date range that meets an empty $date stops the run (serial and in blocks)", async (t) => {
  const config = `{conversion_templates: {t: {
    data_dir: "in", file_pattern_in: ".csv", file_pattern_out: ".converted", date_filter_from_filename: true,
    input_schema: { $date: "[Paid]", $who: "[Payee]" },
    row_rules: [{ when: "1 = 1", rows: [{}] }],
    output_schema: { date: "$date", who: "$who" },
  }}}`;
  // Many good rows first so the blank one lands in a later block when the file is split.
  const good = Array.from(
    { length: 40 },
    (_, i) => `2032-01-${String(1 + (i % 28)).padStart(2, "0")},p${i}\n`,
  );
  const input = "Paid,Payee\n" + good.join("") + ",nobody\n";
  const modes: [string, Record<string, string>][] = [
    ["serial", { BXP_WORKERS: "0" }],
    ["blocks", {
      BXP_WORKERS: "2",
      BXP_PARALLEL_MIN_BYTES: "0",
      BXP_WORKERS_JOIN_MS: "0",
      BXP_BLOCK_BYTES: "64",
    }],
  ];
  for (const [mode, env] of modes) {
    await t.step(mode, async () => {
      const dir = await Deno.makeTempDir({ prefix: "bxp-cli-" });
      try {
        await Deno.mkdir(join(dir, "in"));
        await Deno.writeTextFile(join(dir, "in", "stmt_2032-01-01_2032-01-31.csv"), input);
        await Deno.writeTextFile(join(dir, "bxp-cli.json"), config);
        const res = await runBxpCli([], { cwd: dir, env });
        assert.equal(res.code, 1, res.stderr);
        const fatal = res.stderr.split("\n").filter((l) => l.startsWith("fatal error:"));
        assert.deepEqual(fatal, [
          "fatal error: template 't': 'stmt_2032-01-01_2032-01-31' record 41: date_filter_from_filename is on, " +
          "but $date is '' — too short to compare against the filename's range 2032-01-01..2032-01-31, so this " +
          "row can be neither kept nor filtered out. Check the $date expression: a [Column] the file does not " +
          "have evaluates to empty",
        ]);
        assert.deepEqual(listing(join(dir, "in")), ["stmt_2032-01-01_2032-01-31.csv"], "no partial output");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
});

Deno.test("a fatal inside a template ends the run at once: no summary lines, a fatal --debug=json document", async (t) => {
  // Two templates; the first one's $date names a column the export lacks while its filename declares a range.
  const config = `{conversion_templates: {
    first: {
      data_dir: "in", file_pattern_in: ".csv", file_pattern_out: ".converted", date_filter_from_filename: true,
      input_schema: { $date: "[Booked]", $who: "[Payee]" },
      row_rules: [{ when: "1 = 1", rows: [{}] }],
      output_schema: { date: "$date", who: "$who" },
    },
    second: {
      data_dir: "in", file_pattern_in: ".csv", file_pattern_out: ".second",
      input_schema: { $who: "[Payee]" },
      row_rules: [{ when: "1 = 1", rows: [{}] }],
      output_schema: { who: "$who" },
    },
  }}`;
  const dir = await Deno.makeTempDir({ prefix: "bxp-cli-" });
  try {
    await Deno.mkdir(join(dir, "in"));
    await Deno.writeTextFile(
      join(dir, "in", "pay_2030-05-01_2030-05-31.csv"),
      "Paid,Payee\n2030-05-02,ann\n",
    );
    await Deno.writeTextFile(join(dir, "bxp-cli.json"), config);

    await t.step("human output", async () => {
      const res = await runBxpCli([], { cwd: dir });
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr, /fatal error: template 'first': 'pay_2030-05-01_2030-05-31' record 1: /);
      assert.doesNotMatch(res.text, /summary/, "neither the template summary nor the overall summary");
      assert.doesNotMatch(res.text, /=== template: second ===/, "later templates do not run");
      assert.deepEqual(listing(join(dir, "in")), ["pay_2030-05-01_2030-05-31.csv"]);
    });

    await t.step("--debug=json", async () => {
      const res = await runBxpCli(["--debug=json"], { cwd: dir });
      assert.equal(res.code, 1);
      const doc = JSON.parse(res.text);
      assert.equal(doc.fatal, true);
      assert.deepEqual(doc.templates, []);
      assert.deepEqual(
        [
          doc.overall.files,
          doc.overall.rows_in,
          doc.overall.rows_out,
          doc.overall.warnings,
          doc.overall.errors,
        ],
        [0, 0, 0, 0, 1],
      );
      assert.ok(
        doc.messages.some((m: string) => m.includes("too short to compare")),
        doc.messages.join("\n"),
      );
    });

    await t.step("a missing data folder is an error that does not abort", async () => {
      const missing = config.replace(
        'data_dir: "in", file_pattern_in: ".csv", file_pattern_out: ".converted"',
        'data_dir: "nowhere", file_pattern_in: ".csv", file_pattern_out: ".converted"',
      );
      await Deno.writeTextFile(join(dir, "bxp-cli.json"), missing);
      const res = await runBxpCli(["--debug=json"], { cwd: dir });
      assert.equal(res.code, 1);
      const doc = JSON.parse(res.text);
      assert.equal(doc.fatal, false);
      assert.deepEqual(doc.templates.map((x: { id: string; errors: number }) => [x.id, x.errors]), [
        ["first", 1],
        ["second", 0],
      ]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("data fields past bxp's 16384-column ceiling are dropped (serial and in blocks)", async (t) => {
  const width = 16384 + 3;
  const header = Array.from({ length: width }, (_, i) => `c${i + 1}`).join(",");
  const row = Array.from({ length: width }, (_, i) => `v${i + 1}`).join(",");
  const config = `{conversion_templates: {t: {
    data_dir: "in", file_pattern_in: ".csv", file_pattern_out: ".converted",
    input_schema: { $last: "FIELDS(16384)", $over: "FIELDS(16385)" },
    row_rules: [{ when: "1 = 1", rows: [{}] }],
    output_schema: { last: "$last", over: "$over" },
  }}}`;
  const modes: [string, Record<string, string>][] = [
    ["serial", { BXP_WORKERS: "0" }],
    ["blocks", {
      BXP_WORKERS: "2",
      BXP_PARALLEL_MIN_BYTES: "0",
      BXP_WORKERS_JOIN_MS: "0",
      BXP_BLOCK_BYTES: "64",
    }],
  ];
  for (const [mode, env] of modes) {
    await t.step(mode, () =>
      withWorkspace(
        async (dir) => {
          const res = await runBxpCli([], { cwd: dir, env });
          assert.equal(res.code, 2, res.stderr); // the header's overflow is a warning
          assert.match(res.stderr, /'data\.csv' has more than 16384 columns; extra columns are ignored/);
          assert.equal(
            await Deno.readTextFile(join(dir, "in", "data.converted")),
            "last,over\nv16384,\nv16384,\n",
          );
        },
        `${header}\n${row}\n${row}\n`,
        config,
      ));
  }
});

Deno.test("--debug=json after a fatal before any template ran: fatal document with the reason", () =>
  withWorkspace(async (dir) => {
    const res = await runBxpCli(["--debug=json", "--template", "nope"], { cwd: dir });
    assert.equal(res.code, 1);
    const doc = JSON.parse(res.text);
    assert.equal(doc.fatal, true);
    assert.deepEqual(doc.templates, []);
    assert.equal(doc.overall.errors, 1);
    assert.ok(doc.messages.some((m: string) => m.includes("template 'nope' is not defined")), doc.messages);
  }));
