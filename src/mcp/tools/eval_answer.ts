/**
 * What an evaluation job's outcome becomes on the wire, shared by the session thread (which answers
 * through its serialized writer) and the evaluation worker (which may write a small answer to stdout
 * itself, see {@link directAnswerLine}). One function builds both, so the two paths cannot drift apart:
 * a direct answer is byte for byte the line the session would have written.
 *
 * The direct path exists for latency: on a loaded two-core machine every thread hand-off costs tens of
 * microseconds, and answering from the worker saves two of them (worker to session thread, session
 * thread to Deno's stdout writer thread). It is taken only when the answer fits one atomic write (see
 * `DirectAnswer.maxLineBytes`), is under the call's `max_bytes` budget and the output lock is free at
 * once (the session is not writing a line of its own); anything else goes back to the session thread as
 * before.
 *
 * @module
 */

import { resultLine } from "../protocol/mod.ts";
import { utf8Length } from "../../util/utf8.ts";
import { structuredJson } from "../protocol/mod.ts";
import type { DirectAnswer } from "../protocol/mod.ts";
import type { EvalOutcome } from "../../inspect/mod.ts";

/** What the worker needs to write a call's answer itself (plain data: it crosses to the worker). */
export interface DirectSpec {
  /** The request id as the answer echoes it (JSON text). */
  idJson: string;
  /** Longest answer line in bytes, its newline included, that may be written directly. */
  maxLineBytes: number;
  /** The call's `max_bytes` budget: a larger answer becomes the session's over-budget failure. */
  budget: number;
  /** Whether the tool may answer `structuredContent`. */
  allowStructured: boolean;
  /** The output lock, held for the whole direct write (see `output_lock.ts`; shared, not copied). */
  outputLock: Int32Array;
}

/** The plain-data part of a call's direct-answer offer that travels to the worker, with the entry's terms. */
export function directSpec(
  direct: DirectAnswer,
  terms: { readonly budget: number; readonly allowStructured: boolean },
): DirectSpec {
  return {
    idJson: direct.idJson,
    maxLineBytes: direct.maxLineBytes,
    budget: terms.budget,
    allowStructured: terms.allowStructured,
    outputLock: direct.outputLock,
  };
}

/**
 * The `tools/call` result JSON of `outcome`: what `JSON.stringify(toCallToolResult(...))` prints for its
 * text, `isError` and (for bxp_validate) the verdict beside the annotated config as structured content,
 * plus, for bxp_validate, a second text block carrying the verdict ({@link VERDICT_LABEL}). Built by
 * splicing: the annotated config bxp_validate answers is usually already
 * compact, canonical JSON and is then copied, not parsed into objects and printed again.
 *
 * @example
 * ```ts
 * import { resultJson } from "./eval_answer.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   resultJson({ text: '{"ok":true,"value":"3"}' }, true),
 *   '{"content":[{"type":"text","text":"{\\"ok\\":true,\\"value\\":\\"3\\"}"}],"structuredContent":{"ok":true,"value":"3"},"isError":false}',
 * );
 * ```
 */
export function resultJson(outcome: EvalOutcome, allowStructured: boolean): string {
  const isError = outcome.isError === true;
  let structured: string | undefined;
  // bxp_validate's first block stays bxp's annotated config; its verdict follows in a block of its own.
  let verdictBlock = "";
  if (allowStructured && !isError) {
    if (outcome.verdict !== undefined) {
      const annotated = outcome.canonical === true
        ? outcome.text
        : structuredJson(outcome.text) ?? JSON.stringify(JSON.parse(outcome.text));
      const verdict = JSON.stringify(outcome.verdict);
      // `{...verdict, annotated}`: the verdict's members, then the annotated config.
      structured = verdict === "{}"
        ? `{"annotated":${annotated}}`
        : `${verdict.slice(0, -1)},"annotated":${annotated}}`;
      verdictBlock = `,{"type":"text","text":${JSON.stringify(`${VERDICT_LABEL}\n${verdict}`)}}`;
    } else {
      structured = structuredJson(outcome.text);
    }
  }
  const content = `[{"type":"text","text":${JSON.stringify(outcome.text)}}${verdictBlock}]`;
  return structured === undefined
    ? `{"content":${content},"isError":${isError}}`
    : `{"content":${content},"structuredContent":${structured},"isError":${isError}}`;
}

/**
 * The first line of bxp_validate's second text block: the verdict, so a client that shows the model only
 * `content` (not `structuredContent`) sees the findings too, and one that runs the blocks together still
 * sees where bxp's annotated config ends.
 */
export const VERDICT_LABEL = "bxp_validate verdict (the structured content's members besides the annotated " +
  "config above):";

/** Bytes of an answer line around its result: `{"jsonrpc":"2.0","id":`, `,"result":`, `}` and the newline. */
const ENVELOPE_BYTES = resultLine("", "").length + 1;

const encoder = new TextEncoder();

/**
 * The complete answer line (newline included), encoded, for `outcome` when it may be written directly:
 * its result within the call's budget and the line at most `spec.maxLineBytes` bytes. Null otherwise
 * (the session answers then, applying its over-budget rules).
 *
 * @example
 * ```ts
 * import { directAnswerLine } from "./eval_answer.ts";
 * import { createOutputLock } from "../../util/output_lock.ts";
 * import assert from "node:assert/strict";
 * const spec = { idJson: "7", maxLineBytes: 4096, budget: 262144, allowStructured: true, outputLock: createOutputLock() };
 * const line = directAnswerLine({ text: '{"ok":true,"value":"3"}' }, spec);
 * assert.match(
 *   new TextDecoder().decode(line!),
 *   /^\{"jsonrpc":"2\.0","id":7,"result":\{"content":\[.*"isError":false\}\}\n$/,
 * );
 * ```
 */
export function directAnswerLine(outcome: EvalOutcome, spec: DirectSpec): Uint8Array | null {
  const json = resultJson(outcome, spec.allowStructured);
  // A UTF-16 unit is at least one byte: most oversized answers are turned away before encoding.
  if (json.length + ENVELOPE_BYTES > spec.maxLineBytes) return null;
  const bytes = encoder.encode(`${resultLine(spec.idJson, json)}\n`);
  if (bytes.length > spec.maxLineBytes) return null;
  return bytes.length - ENVELOPE_BYTES - utf8Length(spec.idJson) <= spec.budget ? bytes : null;
}
