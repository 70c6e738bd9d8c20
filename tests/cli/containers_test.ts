/**
 * zip_input and xlsx_sheet end to end: archives and workbooks are built here from bxp's own CSV data, then
 * converted by the real bxp-cli; the outputs must equal the goldens of the plain-CSV runs.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { zipSync } from "fflate";
import { parseCsvBytes } from "../../src/formats/csv_reader.ts";
import { buildXlsx, type Cell } from "../_support/xlsx_builder.ts";
import { CONFORMANCE_DIR, runBxpCli } from "../_support/processes.ts";

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

Deno.test({
  name: "zip_input: the ruian members zipped under CSV/ convert to the goldens, both dir modes",
  ignore: CONFORMANCE_DIR === null,
  async fn(t) {
    const src = new URL("datasets/ruian_zip_demo/", CONFORMANCE_DIR!);
    const a = await Deno.readFile(new URL("obec_A.csv", src));
    const b = await Deno.readFile(new URL("obec_B.csv", src));
    const config = await Deno.readTextFile(new URL("sample.json", src));
    for (
      const [mode, names] of [["basename", ["obec_A", "obec_B"]], ["keep_path", ["CSV_obec_A", "CSV_obec_B"]]]
    ) {
      await t.step(mode as string, async () => {
        const work = await Deno.makeTempDir({ prefix: "bxp-zip-" });
        try {
          await Deno.writeFile(
            join(work, "sample.zip"),
            zipSync({ "CSV/obec_A.csv": a, "CSV/obec_B.csv": b }),
          );
          const cfg = config.replace(
            'zip_input: { entry_pattern: ".csv" }',
            `zip_input: { entry_pattern: ".csv", dir_mode: "${mode}" }`,
          );
          assert.notEqual(cfg, config, "the config was adjusted");
          await Deno.writeTextFile(join(work, "sample.json"), cfg);
          const res = await runBxpCli(["--config", "sample.json"], { cwd: work });
          assert.equal(res.code, 0, res.stderr);
          assert.match(res.text, /unpacked 'sample\.zip' \(2 members\)/);
          for (const [i, name] of (names as string[]).entries()) {
            const golden = await Deno.readFile(new URL(["obec_A", "obec_B"][i] + ".expected", src));
            assert.ok(sameBytes(await Deno.readFile(join(work, name + ".csvx")), golden), name);
          }
          const combined = await Deno.readFile(new URL("1-ruian_zip_demo-combined.expected", src));
          assert.ok(sameBytes(await Deno.readFile(join(work, "1-ruian_zip_demo-combined.csvx")), combined));
        } finally {
          await Deno.remove(work, { recursive: true });
        }
      });
    }
  },
});

Deno.test({
  name: "zip_input: two members mapping to one flat name stop the run and write nothing",
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "bxp-zip-" });
    try {
      const csv = new TextEncoder().encode("a\n1\n");
      await Deno.writeFile(join(work, "x.zip"), zipSync({ "one/a.csv": csv, "two/a.csv": csv }));
      await Deno.writeTextFile(
        join(work, "c.json"),
        `{conversion_templates: {t: {data_dir: ".", zip_input: {}, file_pattern_in: ".csv", file_pattern_out: ".out",
          input_schema: {$a: "[a]"}, row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {a: "$a"}}}}`,
      );
      const res = await runBxpCli(["--config", "c.json"], { cwd: work });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /two members map to the same output file 'a\.csv'/);
      const names = [...Deno.readDirSync(work)].map((e) => e.name).sort();
      assert.deepEqual(names, ["c.json", "x.zip"]);
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});

Deno.test({
  name: "xlsx_sheet: a workbook built from the xtb cash sheet converts to the golden",
  ignore: CONFORMANCE_DIR === null,
  async fn(t) {
    for (const dataset of ["xtb1_cash_to_wealthfolio", "xtb2_cash_to_wealthfolio"]) {
      await t.step(dataset, async () => {
        const src = new URL(`datasets/${dataset}/`, CONFORMANCE_DIR!);
        const config = await Deno.readTextFile(new URL("sample.json", src));
        const sheet = /name:\s*"([^"]+)"/.exec(config.slice(config.indexOf("xlsx_sheet")))![1];
        const headerRow = Number(/header_row:\s*(\d+)/.exec(config)![1]);
        const csvName = "sample_2025-12-01_2025-12-31_cash.csv";
        const { records } = parseCsvBytes(await Deno.readFile(new URL(csvName, src)), {
          delimiter: ",",
          quote: "double",
          encoding: "utf-8",
        }, { trim: false });
        // The sheet: a title row, then the table from header_row on, and an unrelated sheet first.
        const rows = new Map<number, Cell[]>([[1, ["Statement"]]]);
        records.forEach((r, i) => rows.set(headerRow + i, r.fields));
        const xlsx = buildXlsx([{ name: "Summary", rows: new Map([[1, ["x"]]]) }, {
          name: `${sheet} 28022026`,
          rows,
        }]);
        const work = await Deno.makeTempDir({ prefix: "bxp-xlsx-" });
        try {
          await Deno.writeFile(join(work, "sample_2025-12-01_2025-12-31.xlsx"), xlsx);
          await Deno.writeTextFile(join(work, "sample.json"), config);
          const res = await runBxpCli(["--config", "sample.json"], { cwd: work });
          assert.notEqual(res.code, 1, res.stderr);
          assert.match(res.text, /converting 'sample_2025-12-01_2025-12-31\.xlsx'/);
          const golden = await Deno.readFile(new URL(csvName.replace(".csv", ".expected"), src));
          const out = await Deno.readFile(join(work, csvName.replace(".csv", ".csvx")));
          assert.ok(sameBytes(out, golden), new TextDecoder().decode(out).slice(0, 400));
        } finally {
          await Deno.remove(work, { recursive: true });
        }
      });
    }
  },
});

Deno.test("zip_input keep_path: a member that climbs under either separator stops the run; nothing is written", async () => {
  for (const member of ["..\\..\\evil.csv", "sub/../../evil.csv", "C:/evil.csv"]) {
    const work = await Deno.makeTempDir({ prefix: "bxp-zipslip-" });
    try {
      await Deno.writeFile(join(work, "x.zip"), zipSync({ [member]: new TextEncoder().encode("a\n1\n") }));
      await Deno.writeTextFile(
        join(work, "c.json"),
        `{conversion_templates: {t: {data_dir: ".", zip_input: {dir_mode: "keep_path"}, file_pattern_in: ".csv",
          file_pattern_out: ".out", input_schema: {$a: "[a]"}, row_rules: [{when: "1 = 1", rows: [{}]}],
          output_schema: {a: "$a"}}}}`,
      );
      const res = await runBxpCli(["--config", "c.json"], { cwd: work });
      assert.equal(res.code, 1, member);
      assert.match(res.stderr, /has an absolute or '\.\.' path; keep_path refuses it/);
      assert.deepEqual([...Deno.readDirSync(work)].map((e) => e.name).sort(), ["c.json", "x.zip"]);
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  }
});

Deno.test("zip_input keep_path with path_separator '\\\\' is refused before anything is unpacked", async () => {
  const work = await Deno.makeTempDir({ prefix: "bxp-zipsep-" });
  try {
    await Deno.writeFile(join(work, "x.zip"), zipSync({ "a/b.csv": new TextEncoder().encode("a\n1\n") }));
    await Deno.writeTextFile(
      join(work, "c.json"),
      `{conversion_templates: {t: {data_dir: ".", zip_input: {dir_mode: "keep_path", path_separator: "\\\\"},
        file_pattern_in: ".csv", file_pattern_out: ".out", input_schema: {$a: "[a]"},
        row_rules: [{when: "1 = 1", rows: [{}]}], output_schema: {a: "$a"}}}}`,
    );
    const res = await runBxpCli(["--config", "c.json"], { cwd: work });
    assert.equal(res.code, 1);
    assert.match(
      res.stderr,
      /config error: template 't': zip_input\.path_separator '\\\\' contains a path separator/,
    );
    assert.deepEqual([...Deno.readDirSync(work)].map((e) => e.name).sort(), ["c.json", "x.zip"]);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test({
  name: "zip_input: members unpacked and converted on the run's shared threads equal the serial run's bytes",
  async fn() {
    // Two stored members of about 2.7 MB: enough bytes for the inflate threads, converted in 64 KiB blocks.
    let x = 7;
    const member = (rows: number) => {
      let text = "id,name,amount\n";
      for (let i = 0; i < rows; i++) {
        x = (x * 1103515245 + 12345) >>> 0;
        text += `${i},name ${x.toString(36)},${(x % 100000) / 100}\n`;
      }
      return new TextEncoder().encode(text);
    };
    const members = { "a.csv": member(100_000), "b.csv": member(100_000) };
    assert.ok(members["a.csv"].length + members["b.csv"].length >= 4 * 1024 * 1024);
    const config = `{conversion_templates: {t: {data_dir: ".", zip_input: {}, file_pattern_in: ".csv",
      file_pattern_out: ".out", input_schema: {$id: "[id]", $n: "UPPER([name])", $a: "[amount] * 2"},
      row_rules: [{when: "MOD([id], 5) = 0", rows: []}, {when: "1 = 1", rows: [{}]}],
      output_schema: {id: "$id", name: "$n", amount: "$a"}}}}`;
    const outputs: Uint8Array[][] = [];
    for (const workers of ["2", "0"]) {
      const work = await Deno.makeTempDir({ prefix: "bxp-zip-shared-" });
      try {
        await Deno.writeFile(
          join(work, "x.zip"),
          zipSync({ "a.csv": [members["a.csv"], { level: 0 }], "b.csv": [members["b.csv"], { level: 0 }] }),
        );
        await Deno.writeTextFile(join(work, "c.json"), config);
        const res = await runBxpCli(["--config", "c.json"], {
          cwd: work,
          env: {
            BXP_WORKERS: workers,
            BXP_PARALLEL_MIN_BYTES: "1",
            BXP_WORKERS_JOIN_MS: "0",
            BXP_BLOCK_BYTES: "65536",
          },
        });
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.text, /unpacked 'x\.zip' \(2 members\)/);
        const got = [];
        for (const name of ["a.csv", "b.csv", "a.out", "b.out"]) {
          got.push(await Deno.readFile(join(work, name)));
        }
        assert.ok(sameBytes(got[0], members["a.csv"]) && sameBytes(got[1], members["b.csv"]), "members");
        outputs.push(got);
      } finally {
        await Deno.remove(work, { recursive: true });
      }
    }
    assert.ok(outputs[0][2].length > 1000);
    for (const i of [2, 3]) {
      assert.ok(sameBytes(outputs[0][i], outputs[1][i]), `output ${i} differs from serial`);
    }
  },
});
