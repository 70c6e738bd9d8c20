/**
 * The top-level sections of the `bxp_docs` reference, in bxp's order. Its own module, free of the
 * language, so a server can list the tool's schema before it has loaded the language.
 *
 * @module
 */

/** The sections of the reference: the language's six, then the config schema. */
export const DOCS_SECTIONS = [
  "functions",
  "keywords",
  "operators",
  "tokens",
  "date_tokens",
  "precedence",
  "config_schema",
] as const;

/** A section of the reference. */
export type DocsSection = typeof DOCS_SECTIONS[number];
