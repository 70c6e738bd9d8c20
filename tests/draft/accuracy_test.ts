/**
 * The drafter's accuracy on bxp's own cases: for every CSV input in `../shared/conformance/`, the detected
 * encoding and the drafted delimiter, decimal separator (the `csv_decimal_separator_in` the draft writes:
 * a comma-delimited file keeps "." and converts in expressions, as its config does), quote and header line
 * are compared with the settings of the template that reads that input (bxp's defaults where the config
 * is silent). Two compare by meaning: the quote (a file holding no quote character reads the same under
 * "none" and "double"), and each column the config reads with DATE_CONVERT (the drafted formats must read
 * every value to the same date and time). The score is printed; under 97% the test fails. Every draft
 * also proves itself: run on its own sample in memory, with no expression error and no finding.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getMember, type JsonNode, parseJson5 } from "../../src/config/json5.ts";
import { parseEncoding } from "../../src/formats/encoding.ts";
import { convertDate } from "../../src/lang/datetime/format.ts";
import { draftConfig } from "../../src/draft/draft.ts";
import { checkDraft } from "../../src/draft/self_check.ts";
import { CONFORMANCE_DIR } from "../_support/conformance.ts";

const PROBE = "YYYY-MM-DD hh:mm:ss";

function str(node: JsonNode | undefined, fallback: string): string {
  if (node?.kind === "string") return node.value;
  if (node?.kind === "number") return String(node.value);
  return fallback;
}

/** The template of `config` that reads `input` (CSV, pattern matching the name's ending). */
function templateFor(config: JsonNode, input: string): JsonNode | null {
  const templates = getMember(config, "conversion_templates");
  if (templates?.kind !== "object") return null;
  for (const { value } of templates.entries) {
    const pattern = str(getMember(value, "file_pattern_in"), "");
    if (str(getMember(value, "file_type_in"), "csv") !== "csv") continue;
    if (pattern !== "" && input.endsWith(pattern)) return value;
  }
  return null;
}

/** Every string in the template (expressions), for the DATE_CONVERT uses. */
function strings(node: JsonNode, out: string[] = []): string[] {
  if (node.kind === "string") out.push(node.value);
  else if (node.kind === "object") { for (const e of node.entries) strings(e.value, out); }
  else if (node.kind === "array") { for (const i of node.items) strings(i, out); }
  return out;
}

Deno.test({
  name: "draft: accuracy on bxp's conformance inputs is at least 97%, each draft proving itself",
  ignore: CONFORMANCE_DIR === null,
  async fn() {
    const root = fileURLToPath(CONFORMANCE_DIR!);
    const cases = Deno.readTextFileSync(join(root, "CASES.tsv")).trim().split("\n").slice(1);
    let compared = 0;
    let agreed = 0;
    const misses: string[] = [];
    const check = (where: string, what: string, expected: string, actual: string | undefined) => {
      compared++;
      if (expected === actual) agreed++;
      else {misses.push(
          `${where}: ${what} config ${JSON.stringify(expected)}, detected ${JSON.stringify(actual)}`,
        );}
    };
    for (const line of cases) {
      const [dir, configName, , inputs] = line.split("\t");
      const parsed = parseJson5(Deno.readTextFileSync(join(root, dir, configName)));
      assert.ok(parsed.value, `${dir}: config parses`);
      for (const input of inputs.split(";")) {
        if (!input.endsWith(".csv")) continue;
        const t = templateFor(parsed.value, input);
        if (t === null) continue;
        const where = `${dir}/${input}`;
        const bytes = Deno.readFileSync(join(root, dir, input));
        const draft = draftConfig(bytes, { sampleName: input, maxRecords: 1_000_000 });
        const s = draft.sniff;
        const drafted = getMember(
          getMember(parseJson5(draft.text).value!, "conversion_templates")!,
          draft.templateId,
        )!;
        const proof = await checkDraft(draft, bytes, input);
        assert.ok(proof.ok, `${where}: ${proof.problems.join("; ")}`);
        check(
          where,
          "encoding",
          parseEncoding(str(getMember(t, "csv_input_encoding"), "utf-8"))!,
          s.encoding,
        );
        check(
          where,
          "delimiter",
          str(getMember(t, "csv_delimiter_in"), ","),
          str(getMember(drafted, "csv_delimiter_in"), ","),
        );
        check(
          where,
          "decimal separator",
          str(getMember(t, "csv_decimal_separator_in"), "."),
          str(getMember(drafted, "csv_decimal_separator_in"), "."),
        );
        const quote = str(getMember(t, "csv_text_quote_in"), "double");
        const draftedQuote = str(getMember(drafted, "csv_text_quote_in"), "double");
        // Without any quote character in the file, "none" and "double" read it identically.
        const unquoted = !bytes.includes(0x22) && !bytes.includes(0x27) && quote !== "single" &&
          draftedQuote !== "single";
        check(where, "quote", quote, unquoted ? quote : draftedQuote);
        check(
          where,
          "header line",
          str(getMember(t, "csv_header_line"), "1"),
          str(getMember(drafted, "csv_header_line"), "1"),
        );
        // Date columns: DATE_CONVERT([Column], 'format', ...) on a column of this input.
        const seen = new Set<string>();
        for (const expr of strings(t)) {
          for (const m of expr.matchAll(/DATE_CONVERT\(\[([^\]]+)\],\s*'([^']*)'/g)) {
            const [, column, format] = m;
            const col = s.columns.find((c) => c.name === column);
            if (col === undefined || seen.has(column)) continue;
            seen.add(column);
            const values = s.records.map((r) => r[col.index] ?? "").filter((v) => v !== "");
            // Each value is read by the first drafted format that fits it (the draft tests them in turn).
            const read = (v: string) => {
              for (const f of col.formats ?? []) {
                const r = convertDate(v, f, PROBE);
                if (r !== "") return r;
              }
              return "";
            };
            const same = col.format !== undefined &&
              values.every((v) => {
                const want = convertDate(v, format, PROBE);
                return want === "" || want === read(v);
              });
            check(where, `date column '${column}'`, format, same ? format : col.format ?? "(not a date)");
          }
        }
      }
    }
    const score = (100 * agreed) / compared;
    console.log(`draft accuracy: ${agreed}/${compared} settings agree (${score.toFixed(1)}%)`);
    for (const m of misses) console.log(`  miss: ${m}`);
    assert.ok(compared >= 100, `compared ${compared} settings`);
    assert.ok(score >= 97, `accuracy ${score.toFixed(1)}% is under 97%`);
  },
});
