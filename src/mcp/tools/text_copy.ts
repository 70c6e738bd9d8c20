/**
 * The text content carries the whole answer. A tool whose structured answer is more than its text (its
 * text is a summary, as `bxp_simulate`'s is) gets a second text block holding the structured content as
 * JSON, as the MCP spec's tools page asks ("a tool that returns structured content SHOULD also return
 * the serialized JSON in a TextContent block"). Clients that hand the model only `content` (Gemini CLI
 * turns each content block into a part and drops `structuredContent`) then see the whole report, and the
 * first block stays what it was for clients that read only that one. The copy is only added within the
 * call's `max_bytes`; otherwise the second block says where the JSON is and what budget would carry it.
 *
 * @module
 */

import type { ToolResult } from "../protocol/mod.ts";
import { utf8Length } from "../../util/utf8.ts";

/** The first line of the copy block: what follows, for a model that reads content blocks run together. */
export const STRUCTURED_COPY_LABEL = "structuredContent as JSON:";

/**
 * `result` with its `structuredContent` copied into a second text block, serialised as the call's
 * `tools/call` result (`json`); `result` itself when there is nothing to copy (a failure, a tool without
 * structured answers, a result whose text is already the JSON, or one already serialised or written).
 *
 * @example
 * ```ts
 * import { withTextCopy } from "./text_copy.ts";
 * import assert from "node:assert/strict";
 * const result = withTextCopy({ text: "2 rows", structured: { rows: 2 } }, true, 262144);
 * assert.equal(JSON.parse(result.json!).content[1].text, 'structuredContent as JSON:\n{"rows":2}');
 * ```
 */
export function withTextCopy(result: ToolResult, allowStructured: boolean, budget: number): ToolResult {
  if (!allowStructured || result.isError === true || result.structured === undefined) return result;
  if (result.json !== undefined || result.answered === true) return result;
  const structured = JSON.stringify(result.structured);
  const serialise = (second: string) =>
    `{"content":${
      JSON.stringify([
        { type: "text", text: result.text },
        { type: "text", text: second },
        ...(result.links ?? []),
      ])
    },"structuredContent":${structured},"isError":false}`;
  const full = serialise(`${STRUCTURED_COPY_LABEL}\n${structured}`);
  const size = utf8Length(full);
  if (size <= budget) return { ...result, json: full };
  // Over the budget with the copy: the budget wins (the structured content still carries everything).
  const note = serialise(
    `The structured content (${utf8Length(structured)} bytes of JSON) is not repeated as text: the answer ` +
      `would be ${size} bytes, over this call's max_bytes of ${budget}. A call with max_bytes of at least ` +
      `${size} gets it as text too.`,
  );
  return utf8Length(note) <= budget ? { ...result, json: note } : result;
}
