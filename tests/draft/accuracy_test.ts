/**
 * The sniffer's accuracy on bxp's own cases: for every CSV input in `../shared/conformance/`, its detected
 * encoding, delimiter, decimal separator, quote and header line are compared with the settings of the
 * template that reads that input (bxp's defaults where the config is silent), and each column the config
 * reads with DATE_CONVERT is compared by meaning: the detected format must read every value of the column
 * to the same date and time as the config's format. The score is printed; under 90% the test fails.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getMember, type JsonNode, parseJson5 } from "../../src/config/json5.ts";
import { parseEncoding } from "../../src/formats/encoding.ts";
import { convertDate } from "../../src/lang/datetime/format.ts";
import { sniffCsv } from "../../src/draft/sniff.ts";
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
  name: "draft: sniffer accuracy on bxp's conformance inputs is at least 90%",
  ignore: CONFORMANCE_DIR === null,
  fn() {
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
        const s = sniffCsv(Deno.readFileSync(join(root, dir, input)), { maxRecords: 1_000_000 });
        check(
          where,
          "encoding",
          parseEncoding(str(getMember(t, "csv_input_encoding"), "utf-8"))!,
          s.encoding,
        );
        check(where, "delimiter", str(getMember(t, "csv_delimiter_in"), ","), s.delimiter);
        check(
          where,
          "decimal separator",
          str(getMember(t, "csv_decimal_separator_in"), "."),
          s.decimalSeparator,
        );
        check(where, "quote", str(getMember(t, "csv_text_quote_in"), "double"), s.quote);
        check(where, "header line", str(getMember(t, "csv_header_line"), "1"), String(s.headerLine));
        // Date columns: DATE_CONVERT([Column], 'format', ...) on a column of this input.
        const seen = new Set<string>();
        for (const expr of strings(t)) {
          for (const m of expr.matchAll(/DATE_CONVERT\(\[([^\]]+)\],\s*'([^']*)'/g)) {
            const [, column, format] = m;
            const col = s.columns.find((c) => c.name === column);
            if (col === undefined || seen.has(column)) continue;
            seen.add(column);
            const values = s.records.map((r) => r[col.index] ?? "").filter((v) => v !== "");
            const same = col.format !== undefined &&
              values.every((v) => convertDate(v, format, PROBE) === convertDate(v, col.format!, PROBE));
            check(where, `date column '${column}'`, format, same ? format : col.format ?? "(not a date)");
          }
        }
      }
    }
    const score = (100 * agreed) / compared;
    console.log(`sniffer accuracy: ${agreed}/${compared} settings agree (${score.toFixed(1)}%)`);
    for (const m of misses) console.log(`  miss: ${m}`);
    assert.ok(compared >= 100, `compared ${compared} settings`);
    assert.ok(score >= 90, `accuracy ${score.toFixed(1)}% is under 90%`);
  },
});
