/**
 * The resource contract between the protocol layer and an application: a provider lists the resources it
 * holds and reads one by URI. The server answers `resources/list` and `resources/read` from its providers
 * and advertises the `resources` capability once one is added. Knows nothing of what the resources are.
 *
 * @module
 */

import { ErrorCode } from "./jsonrpc.ts";

/** One entry of `resources/list`. */
export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, when known. */
  size?: number;
}

/** One item of a `resources/read` answer: text or base64 `blob`. */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** A source of resources (for example the outputs of a session's simulations). */
export interface ResourceProvider {
  /** The resources currently readable, in listing order. */
  list(): ResourceEntry[];
  /** The contents behind `uri`, or null when this provider does not hold it (the server then answers "not found"). */
  read(uri: string): Promise<ResourceContents[] | null>;
}

/** Entries per `resources/list` page; a longer listing continues through `nextCursor`. */
export const RESOURCE_PAGE_SIZE = 100;

/** One page of a listing, or `null` when `cursor` is not one this server handed out. */
export function resourcePage(
  entries: readonly ResourceEntry[],
  cursor: unknown,
  pageSize: number = RESOURCE_PAGE_SIZE,
): { resources: ResourceEntry[]; nextCursor?: string } | null {
  let start = 0;
  if (cursor !== undefined) {
    // Cursors are opaque to clients; ours is the offset of the page's first entry.
    const match = typeof cursor === "string" ? /^page-(\d{1,9})$/.exec(cursor) : null;
    if (match === null) return null;
    start = Number(match[1]);
    if (start > entries.length) return null;
  }
  const resources = entries.slice(start, start + pageSize);
  const next = start + pageSize;
  return next < entries.length ? { resources, nextCursor: `page-${next}` } : { resources };
}

/** A JSON-RPC answer body: a result, or an error to send instead. */
export type Answer =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: Record<string, unknown> } };

const MAX_ECHOED_URI = 256;

/** The `resources/list` answer over `providers`, in their order, one page per `params.cursor`. */
export function listResources(
  providers: readonly ResourceProvider[],
  params: unknown,
  log: (message: string) => void,
): Answer {
  const cursor = isRecord(params) ? params.cursor : undefined;
  let entries: ResourceEntry[];
  try {
    entries = providers.flatMap((provider) => provider.list());
  } catch (error) {
    log(`a resource provider failed to list: ${describe(error)}`);
    return {
      error: { code: ErrorCode.internalError, message: "Internal error: the resources could not be listed" },
    };
  }
  const page = resourcePage(entries, cursor);
  if (page === null) {
    return { error: { code: ErrorCode.invalidParams, message: "Invalid params: unknown cursor" } };
  }
  return { result: page };
}

/** The `resources/read` answer: the first provider holding `params.uri`, else -32002 with the uri. */
export async function readResource(
  providers: readonly ResourceProvider[],
  params: unknown,
  log: (message: string) => void,
): Promise<Answer> {
  if (!isRecord(params) || typeof params.uri !== "string") {
    return { error: { code: ErrorCode.invalidParams, message: "Invalid params: 'uri' must be a string" } };
  }
  const uri = params.uri;
  const shown = uri.length <= MAX_ECHOED_URI ? uri : `${uri.slice(0, MAX_ECHOED_URI)}...`;
  for (const provider of providers) {
    let contents: ResourceContents[] | null;
    try {
      contents = await provider.read(uri);
    } catch (error) {
      log(`a resource provider failed to read ${shown}: ${describe(error)}`);
      return {
        error: {
          code: ErrorCode.internalError,
          message: "Internal error: the resource could not be read",
          data: { uri: shown },
        },
      };
    }
    if (contents !== null) return { result: { contents } };
  }
  return { error: { code: ErrorCode.resourceNotFound, message: "Resource not found", data: { uri: shown } } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
