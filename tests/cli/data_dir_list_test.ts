/**
 * `data_dir` as a list through a real bxp-cli: every folder's inputs, folders in list order and names in
 * bxp's order inside each, outputs beside their inputs, the combined output in the first folder; one input
 * name in two folders is refused before anything is written; `--validate` probes every folder; malformed
 * lists are config errors; a list entry leading outside the project root is reported.
 */

import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { runBxpCli } from "../_support/processes.ts";
import { checkConfinement } from "../../src/config/check_confine.ts";
import { loadConfig } from "../../src/config/model.ts";

function config(dataDir: unknown) {
  return {
    conversion_templates: {
      t: {
        data_dir: dataDir,
        file_pattern_in: ".csv",
        file_pattern_out: ".out",
        combined_output: true,
        input_schema: { $a: "[a]", $f: "FILENAME()" },
        row_rules: [{ when: "1", rows: [{}] }],
        output_schema: { a: "$a", f: "$f" },
      },
    },
  };
}

async function folder(dataDir: unknown, files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bxp-data-dirs-" });
  await Deno.writeTextFile(join(dir, "c.json"), JSON.stringify(config(dataDir)));
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir, name, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, name), text);
  }
  return dir;
}

async function tree(dir: string, sub = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(join(dir, sub))) {
    const rel = sub === "" ? e.name : `${sub}/${e.name}`;
    if (e.isDirectory) out.push(...await tree(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

const FILES = {
  "in/2025/c.csv": "a\n3\n",
  "in/2024/b.csv": "a\n1\n",
  "in/2024/a.csv": "a\n2\n",
};

Deno.test("data_dir list: folders in list order, names in order inside each, outputs beside inputs", async () => {
  const dir = await folder(["in/2025", "in/2024"], FILES);
  try {
    const envs: Record<string, string>[] = [
      { BXP_WORKERS: "0" },
      { BXP_WORKERS: "2", BXP_PARALLEL_MIN_BYTES: "1", BXP_WORKERS_JOIN_MS: "0", BXP_BLOCK_BYTES: "16" },
    ];
    for (const env of envs) {
      const r = await runBxpCli(["--config", "c.json"], { cwd: dir, env });
      assertEquals(r.code, 0, r.stderr);
      const processed = r.text.split("\n").filter((l) => l.startsWith("processing"));
      assertEquals(processed, ["processing 'c.csv'", "processing 'a.csv'", "processing 'b.csv'"]);
      assert(r.text.includes("output: in/2025/1-t-combined.out"), r.text);
      assertEquals(await tree(dir), [
        "c.json",
        "in/2024/a.csv",
        "in/2024/a.out",
        "in/2024/b.csv",
        "in/2024/b.out",
        "in/2025/1-t-combined.out",
        "in/2025/c.csv",
        "in/2025/c.out",
      ]);
      assertEquals(await Deno.readTextFile(join(dir, "in/2025/1-t-combined.out")), "a,f\n3,c\n2,a\n1,b\n");
      assertEquals(await Deno.readTextFile(join(dir, "in/2024/a.out")), "a,f\n2,a\n");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("data_dir list: one input name in two folders is refused and nothing is written", async () => {
  const dir = await folder(["in/2024", "in/2025"], { ...FILES, "in/2025/a.csv": "a\n9\n" });
  try {
    const r = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assertEquals(r.code, 1);
    assert(r.stderr.includes("input 'a.csv' is in both 'in/2024' and 'in/2025' (data_dir list)"), r.stderr);
    assert(r.stderr.includes("nothing was written"), r.stderr);
    assertEquals((await tree(dir)).filter((n) => n.endsWith(".out")), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("data_dir list: --validate probes every folder and places the error at its entry", async () => {
  const dir = await folder(["in/2024", "in/2025", "in/2026"], FILES);
  try {
    const v = await runBxpCli(["--validate", "--config", "c.json", "--debug=json"], { cwd: dir });
    assertEquals(v.code, 1);
    const all = v.text + v.stderr;
    // The error points at the list's third entry, not at data_dir as a whole.
    const text = await Deno.readTextFile(join(dir, "c.json"));
    const col = text.indexOf('"in/2026"') + 1;
    assert(all.includes(`c.json:1:${col}: error: data_dir does not exist: 'in/2026'`), all);
    const run = await runBxpCli(["--config", "c.json"], { cwd: dir });
    assertEquals(run.code, 1);
    assertEquals((await tree(dir)).filter((n) => n.endsWith(".out")), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("data_dir list: an empty list, a non-string and a folder named twice are config errors", async () => {
  for (
    const [value, text] of [
      [[], "data_dir must not be an empty list"],
      [["in/2024", 7], "data_dir.1 must be a folder (a string), got integer"],
      [["in/2024", "in/2024"], "data_dir lists 'in/2024' twice"],
      [["in/2024", ""], "data_dir folder must not be empty"],
    ] as const
  ) {
    const dir = await folder(value, FILES);
    try {
      const r = await runBxpCli(["--validate", "--config", "c.json"], { cwd: dir });
      assertEquals(r.code, 1, JSON.stringify(value));
      assert((r.text + r.stderr).includes(text), r.text + r.stderr);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("data_dir list: each folder is checked against the project root", () => {
  const loaded = loadConfig(JSON.stringify(config(["in", "../outside"])), "c.json");
  const found = checkConfinement(loaded.config!.templates, "");
  assertEquals(found.map((d) => d.path), ["conversion_templates.t.data_dir.1"]);
});
