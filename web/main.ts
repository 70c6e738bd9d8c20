/// <reference lib="dom" />
/**
 * The playground page: config editor, inputs, outputs, the row visualiser, the expression scratchpad and
 * the run log. All the work happens in the core worker; this module only draws and forwards.
 * @module
 */

import type { EditorView } from "@codemirror/view";
import { CoreClient } from "./client.ts";
import { createEditor, setEditorText } from "./editor.ts";
import type {
  InputFile,
  InputTable,
  OutcomeFilter,
  PlacedDiagnostic,
  RunResult,
  TraceCall,
  TraceResult,
} from "./protocol.ts";
import type { RecordExplanation } from "../src/explain/mod.ts";
import { decodeState, encodeState } from "./share.ts";
import { previewRows } from "./csv_preview.ts";

/** Input records listed per file (the counts always cover the whole file). */
const ROW_LIMIT = 2000;

interface Example {
  name: string;
  config: string;
  files: { name: string; data: string }[];
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

function b64ToBytes(data: string): Uint8Array {
  const s = atob(data);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const OUTCOME_LABEL: Record<OutcomeFilter, string> = {
  written: "written",
  rule_skip: "rule_skip",
  no_rule_match: "no_rule_match",
  date_filtered: "date-filtered",
  fatal: "not reached (fatal)",
  errors: "errors",
};

/** The page state. */
const state = {
  config: "",
  files: [] as InputFile[],
  run: null as RunResult | null,
  table: 0,
  filter: "all" as "all" | OutcomeFilter,
  selected: null as { table: InputTable; recordNum: number } | null,
  runSeq: 0,
};

const client = new CoreClient("worker.js");
let editor: EditorView;

let runsFinished = 0;

function setStatus(text: string, kind: "busy" | "done" | "error" | "idle"): void {
  const s = $("status");
  if (kind === "done" || kind === "error") s.dataset.runs = String(++runsFinished);
  s.textContent = text;
  s.dataset.state = kind;
}

function showTab(name: string): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>("#tabs button")) {
    b.classList.toggle("active", b.dataset.tab === name);
  }
  for (const p of document.querySelectorAll<HTMLElement>(".tab")) p.hidden = p.id !== `tab-${name}`;
}

// ---- config diagnostics -------------------------------------------------------------------------------

function renderDiagnostics(diags: PlacedDiagnostic[]): void {
  const list = $("diagnostics");
  list.replaceChildren(
    ...diags.map((d) => {
      const li = el(
        "li",
        { class: d.severity, "data-line": String(d.line), "data-col": String(d.col), "data-code": d.code },
        el("span", { class: "where" }, `line ${d.line}, col ${d.col}`),
        ` ${d.severity}: ${d.message}`,
        d.suggest && !d.message.includes(d.suggest) ? ` (did you mean ${d.suggest}?)` : "",
        d.path ? el("span", { class: "path" }, ` at ${d.path}`) : "",
      );
      li.onclick = () => {
        editor.dispatch({ selection: { anchor: d.from, head: d.to }, scrollIntoView: true });
        editor.focus();
      };
      return li;
    }),
  );
  $("diag-count").textContent = diags.length === 0
    ? "no findings"
    : `${diags.filter((d) => d.severity === "error").length} error(s), ${
      diags.filter((d) => d.severity === "warning").length
    } warning(s)`;
}

// ---- inputs -------------------------------------------------------------------------------------------

function renderFiles(): void {
  $("files").replaceChildren(
    ...state.files.map((f, i) => {
      const remove = el("button", { class: "small", title: `remove ${f.name}` }, "×");
      remove.onclick = () => {
        state.files.splice(i, 1);
        renderFiles();
        scheduleRun();
      };
      return el("li", {}, el("code", {}, f.name), ` ${f.bytes.length.toLocaleString()} bytes `, remove);
    }),
  );
}

async function addFiles(list: Iterable<File>): Promise<void> {
  for (const f of list) {
    const bytes = new Uint8Array(await f.arrayBuffer());
    const at = state.files.findIndex((x) => x.name === f.name);
    if (at >= 0) state.files[at] = { name: f.name, bytes };
    else state.files.push({ name: f.name, bytes });
  }
  renderFiles();
  scheduleRun();
}

