import { NEEDS_CONFORMANCE } from "../_support/conformance.ts";
import assert from "node:assert/strict";
import { zipSync } from "fflate";
import {
  climbingPath,
  planZipMembers,
  unzipEachMember,
  unzipMembers,
  ZipInputError,
  zipOutputName,
} from "../../src/formats/zip.ts";
import { parseCsvBytes } from "../../src/formats/csv_reader.ts";

const RUIAN = new URL("../../../shared/conformance/datasets/ruian_zip_demo/", import.meta.url);

async function ruianZip(): Promise<{ zip: Uint8Array; a: Uint8Array; b: Uint8Array }> {
  const a = await Deno.readFile(new URL("obec_A.csv", RUIAN));
  const b = await Deno.readFile(new URL("obec_B.csv", RUIAN));
  const zip = zipSync({
    "CSV/": new Uint8Array(0),
    "CSV/obec_A.csv": [a, { level: 6 }],
    "CSV/obec_B.csv": [b, { level: 0 }],
    "CSV/readme.txt": new TextEncoder().encode("not a csv"),
  });
  return { zip, a, b };
}

Deno.test(
  "basename mode flattens CSV/ and unpacks the Windows-1250 members intact",
  NEEDS_CONFORMANCE,
  async () => {
    const { zip, a, b } = await ruianZip();
    const members = await unzipMembers(zip, {
      entryPattern: ".csv",
      dirMode: "basename",
      pathSeparator: "_",
      zipName: "sample.zip",
    });
    assert.deepEqual(members.map((m) => [m.entryName, m.outputName]), [
      ["CSV/obec_A.csv", "obec_A.csv"],
      ["CSV/obec_B.csv", "obec_B.csv"],
    ]);
    assert.deepEqual(members[0].bytes, a);
    assert.deepEqual(members[1].bytes, b);
    const rows =
      parseCsvBytes(members[1].bytes, { delimiter: ";", quote: "double", encoding: "windows-1250" }).records;
    assert.equal(rows[0].fields[2], "Název obce");
  },
);

Deno.test("keep_path mode joins the folders with the path separator", NEEDS_CONFORMANCE, async () => {
  const { zip } = await ruianZip();
  const names: string[] = [];
  const n = await unzipEachMember(
    zip,
    { entryPattern: ".csv", dirMode: "keep_path", pathSeparator: "__" },
    (m) => {
      names.push(m.outputName);
    },
  );
  assert.equal(n, 2);
  assert.deepEqual(names, ["CSV__obec_A.csv", "CSV__obec_B.csv"]);
});

Deno.test("entry pattern is a literal, case-sensitive suffix of the full member name", () => {
  const plan = planZipMembers(["a.CSV", "b.csv", "c.csv.bak", "dir/d_2024.csv"], {
    entryPattern: "_2024.csv",
    dirMode: "basename",
    pathSeparator: "_",
  });
  assert.deepEqual(plan, [{ entryName: "dir/d_2024.csv", outputName: "d_2024.csv" }]);
});

Deno.test("backslash paths are read as folders", () => {
  assert.deepEqual(
    planZipMembers(["CSV\\x.csv"], { entryPattern: ".csv", dirMode: "basename", pathSeparator: "_" }),
    [
      { entryName: "CSV/x.csv", outputName: "x.csv" },
    ],
  );
  assert.equal(
    zipOutputName("a/b/c.csv", { entryPattern: ".csv", dirMode: "keep_path", pathSeparator: "-" }),
    "a-b-c.csv",
  );
});

Deno.test("zip-slip and unsafe names are refused with bxp's message", () => {
  const refuse = (names: string[], opts: Partial<Parameters<typeof planZipMembers>[1]>, out: string) => {
    assert.throws(
      () =>
        planZipMembers(names, {
          entryPattern: ".csv",
          dirMode: "basename",
          pathSeparator: "_",
          zipName: "z.zip",
          ...opts,
        }),
      (err: unknown) => {
        assert.ok(err instanceof ZipInputError);
        assert.equal(err.kind, "unsafe_name");
        assert.match(
          err.message,
          new RegExp(
            `^zip 'z\\.zip': member '.*' maps to an unsafe output name '${out.replaceAll(".", "\\.")}'$`,
          ),
        );
        return true;
      },
    );
  };
  refuse(["evil/.."], { entryPattern: ".." }, "..");
  refuse(["sub/."], { entryPattern: "." }, ".");
  refuse(["a/b.csv"], { dirMode: "keep_path", pathSeparator: "/" }, "a/b.csv");
  // basename mode strips traversal: the flat name stays inside data_dir.
  assert.deepEqual(
    planZipMembers(["../../x.csv"], { entryPattern: ".csv", dirMode: "basename", pathSeparator: "_" }),
    [{ entryName: "../../x.csv", outputName: "x.csv" }],
  );
});

