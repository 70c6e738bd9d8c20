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