function renderInputTable(): void {
  const run = state.run;
  const host = $("input-table");
  const picker = $<HTMLSelectElement>("input-file");
  if (run === null || run.inputs.length === 0) {
    picker.replaceChildren();
    host.replaceChildren(
      el("p", { class: "hint" }, "Run the config over some inputs to see their records here."),
    );
    return;
  }
  picker.replaceChildren(
    ...run.inputs.map((t, i) => el("option", { value: String(i) }, `${t.template}: ${t.path}`)),
  );
  state.table = Math.min(state.table, run.inputs.length - 1);
  picker.value = String(state.table);
  const table = run.inputs[state.table];
  const rows = table.rows.filter((r) =>
    state.filter === "all" || (state.filter === "errors" ? r.errors > 0 : r.outcome === state.filter)
  );
  const head = el(
    "tr",
    {},
    el("th", {}, "#"),
    el("th", {}, "outcome"),
    ...table.names.map((n) => el("th", {}, n)),
  );
  const body = rows.map((r) => {
    const tr = el(
      "tr",
      { "data-record": String(r.recordNum), "data-outcome": r.outcome, class: `o-${r.outcome}` },
      el("td", {}, String(r.recordNum)),
      el(
        "td",
        {},
        el("span", { class: `badge o-${r.outcome}` }, OUTCOME_LABEL[r.outcome]),
        r.errors > 0 ? el("span", { class: "badge o-errors" }, `${r.errors} error(s)`) : "",
      ),
      ...table.names.map((_, i) => el("td", {}, r.fields[i] ?? "")),
    );
    if (state.selected?.table === table && state.selected.recordNum === r.recordNum) {
      tr.classList.add("selected");
    }
    tr.onclick = () => void explain(table, r.recordNum);
    return tr;
  });
  const note = table.total > table.rows.length
    ? el("p", { class: "hint" }, `Listing the first ${table.rows.length} of ${table.total} records.`)
    : "";
  host.replaceChildren(
    el("p", { class: "counts" }, ...countBadges(table.counts), ` of ${table.total} record(s)`),
    note,
    el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, ...body)),
  );
}

function countBadges(counts: InputTable["counts"]): HTMLElement[] {
  return (Object.keys(OUTCOME_LABEL) as OutcomeFilter[])
    .filter((k) => k !== "fatal" || counts.fatal > 0)
    .map((k) => el("span", { class: `badge o-${k}`, "data-count": k }, `${OUTCOME_LABEL[k]}: ${counts[k]}`));
}

// ---- outputs ------------------------------------------------------------------------------------------

