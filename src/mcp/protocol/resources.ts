/**
 * The resource contract between the protocol layer and an application: a provider lists the resources it
 * holds and reads one by URI. The server answers `resources/list` and `resources/read` from its providers
 * and advertises the `resources` capability once one is added. Knows nothing of what the resources are.
 *
 * @module
 */

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
