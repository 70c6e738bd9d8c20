/**
 * A block pool's file context for tests: the first template of `configText` (JSON5), reading a file with
 * `columnNames`, with no date range, debug, trace or lookups unless `overrides` says so.
 */

import { loadConfig } from "../../src/config/model.ts";
import type { FileContext } from "../../src/engine/parallel/protocol.ts";

export function blockFileContext(
  configText: string,
  columnNames: string[],
  overrides: Partial<FileContext> = {},
): FileContext {
  const cfg = loadConfig(configText, "t.json").config!;
  return {
    template: cfg.templates[0],
    globalMaps: cfg.maps,
    columnNames,
    stem: "s",
    dateMin: "",
    dateMax: "",
    debug: false,
    trace: false,
    sourceName: "s.csv",
    lookups: null,
    ...overrides,
  };
}
