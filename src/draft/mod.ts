/**
 * Drafting configs from samples: the CSV sniffer (`sniffCsv`: encoding, dialect, header, footer, column
 * kinds with bxp date formats) and the drafter built on it (`draftConfig`: a commented JSON5 config).
 * Pure: bytes in, values out.
 * @module
 */

export {
  type ColumnKind,
  type SkipPredicate,
  type SkipRule,
  sniffCsv,
  type SniffedColumn,
  type SniffOptions,
  type SniffResult,
} from "./sniff.ts";
export { type Draft, draftConfig, type DraftOptions, identifier } from "./draft.ts";
export { type ColumnDates, type DateGuess, inferColumnDates, inferDateFormat } from "./dates.ts";
export { checkDraft, type SelfCheck, selfCheck } from "./self_check.ts";
export { type NumberShape, numberShape } from "./numbers.ts";
