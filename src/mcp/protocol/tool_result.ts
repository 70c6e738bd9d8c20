/**
 * Turning what a tool handler returns into an MCP `CallToolResult`.
 *
 * @module
 */

import { exceedsJsonDepth, MAX_JSON_DEPTH, parseJsonFaithfully } from "./guarded_json.ts";

/** A `resource_link` content item: a resource the client can read with `resources/read`. */
export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, when known. */
  size?: number;
}

/** What a tool handler returns: its text, and whether the call failed. */
export interface ToolResult {
  /**
   * The tool's text content. Without `structured`, a single JSON object here may also be exposed as
   * `structuredContent`; with it, this is a short human summary.
   */
  text: string;
  /** `true` for a tool failure the model should notice (a domain "not ok" answer is not one). */
  isError?: boolean;
  /**
   * Explicit structured content (a JSON object), sent as `structuredContent` when the tool allows it and the
   * call did not fail; `text` is then a summary rather than a second copy.
   */
  structured?: Record<string, unknown>;
  /** `resource_link` items appended to the content after the text. */
  links?: ResourceLink[];
  /**
   * The answer was already written through the call's `DirectAnswer` (by another thread): the server
   * sends nothing more for this call. Only valid for a call that had `direct`.
   */
  answered?: true;
  /**
   * The `CallToolResult` this result becomes, already serialised: byte for byte
   * `JSON.stringify(toCallToolResult(result, allowStructured))`. A tool that builds its answer by splicing
   * JSON it holds gives it, and the server sends it as it is instead of serialising the result again.
   */
  json?: string;
}

/** The wire shape of a `tools/call` result. */
export interface CallToolResult {
  content: ({ type: "text"; text: string } | ResourceLink)[];
  structuredContent?: unknown;
  isError: boolean;
}

/**
 * The parsed object when `text` is exactly one JSON object (surrounding whitespace allowed), else
 * `undefined`. Arrays, scalars, NDJSON and anything malformed are refused; numbers keep their exact
 * source digits so the structured copy serialises like the text.
 *
 * @example
 * ```ts
 * import { singleJsonObject } from "./tool_result.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(singleJsonObject('{"ok":true}\n'), { ok: true });
 * assert.equal(singleJsonObject('{"a":1}\n{"b":2}'), undefined);
 * ```
 */
export function singleJsonObject(text: string): unknown {
  return structuredCopy(text)?.value;
}

/**
 * {@link singleJsonObject}'s value and its JSON text: `text` itself when the text is already what
 * `JSON.stringify` would print for the value (compact, canonical), so a caller building an answer line
 * by hand can splice it instead of serialising the value again. Undefined when there is no structured
 * copy.
 *
 * @example
 * ```ts
 * import { structuredJson } from "./tool_result.ts";
 * import assert from "node:assert/strict";
 * assert.equal(structuredJson('{"ok":true}'), '{"ok":true}');
 * assert.equal(structuredJson('{ "ok": 1.50 }'), '{"ok":1.50}');
 * ```
 */
export function structuredJson(text: string): string | undefined {
  const copy = structuredCopy(text);
  if (copy === undefined) return undefined;
  return copy.json ?? JSON.stringify(copy.value);
}

function structuredCopy(text: string): { value: unknown; json: string | null } | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  if (exceedsJsonDepth(text, FAITHFUL_MAX_DEPTH)) return undefined;
  // Tools mostly answer compact JSON with canonical numbers: when a plain parse prints back to the very
  // same text, every number already has its exact digits and the (much slower) faithful parse would
  // build an equivalent value.
  let plain: unknown;
  try {
    plain = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (JSON.stringify(plain) === text) return { value: plain, json: text };
  const value = parseJsonFaithfully(text);
  return value === undefined ? undefined : { value, json: null };
}

/** The depth {@link parseJsonFaithfully} refuses beyond by default, checked first for the plain parse too. */
const FAITHFUL_MAX_DEPTH = MAX_JSON_DEPTH * 4;

/**
 * Build the `tools/call` result: one text block, `isError` always present, and `structuredContent` only
 * when the tool allows it, the call did not fail, and the text is a single JSON object.
 *
 * @example
 * ```ts
 * import { toCallToolResult } from "./tool_result.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   toCallToolResult({ text: '{"ok":true}' }, true),
 *   { content: [{ type: "text", text: '{"ok":true}' }], structuredContent: { ok: true }, isError: false },
 * );
 * ```
 */
export function toCallToolResult(result: ToolResult, allowStructured: boolean): CallToolResult {
  const isError = result.isError === true;
  const content: CallToolResult["content"] = [{ type: "text", text: result.text }, ...(result.links ?? [])];
  const structured = !allowStructured || isError
    ? undefined
    : result.structured ?? singleJsonObject(result.text);
  return structured === undefined
    ? { content, isError }
    : { content, structuredContent: structured, isError };
}

/**
 * The failure result every tool uses: `isError: true` with text `error: <message>`.
 *
 * @example
 * ```ts
 * import { toolFailure } from "./tool_result.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(toolFailure("missing 'expr'"), { text: "error: missing 'expr'", isError: true });
 * ```
 */
export function toolFailure(message: string): ToolResult {
  return { text: `error: ${message}`, isError: true };
}
