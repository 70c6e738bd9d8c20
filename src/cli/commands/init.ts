/**
 * `bxp-cli --init SAMPLE [--config OUT] [--template ID]`: drafts a config from a sample export (see
 * `src/draft/draft.ts`) and writes it to OUT (default `./bxp-cli.json`), never over an existing file.
 * The detected settings and anything to check are printed on stderr.
 * @module
 */

import { dirname, relative, resolve } from "../../util/host_path.ts";
import { draftConfig } from "../../draft/mod.ts";
import { checkDraft } from "../../draft/mod.ts";
import { annotateConfig } from "../../inspect/mod.ts";
import { DEFAULT_CONFIG, isSafeCliPath } from "../args.ts";
import { flagValue } from "../argv.ts";

/** The sample bytes read (the sniffer looks at the first MiB; the rest only counts records). */
const SAMPLE_MAX_BYTES = 16 * 1024 * 1024;

/** The `--init` mode (see `mod.ts`): runs with the whole argument vector, resolves with the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const sample = flagValue(args, "--init") ?? "";
  const out = flagValue(args, "--config") ?? DEFAULT_CONFIG;
  const id = flagValue(args, "--template");
  if (sample === "") {
    console.error("error: --init needs the path of a sample file (a CSV export)");
    return 1;
  }
  for (const p of [sample, out]) {
    if (!isSafeCliPath(p)) {
      console.error(`error: path argument contains dangerous characters or too many '../': ${p}`);
      return 1;
    }
  }
  if (id !== null && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(id)) {
    console.error(`error: --template '${id}': use letters, digits and underscores`);
    return 1;
  }
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(sample);
    if (!info.isFile) throw new Error("not a regular file");
    const file = await Deno.open(sample);
    try {
      const buf = new Uint8Array(Math.min(info.size, SAMPLE_MAX_BYTES));
      let n = 0;
      while (n < buf.length) {
        const got = await file.read(buf.subarray(n));
        if (got === null) break;
        n += got;
      }
      bytes = buf.subarray(0, n);
    } finally {
      file.close();
    }
  } catch (err) {
    console.error(`error: cannot read sample ${sample}: ${(err as Error).message}`);
    return 1;
  }
  const head = new TextDecoder().decode(bytes.subarray(0, 256)).replace(/^\uFEFF/, "").trimStart();
  if (head.startsWith("[") || head.startsWith("{")) {
    console.error(`error: ${sample} looks like JSON; --init drafts configs for CSV exports only`);
    return 1;
  }
  const dataDir = relative(dirname(resolve(out)), dirname(resolve(sample))) || ".";
  const draft = draftConfig(bytes, {
    sampleName: sample,
    dataDir: dataDir.replaceAll("\\", "/"),
    ...(id === null ? {} : { templateId: id }),
  });
  if (draft.sniff.columns.length === 0) {
    console.error(`error: ${sample}: no header or records found; nothing to draft`);
    return 1;
  }
  const check = annotateConfig(draft.text, out);
  if (check.exitCode !== 0) {
    // A drafted config that does not validate is a bug here, not the user's: say so plainly.
    console.error(`error: the drafted config does not validate; please report it:\n${check.json}`);
    return 1;
  }
  try {
    await Deno.writeTextFile(out, draft.text, { createNew: true });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      console.error(`error: ${out} exists; remove it or name another file with --config`);
    } else {
      console.error(`error: cannot write ${out}: ${(err as Error).message}`);
    }
    return 1;
  }
  const s = draft.sniff;
  console.error(
    `wrote ${out}: template '${draft.templateId}', ${s.columns.length} column(s), ${s.dataRecords} data record(s) ` +
      `(${s.encoding}, delimiter ${JSON.stringify(s.delimiter)}, decimal ${
        JSON.stringify(s.decimalSeparator)
      }, ` +
      `header line ${s.headerLine})`,
  );
  for (const n of s.notes) console.error(`check: ${n}`);
  // The draft proves itself: run on its own sample in memory before anyone relies on it.
  const proof = await checkDraft(draft, bytes, sample);
  const skipped = Object.entries(proof.skipped).map(([why, n]) => `${n} ${why}`).join(", ");
  console.error(
    `self-check: ${
      proof.ok ? "ok" : "FAILED"
    }: ${proof.rows_in} record(s) in, ${proof.rows_out} row(s) written` +
      `${skipped ? `, skipped: ${skipped}` : ""}, ${proof.expression_errors} expression error(s), ` +
      `${proof.findings.length} finding(s)`,
  );
  for (const p of proof.problems) console.error(`self-check: ${p}`);
  console.error(`next: bxp-cli --config ${out} --dry-run`);
  return proof.ok ? 0 : 2;
}
