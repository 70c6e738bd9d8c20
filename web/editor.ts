/**
 * The config editor: CodeMirror 6 with JSON highlighting, live diagnostics from the core (placed at their
 * line and column), completion of function names inside expressions and of config keys outside them, and
 * hover docs for both.
 * @module
 */

import { EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  hoverTooltip,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic as CmDiagnostic, linter, lintGutter } from "@codemirror/lint";
import {
  autocompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
} from "@codemirror/autocomplete";
import { json } from "@codemirror/lang-json";
import type { Answers, PlacedDiagnostic } from "./protocol.ts";

/** What the editor needs from the page. */
export interface EditorHooks {
  /** Diagnostics of the current text (from the worker). */
  validate(text: string): Promise<PlacedDiagnostic[]>;
  /** Called after each validation with its findings. */
  onDiagnostics(diags: PlacedDiagnostic[]): void;
  /** Called on every edit. */
  onChange(text: string): void;
}

/** True when `pos` on its line sits inside a double- or single-quoted string. */
function insideString(line: string, pos: number): boolean {
  let quote = "";
  for (let i = 0; i < pos; i++) {
    const c = line[i];
    if (quote !== "") {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === "/" && line[i + 1] === "/") {
      return false;
    }
  }
  return quote !== "";
}

function docNode(title: string, body: string): HTMLElement {
  const el = document.createElement("div");
  el.className = "cm-doc";
  const h = document.createElement("code");
  h.textContent = title;
  const p = document.createElement("p");
  p.textContent = body;
  el.append(h, p);
  return el;
}

/** Creates the editor in `parent`. */
export function createEditor(
  parent: HTMLElement,
  text: string,
  catalog: Answers["catalog"],
  hooks: EditorHooks,
): EditorView {
  const fnByName = new Map(catalog.functions.map((f) => [f.name, f]));
  const keyDocs = new Map<string, Answers["catalog"]["keys"][number]>();
  for (const k of catalog.keys) {
    const last = k.key.slice(k.key.lastIndexOf(".") + 1);
    if (last !== "*" && !keyDocs.has(last)) keyDocs.set(last, k);
  }
  const fnOptions: Completion[] = catalog.functions.map((f) => ({
    label: f.name,
    type: "function",
    detail: f.signature,
    info: f.description,
    apply: f.name + "(",
  }));
  const keyOptions: Completion[] = [...keyDocs.entries()].map(([name, k]) => ({
    label: name,
    type: "property",
    detail: k.type_name + (k.default !== null ? ` = ${k.default}` : ""),
    info: k.description,
  }));

  const complete = (ctx: CompletionContext): CompletionResult | null => {
    const word = ctx.matchBefore(/[A-Za-z_$][\w$]*/);
    if (word === null && !ctx.explicit) return null;
    const line = ctx.state.doc.lineAt(ctx.pos);
    const before = line.text.slice(0, ctx.pos - line.from);
    const inString = insideString(line.text, ctx.pos - line.from);
    const from = word?.from ?? ctx.pos;
    if (inString) {
      // The value of a key with a fixed set of words (`file_type_in: "c|"`) completes to those words.
      const valueOf = /["']?([\w]+)["']?\s*:\s*["']([\w]*)$/.exec(before);
      const words = valueOf === null ? null : keyDocs.get(valueOf[1])?.enum_values;
      if (words) {
        return {
          from: ctx.pos - valueOf![2].length,
          options: words.map((w) => ({ label: w, type: "enum", detail: valueOf![1] })),
          validFor: /^\w*$/,
        };
      }
      return { from, options: fnOptions, validFor: /^[A-Za-z_]*$/ };
    }
    return { from, options: keyOptions, validFor: /^[\w$]*$/ };
  };

  const hover = hoverTooltip((view, pos) => {
    const line = view.state.doc.lineAt(pos);
    const at = pos - line.from;
    let s = at;
    let e = at;
    while (s > 0 && /[\w$]/.test(line.text[s - 1])) s--;
    while (e < line.text.length && /[\w$]/.test(line.text[e])) e++;
    if (s === e) return null;
    const word = line.text.slice(s, e);
    const f = fnByName.get(word);
    const k = f === undefined ? keyDocs.get(word) : undefined;
    if (f === undefined && k === undefined) return null;
    return {
      pos: line.from + s,
      end: line.from + e,
      above: true,
      create: () => ({
        dom: f !== undefined ? docNode(f.signature, `${f.description}\nExample: ${f.example}`) : docNode(
          `${word}: ${k!.type_name}`,
          k!.description + (k!.default ? `\nDefault: ${k!.default}` : ""),
        ),
      }),
    };
  });

  const lint = linter(async (view): Promise<CmDiagnostic[]> => {
    const diags = await hooks.validate(view.state.doc.toString());
    hooks.onDiagnostics(diags);
    const len = view.state.doc.length;
    return diags.map((d) => ({
      from: Math.min(d.from, len),
      to: Math.min(Math.max(d.to, d.from), len),
      severity: d.severity,
      message: `${d.message}${
        d.suggest && !d.message.includes(d.suggest) ? ` (did you mean ${d.suggest}?)` : ""
      }`,
      source: d.code,
    }));
  }, { delay: 250 });

  return new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        bracketMatching(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        json(),
        lintGutter(),
        lint,
        autocompletion({ override: [complete] }),
        hover,
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) hooks.onChange(u.state.doc.toString());
        }),
        EditorView.lineWrapping,
      ],
    }),
  });
}

/** Replaces the whole text of the editor. */
export function setEditorText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}
