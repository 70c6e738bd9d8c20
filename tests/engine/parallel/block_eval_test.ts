/**
 * The parallel pipeline's promise: cutting a file into blocks anywhere at line ends and evaluating them
 * separately gives the same output bytes, trace frames and counters as one serial pass.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../../src/config/model.ts";
import { CsvParser } from "../../../src/formats/csv_reader.ts";
import { BxtbWriter, shiftOutputIndexes } from "../../../src/trace/bxtb.ts";
import { newEvalContext } from "../../../src/engine/context.ts";
import { planTemplate } from "../../../src/engine/plan.ts";
import { RowEvaluator } from "../../../src/engine/row_eval.ts";
import { createRowWriter } from "../../../src/engine/row_writers.ts";
import type { TraceSink } from "../../../src/engine/sinks.ts";
import { BlockSession } from "../../../src/engine/parallel/block_eval.ts";
import { countRecords } from "../../../src/engine/parallel/lines.ts";
import { mergeTally, newTally } from "../../../src/engine/tally.ts";

function config(fileTypeOut: "csv" | "json"): string {
  return `{conversion_templates: {t: {
    data_dir: ".", file_pattern_in: ".csv", file_pattern_out: ".out", file_type_out: "${fileTypeOut}",
    csv_text_quote_out: "double",
    input_schema: { $n: "[Name]", $v: "[Value] * 2", $k: "RECORD_NUM() & '/' & [Kind]", $date: "[Date]" },
    row_rules: [
      { when: "[Kind] = 'skip'", rows: [] },
      { when: "[Kind] = 'two'", rows: [{ $action: "'A'" }, { $action: "'B'", $v: "[Value] + 1" }] },
      { when: "[Kind] != 'none'", rows: [{ $action: "'X'" }] },
    ],
    output_schema: { name: "$n", value: "$v", key: "$k", date: "$date", action: "$action" },
  }}}`;
}

function sampleCsv(rows: number, seed: number): string {
  let x = seed;
  const rnd = (n: number) => (x = (x * 1103515245 + 12345) % 2147483648) % n;
  const kinds = ["one", "two", "skip", "none", "one"];
  let text = "Name,Value,Kind,Date\n";
  for (let i = 0; i < rows; i++) {
    const value = rnd(7) === 0 ? "oops" : String(rnd(10000) / 100);
    const name = rnd(5) === 0 ? `"quoted, ${i}"` : `n${i}`;
    text += `${name},${value},${kinds[rnd(kinds.length)]},2024-0${1 + rnd(9)}-1${rnd(9)}\n`;
    if (rnd(13) === 0) text += "\n"; // blank lines are not records
  }
  return text;
}

class CollectTrace implements TraceSink {
  readonly enabled = true;
  chunks: Uint8Array[] = [];
  writer = new BxtbWriter((c) => this.chunks.push(c), { writeMagic: false });
  fileStart() {}
  fileEnd() {}
  done() {}
  appendFrames(b: Uint8Array) {
    this.writer.appendRaw(b);
  }
  outputRow(l: number, i: number, r: number, a: string) {
    this.writer.outputRow(l, i, r, a);
  }
  filteredRow(l: number, r: string) {
    this.writer.filteredRow(l, r);
  }
  errorRow(l: number, v: string, k: string, d: string, o: string) {
    this.writer.errorRow(l, v, k, d, o);
  }
  prepassEntry(n: string, k: string, f: string, v: string) {
    this.writer.prepassEntry(n, k, f, v);
  }
  flush() {
    return Promise.resolve();
  }
  bytes(): number[] {
    this.writer.flush();
    return this.chunks.flatMap((c) => [...c]);
  }
}

for (const fileTypeOut of ["csv", "json"] as const) {
  Deno.test(`blocks cut anywhere give the serial bytes, frames and counts (${fileTypeOut} output)`, () => {
    const cfg = loadConfig(config(fileTypeOut), "t.json").config!;
    const t = cfg.templates[0];
    const plan = planTemplate(t, cfg.maps);
    const csv = new TextEncoder().encode(sampleCsv(300, 7));
    const headerEnd = csv.indexOf(10) + 1;
    const names = ["Name", "Value", "Kind", "Date"];
    const columns = new Map(names.map((n, i) => [n, i]));
    const dialect = { delimiter: ",", quote: "double" as const, encoding: "utf-8" };

    // Serial reference.
    const trace = new CollectTrace();
    const writer = createRowWriter(t, plan.outputHeaders);
    writer.writeHeader(plan.outputHeaders);
    const rows = new RowEvaluator(plan, newEvalContext(plan, columns, "s"), {
      out: writer,
      combined: null,
      trace,
      debug: null,
    }, { dateMin: "2024-02-01", dateMax: "2024-08-31", columnNames: names });
    let n = 0;
    const parser = new CsvParser(dialect, (f, off) => rows.evalRecord(f, off, ++n), {
      baseOffset: headerEnd,
      skipBom: false,
    });
    parser.push(csv.subarray(headerEnd));
    parser.finish();
    writer.finish();
    const expected = writer.drain()!;
    const expectedTrace = trace.bytes();

    for (const seed of [1, 2, 3, 4, 5]) {
      // Cut the body at random line ends.
      const cuts = [headerEnd];
      let x = seed;
      for (let pos = headerEnd; pos < csv.length;) {
        x = (x * 48271) % 2147483647;
        const next = csv.indexOf(10, pos + (x % 400));
        if (next < 0) break;
        cuts.push(next + 1);
        pos = next + 1;
      }
      if (cuts[cuts.length - 1] !== csv.length) cuts.push(csv.length);
      const context = {
        template: t,
        globalMaps: cfg.maps,
        columnNames: names,
        stem: "s",
        dateMin: "2024-02-01",
        dateMax: "2024-08-31",
        debug: false,
        trace: true,
        sourceName: "s.csv",
        lookups: null,
      };
      const session = new BlockSession(context);
      const out = createRowWriter(t, plan.outputHeaders);
      out.writeHeader(plan.outputHeaders);
      const ptrace = new CollectTrace();
      let baseRecord = 0;
      let written = 0;
      let errors = 0;
      const tally = newTally(plan.dateChecks.length);
      for (let i = 0; i + 1 < cuts.length; i++) {
        const bytes = csv.slice(cuts[i], cuts[i + 1]);
        const r = session.run({
          kind: "main",
          bytes,
          baseOffset: cuts[i],
          baseRecord,
          last: i + 2 === cuts.length,
        });
        baseRecord += countRecords(bytes, 0, bytes.length);
        assert.equal(r.records, countRecords(bytes, 0, bytes.length));
        out.writeFragment(r.out, r.rowsWritten);
        shiftOutputIndexes(r.trace, written);
        ptrace.appendFrames(r.trace);
        written += r.rowsWritten;
        errors += r.exprErrors;
        mergeTally(tally, r.tally!);
      }
      out.finish();
      assert.deepEqual(out.drain(), expected, `seed ${seed}: output bytes`);
      assert.deepEqual(ptrace.bytes(), expectedTrace, `seed ${seed}: trace frames`);
      assert.equal(written, rows.rowsWritten);
      assert.equal(errors, rows.exprErrors);
      assert.deepEqual(tally, rows.tally, `seed ${seed}: filter counts and findings observations`);
    }
  });
}

Deno.test("a session's blocks give the serial --debug text, block by block", () => {
  const cfg = loadConfig(config("csv"), "t.json").config!;
  const t = cfg.templates[0];
  const plan = planTemplate(t, cfg.maps);
  const csv = new TextEncoder().encode(sampleCsv(200, 3));
  const headerEnd = csv.indexOf(10) + 1;
  const names = ["Name", "Value", "Kind", "Date"];
  let expected = "";
  const writer = createRowWriter(t, plan.outputHeaders);
  const rows = new RowEvaluator(plan, newEvalContext(plan, new Map(names.map((n, i) => [n, i])), "s"), {
    out: writer,
    combined: null,
    trace: new CollectTrace(),
    debug: (text) => void (expected += text),
  }, { dateMin: "", dateMax: "", columnNames: names });
  let n = 0;
  const parser = new CsvParser(
    { delimiter: ",", quote: "double", encoding: "utf-8" },
    (f, off) => rows.evalRecord(f, off, ++n),
    { baseOffset: headerEnd, skipBom: false },
  );
  parser.push(csv.subarray(headerEnd));
  parser.finish();
  assert.match(expected, /\[expr error\]/); // the sample's "oops" values fail `[Value] * 2`

  const session = new BlockSession({
    template: t,
    globalMaps: cfg.maps,
    columnNames: names,
    stem: "s",
    dateMin: "",
    dateMax: "",
    debug: true,
    trace: false,
    sourceName: "s.csv",
    lookups: null,
  });
  let got = "";
  let baseRecord = 0;
  for (let at = headerEnd; at < csv.length;) {
    const next = Math.min(csv.length, csv.indexOf(10, at + 300) + 1 || csv.length);
    const bytes = csv.slice(at, next);
    const r = session.run({ kind: "main", bytes, baseOffset: at, baseRecord, last: next === csv.length });
    got += r.debug;
    baseRecord += r.records;
    at = next;
  }
  assert.equal(got, expected);
});
