/**
 * Authoring tools: drafting a config from a sample.
 *
 * @module
 */

import type { BxpTool } from "./tool_kit.ts";

/** The authoring entries of the catalog, in listing order. */
export const AUTHORING_TOOLS: readonly BxpTool[] = [];
