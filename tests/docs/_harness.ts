/** Markdown fences and command words for the guide tests. @module */

/** One fenced block: its info string's words and its text (with a final newline). */
export interface Fence {
  lang: string;
  attrs: Map<string, string>;
  flags: Set<string>;
  body: string;
  line: number;
}

/** The fenced code blocks of a Markdown text. */
export function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open || open[1] === "") continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]);
    const attrs = new Map<string, string>();
    const flags = new Set<string>();
    for (const word of open[2].split(/\s+/).filter((w) => w !== "")) {
      const eq = word.indexOf("=");
      if (eq > 0) attrs.set(word.slice(0, eq), word.slice(eq + 1));
      else flags.add(word);
    }
    out.push({ lang: open[1], attrs, flags, body: body.join("\n") + "\n", line: start + 1 });
  }
  return out;
}

/** Splits a command line into words: '...' and "..." quote, nothing else is special. */
export function words(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | null = null;
  let started = false;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === " ") {
      if (started || cur !== "") out.push(cur);
      cur = "";
      started = false;
    } else cur += ch;
  }
  if (quote !== null) throw new Error(`unclosed quote in: ${line}`);
  if (started || cur !== "") out.push(cur);
  return out;
}
