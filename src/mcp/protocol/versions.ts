/**
 * MCP protocol revision negotiation.
 *
 * @module
 */

/** The newest MCP revision this layer speaks; the answer when a client asks for something unknown. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/** Every revision this layer accepts and echoes, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/**
 * The modern revisions this layer serves: no handshake, the version and the client's capabilities on every
 * request (`params._meta`), answered statelessly (see `modern.ts`). Never the answer to `initialize`,
 * which always selects the legacy era.
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28"];

/**
 * Pick the revision to answer `initialize` with: the client's own when supported (the spec requires the
 * echo), otherwise the latest, leaving the client to decide whether it can live with that.
 *
 * @example
 * ```ts
 * import { negotiateProtocolVersion } from "./versions.ts";
 * import assert from "node:assert/strict";
 * assert.equal(negotiateProtocolVersion("2025-06-18"), "2025-06-18");
 * assert.equal(negotiateProtocolVersion("1999-01-01"), "2025-11-25");
 * assert.equal(negotiateProtocolVersion(undefined), "2025-11-25");
 * ```
 */
export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}