Deno.test("keep_path refuses members and output names that could climb or be absolute on any platform", () => {
  const plan = (names: string[], pathSeparator: string) =>
    planZipMembers(names, { entryPattern: ".csv", dirMode: "keep_path", pathSeparator, zipName: "z.zip" });
  const refused = (names: string[], pathSeparator: string, pattern: RegExp) =>
    assert.throws(() => plan(names, pathSeparator), (err: unknown) => {
      assert.ok(err instanceof ZipInputError);
      assert.equal(err.kind, "unsafe_name");
      assert.match(err.message, pattern);
      return true;
    });
  // Member names that climb or are absolute, under either separator, whatever the host is.
  for (
    const name of ["../x.csv", "a/../../x.csv", "a\\..\\x.csv", "/etc/x.csv", "\\share\\x.csv", "C:/x.csv"]
  ) {
    refused([name], "_", /has an absolute or '\.\.' path; keep_path refuses it/);
  }
  // Output names a separator would turn into a path on Windows, or that hold a drive colon or NUL.
  refused(["a/b.csv"], "\\", /maps to an unsafe output name 'a\\b\.csv'/);
  refused(["a/b.csv"], ":", /unsafe output name 'a:b\.csv'/);
  refused(["a\0b.csv"], "_", /has an absolute or '\.\.' path|unsafe output name 'a\\0b\.csv'/);
  // Ordinary nested names stay accepted.
  assert.deepEqual(plan(["CSV/2024/a.csv"], "_"), [{
    entryName: "CSV/2024/a.csv",
    outputName: "CSV_2024_a.csv",
  }]);
  assert.equal(climbingPath("a\\..\\b.csv"), true);
  assert.equal(climbingPath("..b.csv"), false);
  assert.equal(climbingPath("D:evil.csv"), true);
});

Deno.test("two members mapping to one file are refused", () => {
  assert.throws(
    () =>
      planZipMembers(["2023/x.csv", "2024/x.csv"], {
        entryPattern: ".csv",
        dirMode: "basename",
        pathSeparator: "_",
        zipName: "y.zip",
      }),
    (err: unknown) =>
      err instanceof ZipInputError && err.kind === "duplicate_name" &&
      err.message ===
        `zip 'y.zip': two members map to the same output file 'x.csv' — set zip_input.dir_mode to "keep_path"`,
  );
  const ok = planZipMembers(["2023/x.csv", "2024/x.csv"], {
    entryPattern: ".csv",
    dirMode: "keep_path",
    pathSeparator: "_",
  });
  assert.deepEqual(ok.map((p) => p.outputName), ["2023_x.csv", "2024_x.csv"]);
});

Deno.test("an unsupported compression method skips the whole archive", async () => {
  const zip = zipSync({
    "a.csv": [new TextEncoder().encode("x\n"), { level: 0 }],
    "b.txt": [new Uint8Array(3), { level: 0 }],
  });
  // Rewrite b.txt's method to 12 (bzip2) in its local and central headers.
  const view = new DataView(zip.buffer);
  for (let i = 0; i + 4 <= zip.length; i++) {
    const sig = view.getUint32(i, true);
    if (sig === 0x04034b50 && new TextDecoder().decode(zip.subarray(i + 30, i + 35)) === "b.txt") {
      view.setUint16(i + 8, 12, true);
    }
    if (sig === 0x02014b50 && new TextDecoder().decode(zip.subarray(i + 46, i + 51)) === "b.txt") {
      view.setUint16(i + 10, 12, true);
    }
  }
  await assert.rejects(
    () =>
      unzipMembers(zip, {
        entryPattern: ".csv",
        dirMode: "basename",
        pathSeparator: "_",
        zipName: "old.zip",
      }),
    (err: unknown) =>
      err instanceof ZipInputError && err.kind === "unsupported_compression" &&
      err.message ===
        "skipping 'old.zip': uses an unsupported compression method (only store + deflate are read)",
  );
});

Deno.test("garbage is reported as a corrupt archive", async () => {
  await assert.rejects(
    () =>
      unzipMembers(new Uint8Array([1, 2, 3]), {
        entryPattern: ".csv",
        dirMode: "basename",
        pathSeparator: "_",
        zipName: "bad.zip",
      }),
    (err: unknown) =>
      err instanceof ZipInputError && err.kind === "corrupt" && err.message.includes("'bad.zip'"),
  );
});