function renderOutputs(): void {
  const run = state.run;
  const host = $("outputs");
  if (run === null) {
    host.replaceChildren();
    return;
  }
  const total: InputTable["counts"] = {
    written: 0,
    rule_skip: 0,
    no_rule_match: 0,
    date_filtered: 0,
    fatal: 0,
    errors: 0,
  };
  for (const t of run.inputs) for (const k of Object.keys(total) as OutcomeFilter[]) total[k] += t.counts[k];
  const summary = el(
    "div",
    { class: "summary" },
    el(
      "p",
      {},
      `exit status ${run.exitCode} · ${run.rowsIn} row(s) in · ${run.rowsOut} row(s) out · ${
        run.ms.toFixed(0)
      } ms`,
    ),
    el("p", { class: "counts" }, ...countBadges(total)),
  );
  const files = run.outputs.map((o) => {
    const text = new TextDecoder().decode(o.bytes.subarray(0, 200_000));
    const lines = text.split("\n");
    const raw = lines.slice(0, 200).join("\n") + (lines.length > 200 ? "\n…" : "");
    const isJson = /^\s*[[{]/.test(text);
    const rows = isJson ? [] : previewRows(text, 201);
    const preview = isJson ? el("pre", {}, raw) : el(
      "div",
      { class: "table-wrap" },
      el(
        "table",
        { class: "data" },
        el("thead", {}, el("tr", {}, ...(rows[0] ?? []).map((h) => el("th", {}, h)))),
        el("tbody", {}, ...rows.slice(1).map((r) => el("tr", {}, ...r.map((v) => el("td", {}, v))))),
      ),
      rows.length > 200 || o.bytes.length > 200_000
        ? el("p", { class: "hint" }, "Showing the first 200 rows.")
        : "",
      el("details", {}, el("summary", {}, "raw text"), el("pre", {}, raw)),
    );
    const download = el("button", { "data-download": o.path }, `Download ${o.name}`);
    download.onclick = () => {
      const url = URL.createObjectURL(new Blob([o.bytes as BlobPart], { type: "application/octet-stream" }));
      const a = el("a", { href: url, download: o.name });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    };
    return el(
      "section",
      { class: "output", "data-path": o.path },
      el("h3", {}, el("code", {}, o.path), ` ${o.bytes.length.toLocaleString()} bytes `, download),
      preview,
    );
  });
  host.replaceChildren(
    summary,
    ...(files.length > 0 ? files : [el("p", { class: "hint" }, "This run wrote no files.")]),
  );
}

// ---- the row visualiser -------------------------------------------------------------------------------

function evaluatedCell(v: { value: string; error: { name: string; detail: string } | null }): HTMLElement {
  return v.error
    ? el("td", { class: "error" }, `${v.error.name}${v.error.detail ? ` (${v.error.detail})` : ""}`)
    : el("td", { class: "value" }, JSON.stringify(v.value));
}

function renderExplanation(ex: RecordExplanation | null, table: InputTable): void {
  const host = $("explain");
  if (ex === null) {
    host.replaceChildren(el("p", { class: "hint" }, "That record is not in the file any more: run again."));
    return;
  }
  const rules = ex.rules.map((r) =>
    el(
      "tr",
      {
        class: r.index === ex.winner ? "winner" : r.reached ? "" : "unreached",
        "data-rule": String(r.index),
      },
      el("td", {}, String(r.index)),
      el("td", {}, el("code", {}, r.source)),
      r.error
        ? el(
          "td",
          { class: "error" },
          `${r.error.name}${r.error.detail ? ` (${r.error.detail})` : ""} → false`,
        )
        : el("td", { class: r.matched ? "true" : "false" }, r.matched ? "true" : "false"),
      el(
        "td",
        {},
        r.index === ex.winner
          ? (ex.droppedBeforeRules ? "would win" : "wins")
          : r.reached
          ? ""
          : "not evaluated",
      ),
    )
  );
  const vars = ex.variables.map((v) =>
    el(
      "tr",
      { class: v.skipped ? "unreached" : "" },
      el("td", {}, el("code", {}, v.name)),
      el("td", {}, el("code", {}, v.source)),
      v.skipped ? el("td", {}, "skipped: every output row overrides it") : evaluatedCell(v),
    )
  );
  const rows = ex.rows.map((row) =>
    el(
      "div",
      { class: `out-row ${row.outcome}` },
      el(
        "h4",
        {},
        `row ${row.index}: ${row.outcome === "written" ? "written" : "dropped by the date filter"}`,
      ),
      row.overrides.length > 0
        ? el(
          "table",
          { class: "kv" },
          ...row.overrides.map((o) =>
            el(
              "tr",
              {},
              el("td", {}, el("code", {}, o.name)),
              el("td", {}, el("code", {}, o.source)),
              evaluatedCell(o),
            )
          ),
        )
        : el("p", { class: "hint" }, "no overrides"),
      el(
        "table",
        { class: "data" },
        el("tr", {}, ...row.values.map(([h]) => el("th", {}, h))),
        el("tr", {}, ...row.values.map(([, v]) => el("td", {}, v))),
      ),
    )
  );
  host.replaceChildren(
    el(
      "p",
      { id: "explain-reason", class: `reason o-${ex.outcome}`, "data-outcome": ex.outcome },
      el("strong", {}, `record ${ex.recordNum} of ${table.path}: ${OUTCOME_LABEL[ex.outcome]}. `),
      ex.reason[0].toUpperCase() + ex.reason.slice(1) + ".",
      ex.errors > 0 ? ` ${ex.errors} expression error(s) recorded.` : "",
    ),
    el("h3", {}, "Fields"),
    el(
      "table",
      { class: "data" },
      el("tr", {}, ...ex.fields.map(([n]) => el("th", {}, n))),
      el("tr", {}, ...ex.fields.map(([, v]) => el("td", {}, v))),
    ),
    el("h3", {}, "row_rules (first match wins)"),
    ex.droppedBeforeRules
      ? el(
        "p",
        { class: "hint" },
        "The date filter ran on input_schema's $date first, so the engine never looked at these rules; " +
          "they are evaluated here to show what would have happened.",
      )
      : "",
    ex.rules.length > 0 ? el("table", { class: "kv" }, ...rules) : el("p", { class: "hint" }, "no row_rules"),
    el("h3", {}, "input_schema"),
    el("table", { class: "kv" }, ...vars),
    el("h3", {}, "Output rows"),
    ...(rows.length > 0 ? rows : [el("p", { class: "hint" }, "none")]),
  );
}

async function explain(table: InputTable, recordNum: number, focus = true): Promise<void> {
  state.selected = { table, recordNum };
  renderInputTable();
  if (focus) showTab("explain");
  $("explain").replaceChildren(el("p", { class: "hint" }, "explaining…"));
  try {
    renderExplanation(
      await client.call("explain", { template: table.template, path: table.path, recordNum }),
      table,
    );
  } catch (err) {
    $("explain").replaceChildren(el("p", { class: "error" }, (err as Error).message));
  }
  const row = table.rows.find((r) => r.recordNum === recordNum);
  if (row !== undefined) {
    $("scratch-row").textContent = `row: record ${recordNum} of ${table.path}`;
    scratchRow = { headers: table.names, fields: row.fields };
  }
}

// ---- the expression scratchpad ------------------------------------------------------------------------

let scratchRow = { headers: [] as string[], fields: [] as string[] };

interface TraceNode {
  call: TraceCall;
  children: TraceNode[];
}

/** Nests the calls by their spans: a call's arguments sit inside its span. */
function traceTree(calls: TraceCall[]): TraceNode[] {
  const sorted = [...calls].sort((a, b) => a.from - b.from || b.to - a.to);
  const roots: TraceNode[] = [];
  const stack: TraceNode[] = [];
  for (const call of sorted) {
    const node = { call, children: [] };
    while (stack.length > 0 && !(call.from >= stack.at(-1)!.call.from && call.to <= stack.at(-1)!.call.to)) {
      stack.pop();
    }
    (stack.length > 0 ? stack.at(-1)!.children : roots).push(node);
    stack.push(node);
  }
  return roots;
}

function renderTrace(expr: string, res: TraceResult): void {
  const draw = (n: TraceNode): HTMLElement =>
    el(
      "li",
      { "data-fn": n.call.fn },
      el("code", { class: "span" }, expr.slice(n.call.from, n.call.to)),
      " → ",
      el("code", { class: "value" }, JSON.stringify(n.call.value)),
      n.children.length > 0 ? el("ul", {}, ...n.children.map(draw)) : "",
    );
  const result = res.error
    ? el(
      "p",
      { class: "error", id: "trace-result" },
      `${res.error.error}${res.error.detail ? ` (${res.error.detail})` : ""} at `,
      el("code", {}, expr.slice(res.error.from, res.error.to) || "(end)"),
    )
    : el("p", { id: "trace-result" }, "= ", el("code", { class: "value" }, JSON.stringify(res.value)));
  $("trace").replaceChildren(result, el("ul", { class: "tree" }, ...traceTree(res.calls).map(draw)));
}

let traceTimer: ReturnType<typeof setTimeout> | undefined;
function scheduleTrace(): void {
  clearTimeout(traceTimer);
  traceTimer = setTimeout(async () => {
    const expr = $<HTMLInputElement>("expr").value;
    if (expr.trim() === "") return $("trace").replaceChildren();
    renderTrace(expr, await client.call("trace", { expr, ...scratchRow }));
  }, 150);
}

// ---- running ------------------------------------------------------------------------------------------

let runTimer: ReturnType<typeof setTimeout> | undefined;
function scheduleRun(): void {
  if (!$<HTMLInputElement>("autorun").checked) return;
  clearTimeout(runTimer);
  runTimer = setTimeout(() => void runNow(), 400);
}

async function runNow(): Promise<RunResult | null> {
  const seq = ++state.runSeq;
  setStatus("running…", "busy");
  try {
    const result = await client.call("run", {
      config: state.config,
      files: state.files,
      rowLimit: ROW_LIMIT,
    });
    if (seq !== state.runSeq) return result; // a newer run is on its way
    state.run = result;
    const previous = state.selected;
    state.selected = null;
    renderDiagnostics(result.diagnostics);
    renderInputTable();
    renderOutputs();
    // Editing the config re-runs it: the record being looked at is explained again under the new config.
    const again = previous === null
      ? undefined
      : result.inputs.find((t) => t.template === previous.table.template && t.path === previous.table.path);
    if (previous !== null && again !== undefined) void explain(again, previous.recordNum, false);
    $("log").textContent = result.log.map((l) => l.text).join("");
    setStatus(
      result.exitCode === 1
        ? "run failed (see Log)"
        : `done: ${result.rowsOut} row(s) written to ${result.outputs.length} file(s)`,
      result.exitCode === 1 ? "error" : "done",
    );
    return result;
  } catch (err) {
    setStatus(`error: ${(err as Error).message}`, "error");
    return null;
  }
}

// ---- examples and sharing -----------------------------------------------------------------------------

async function loadExamples(): Promise<Example[]> {
  try {
    const res = await fetch("examples.json");
    return res.ok ? await res.json() : [];
  } catch {
    return [];
  }
}

function useExample(ex: Example): void {
  state.files = ex.files.map((f) => ({ name: f.name, bytes: b64ToBytes(f.data) }));
  setConfig(ex.config);
  renderFiles();
  scheduleRun();
}

function setConfig(text: string): void {
  state.config = text;
  setEditorText(editor, text);
}

async function share(): Promise<void> {
  const { hash, omitted } = await encodeState(state.config, state.files);
  history.replaceState(null, "", hash);
  const link = location.href;
  try {
    await navigator.clipboard.writeText(link);
  } catch {
    // No clipboard permission: the address bar holds the link anyway.
  }
  $("share-note").textContent = "Link in the address bar" +
    (omitted.length > 0 ? `; left out (too large to share): ${omitted.join(", ")}` : "") +
    ". The state sits in the # part, which browsers never send to a server.";
}

// ---- start --------------------------------------------------------------------------------------------

async function start(): Promise<void> {
  setStatus("starting the core…", "busy");
  const catalog = await client.call("catalog", {});
  editor = createEditor($("editor"), "", catalog, {
    validate: (text) => client.call("validate", { config: text }),
    onDiagnostics: renderDiagnostics,
    onChange: (text) => {
      state.config = text;
      scheduleRun();
    },
  });
  for (const b of document.querySelectorAll<HTMLButtonElement>("#tabs button")) {
    b.onclick = () => showTab(b.dataset.tab!);
  }
  $("run").onclick = () => void runNow();
  $("share").onclick = () => void share();
  $<HTMLInputElement>("input-files").onchange = (e) => {
    const input = e.target as HTMLInputElement;
    void addFiles(input.files ?? []).then(() => (input.value = ""));
  };
  $<HTMLInputElement>("config-file").onchange = async (e) => {
    const input = e.target as HTMLInputElement;
    const f = input.files?.[0];
    if (f) setConfig(await f.text());
    input.value = "";
  };
  $("clear-files").onclick = () => {
    state.files = [];
    renderFiles();
    scheduleRun();
  };
  $("paste-add").onclick = () => {
    const name = $<HTMLInputElement>("paste-name").value.trim() || "pasted.csv";
    state.files.push({ name, bytes: new TextEncoder().encode($<HTMLTextAreaElement>("paste").value) });
    $<HTMLTextAreaElement>("paste").value = "";
    renderFiles();
    scheduleRun();
  };
  const drop = $("drop");
  drop.ondragover = (e) => {
    e.preventDefault();
    drop.classList.add("over");
  };
  drop.ondragleave = () => drop.classList.remove("over");
  drop.ondrop = (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    void addFiles(e.dataTransfer?.files ?? []);
  };
  $<HTMLSelectElement>("input-file").onchange = (e) => {
    state.table = Number((e.target as HTMLSelectElement).value);
    renderInputTable();
  };
  $<HTMLSelectElement>("outcome-filter").onchange = (e) => {
    state.filter = (e.target as HTMLSelectElement).value as typeof state.filter;
    renderInputTable();
  };
  $("expr").oninput = scheduleTrace;

  const examples = await loadExamples();
  const picker = $<HTMLSelectElement>("examples");
  picker.append(...examples.map((ex, i) => el("option", { value: String(i) }, ex.name)));
  picker.onchange = () => {
    const ex = examples[Number(picker.value)];
    if (ex) useExample(ex);
  };

  const shared = await decodeState(location.hash);
  if (shared !== null) {
    state.files = shared.files.map((f) => ({ name: f.name, bytes: f.bytes }));
    setConfig(shared.config);
    renderFiles();
    if (shared.omitted.length > 0) {
      $("share-note").textContent = `This link left out large inputs: ${
        shared.omitted.join(", ")
      }. Add them again.`;
    }
    scheduleRun();
  } else if (examples.length > 0) {
    picker.value = "0";
    useExample(examples[0]);
  }
  showTab("input");
  setStatus("ready", "idle");
  document.body.dataset.ready = "true";
}

// Test and automation hook: the same operations the buttons perform.
Object.assign(globalThis, {
  bxpPlayground: {
    run: () => runNow(),
    setConfig: (text: string) => setConfig(text),
    editor: () => editor,
    state,
  },
});

void start();
