/**
 * The playground state in the URL fragment: JSON, deflated with the browser's CompressionStream and
 * base64url-encoded. The fragment is never sent to any server. Inputs above a size budget are left out
 * and named, so the page can say so.
 *
 * @example
 * ```ts
 * import { decodeState, encodeState } from "./share.ts";
 * import assert from "node:assert/strict";
 * const files = [{ name: "a.csv", bytes: new TextEncoder().encode("x\n1\n") }];
 * const { hash, omitted } = await encodeState("{}", files); // the page sets location.hash = hash
 * assert.match(hash, /^#s=[A-Za-z0-9_-]+$/);
 * assert.deepEqual(omitted, []);
 * assert.deepEqual(await decodeState(hash), { config: "{}", files, omitted: [] });
 * ```
 * @module
 */

/** What a shared link carries. */
export interface SharedState {
  config: string;
  files: { name: string; bytes: Uint8Array }[];
  /** Inputs that were too large to include. */
  omitted: string[];
}

/** Total input bytes a link may carry (before compression). */
export const SHARE_INPUT_BUDGET = 96 * 1024;

/** The most a link may inflate to: a crafted link must not exhaust the tab's memory. */
export const SHARE_MAX_INFLATED = 8 * 1024 * 1024;

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const reader = new Blob([bytes as BlobPart]).stream().pipeThrough(stream).getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > SHARE_MAX_INFLATED) {
      await reader.cancel();
      throw new Error(`the shared state inflates beyond ${SHARE_MAX_INFLATED} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The fragment (`#s=...`) for a config and its inputs; inputs beyond the budget are omitted by name. */
export async function encodeState(config: string, files: readonly { name: string; bytes: Uint8Array }[]) {
  let budget = SHARE_INPUT_BUDGET;
  const kept: { name: string; data: string }[] = [];
  const omitted: string[] = [];
  for (const f of files) {
    if (f.bytes.length <= budget) {
      budget -= f.bytes.length;
      kept.push({ name: f.name, data: toBase64Url(f.bytes) });
    } else {
      omitted.push(f.name);
    }
  }
  const json = new TextEncoder().encode(JSON.stringify({ v: 1, config, files: kept, omitted }));
  return { hash: "#s=" + toBase64Url(await pipe(json, new CompressionStream("deflate-raw"))), omitted };
}

/** Reads a fragment made by {@link encodeState}; null when there is none or it is damaged. */
export async function decodeState(hash: string): Promise<SharedState | null> {
  const m = /^#s=([A-Za-z0-9_-]+)$/.exec(hash);
  if (m === null) return null;
  try {
    const json = await pipe(fromBase64Url(m[1]), new DecompressionStream("deflate-raw"));
    const v = JSON.parse(new TextDecoder().decode(json));
    if (typeof v?.config !== "string" || !Array.isArray(v.files)) return null;
    return {
      config: v.config,
      files: v.files
        .filter((f: { name?: unknown; data?: unknown }) =>
          typeof f.name === "string" && typeof f.data === "string"
        )
        .map((f: { name: string; data: string }) => ({ name: f.name, bytes: fromBase64Url(f.data) })),
      omitted: Array.isArray(v.omitted) ? v.omitted.filter((n: unknown) => typeof n === "string") : [],
    };
  } catch {
    return null;
  }
}
