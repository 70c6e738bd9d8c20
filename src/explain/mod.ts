/**
 * The row visualiser's core: why one input record became the output rows it did, or why it was dropped.
 * Pure (no `Deno.*`); the playground's worker and tests drive it with an in-memory or real file system.
 * @module
 */

export {
  type Evaluated,
  type ExplainInput,
  explainRecord,
  type RecordExplanation,
  type RecordOutcome,
  type RowExplanation,
  type RuleExplanation,
  type VarExplanation,
} from "./explain.ts";
export { explainFileRecord, type FileRecord, type FileRecords, readFileRecords } from "./file.ts";
