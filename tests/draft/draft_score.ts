/**
 * Scoring a draft against the settings a test expects: the settings the drafted config writes (delimiter,
 * decimal separator, header line, input and output quoting), the records its rules skip, each date
 * column's format (by meaning: every sampled value must read to the same date and time) and the
 * identifier columns kept as written (`AS_TEXT`). Every draft also runs its own self-check.
 */

import { getMember, type JsonNode, parseJson5 } from "../../src/config/json5.ts";
import { convertDate } from "../../src/lang/datetime/format.ts";
import { draftConfig } from "../../src/draft/draft.ts";
import { checkDraft, type SelfCheck } from "../../src/draft/self_check.ts";

/** What a test expects of a draft, with the reason in the test's own comment. */
export interface Expected {
  delimiter: string;
  decimal: "." | ",";
  header: number;
  quoteIn?: "double" | "single" | "none";
  quoteOut: "double" | "none";
  /** Records skipped by the draft's rules (totals, repeated headers, section lines). */
  skipped: number;
  /** Date columns and their format (several when the column mixes shapes). */
  dates: Record<string, string | string[]>;
  /** Columns whose numbers are identifiers, kept exactly as written. */
  identifiers?: string[];
}

export interface Score {
  compared: number;
  agreed: number;
  misses: string[];
  check: SelfCheck;
  config: string;
}

const PROBE = "YYYY-MM-DD hh:mm:ss";

function setting(t: JsonNode, key: string, fallback: string): string {
  const n = getMember(t, key);
  if (n?.kind === "string") return n.value;
  if (n?.kind === "number") return String(n.value);
  return fallback;
}

/** Drafts `bytes` and compares it with `expected`. */
export async function scoreDraft(name: string, bytes: Uint8Array, expected: Expected): Promise<Score> {
  const d = draftConfig(bytes, { sampleName: name });
  const check = await checkDraft(d, bytes, name);
  const parsed = parseJson5(d.text).value!;
  const t = getMember(getMember(parsed, "conversion_templates")!, d.templateId)!;
  const misses: string[] = [];
  let compared = 0;
  const same = (what: string, want: string, got: string) => {
    compared++;
    if (want !== got) {
      misses.push(`${name}: ${what} expected ${JSON.stringify(want)}, drafted ${JSON.stringify(got)}`);
    }
  };
  same("delimiter", expected.delimiter, setting(t, "csv_delimiter_in", ","));
  same("decimal separator", expected.decimal, setting(t, "csv_decimal_separator_in", "."));
  same("header line", String(expected.header), setting(t, "csv_header_line", "1"));
  same("quote in", expected.quoteIn ?? "double", setting(t, "csv_text_quote_in", "double"));
  same("quote out", expected.quoteOut, setting(t, "csv_text_quote_out", "none"));
  same(
    "skipped records",
    String(expected.skipped),
    String(d.sniff.skips.reduce((n, r) => n + r.lines.length, 0)),
  );
  for (const [column, want] of Object.entries(expected.dates)) {
    const wants = typeof want === "string" ? [want] : want;
    const col = d.sniff.columns.find((c) => c.name === column);
    const values = d.sniff.records.map((r) => r[col?.index ?? 0] ?? "").filter((v) => v !== "");
    const read = (formats: readonly string[], v: string) => {
      for (const f of formats) {
        const r = convertDate(v, f, PROBE);
        if (r !== "") return r;
      }
      return "";
    };
    const got = col?.formats ?? [];
    const agree = got.length > 0 && values.every((v) => read(got, v) === read(wants, v));
    same(
      `date column '${column}'`,
      wants.join(" | "),
      agree ? wants.join(" | ") : got.join(" | ") || "(not a date)",
    );
  }
  for (const column of expected.identifiers ?? []) {
    const i = d.sniff.columns.findIndex((c) => c.name === column);
    const kept = i >= 0 && d.columns[i].expression.startsWith("AS_TEXT(");
    same(
      `identifier '${column}'`,
      "kept as written",
      kept ? "kept as written" : d.columns[i]?.expression ?? "?",
    );
  }
  return { compared, agreed: compared - misses.length, misses, check, config: d.text };
}
