/**
 * Discovery tools: what is under the project root and what an input file looks like, so an agent need not
 * guess paths or dialects.
 *
 * @module
 */

import type { BxpTool } from "./tool_kit.ts";

/** The discovery entries of the catalog, in listing order. */
export const DISCOVERY_TOOLS: readonly BxpTool[] = [];
