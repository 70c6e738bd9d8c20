/**
 * THE config-schema table: every key a bxp config may hold, in bxp's `config_schema` order (envelope entries
 * first, then the per-struct fields). It drives validation (known keys, value types, enums, defaults,
 * required keys) and the `config_schema` section of the docs; nothing else in the code base lists keys.
 *
 * Keys are dotted paths; `*` stands for any user-chosen name (a template id, a `$variable`, a block name)
 * or any array index.
 *
 * @example
 * ```ts
 * import { childKeys, schemaEntry } from "./schema.ts";
 * import assert from "node:assert/strict";
 * assert.equal(schemaEntry("conversion_templates.*.csv_text_quote_in")?.default, "double");
 * assert.deepEqual(childKeys("conversion_templates.*.xlsx_sheet"), ["name", "header_row", "output_suffix"]);
 * ```
 * @module
 */

/** Per-field validator tag (bxp's `FieldValidator`), consumed by editors. */
export type FieldValidator = "none" | "non_empty" | "starts_with_dollar" | "expr_string";

/** Per-field autocomplete source tag (bxp's `AutocompleteSource`). */
export type AutocompleteSource =
  | "none"
  | "pre_pass_names"
  | "input_schema_keys"
  | "ticker_map_names"
  | "csv_headers_via_dryrun"
  | "enum_values";

/** How the loader reads a scalar value; drives the wrong-type / invalid-enum checks. */
export type ValueRule =
  | "string" // any string
  | "single_char" // a one-character string
  | "enum" // one of enum_values, anything else warns and falls back to the default
  | "boolean"
  | "u32" // a non-negative integer
  | "expression"
  | "object"
  | "array";

/** One schema entry. The first eleven fields are bxp's `FieldDoc` and appear in the docs JSON verbatim. */
export interface FieldDoc {
  key: string;
  type_name: string;
  required: boolean;
  default: string | null;
  description: string;
  enum_values: readonly string[] | null;
  ordered: boolean;
  insert_order: "schema" | "append" | "alpha" | null;
  /** JSON5 snippet the editor inserts for a new value (emitted as a parsed JSON value). */
  insert_template: string | null;
  validator: FieldValidator;
  autocomplete: AutocompleteSource;
  /** How validation reads this value (not part of the docs output). */
  rule: ValueRule;
}

type FieldInput =
  & Partial<FieldDoc>
  & Pick<FieldDoc, "key" | "type_name" | "required" | "description" | "rule">;

function field(f: FieldInput): FieldDoc {
  return {
    default: null,
    enum_values: null,
    ordered: false,
    insert_order: null,
    insert_template: null,
    validator: "none",
    autocomplete: "none",
    ...f,
  };
}

const FILE_TYPES = ["csv", "json"] as const;
const QUOTE_STYLES = ["none", "single", "double"] as const;
const DELIMITERS = [",", ";", "\t", "|"] as const;
const DECIMAL_SEPARATORS = [".", ","] as const;
const DIR_MODES = ["basename", "keep_path"] as const;
const AGGREGATES = ["last", "first", "sum", "count"] as const;
const AGGREGATE_TEXT =
  'How a value field combines the records that write one key: "last" (bxp\'s rule: the later record wins), "first" (the earliest wins), "sum" (exact decimal sum; "" counts 0, a non-number stops the file), "count" (how many records wrote it). Not in bxp.';

const TEMPLATE_SCAFFOLD = `{
  data_dir: ".",
  file_type_in: "csv",
  file_pattern_in: ".csv",
  file_pattern_out: ".csvx",
  input_schema: { $date: "[Date]", $amount: "[Amount]" },
  row_rules: [ { when: "1 = 1", rows: [ {} ] } ],
  output_schema: { date: "$date", amount: "$amount" }
}`;
const ROW_RULE_SCAFFOLD = `{ when: "[Type] = 'deposit'", rows: [ { $action: "'DEPOSIT'" } ] }`;
const PRE_PASS_SCAFFOLD = `{
  when: "[Type] = 'order'",
  key: "[Order ID]",
  values: { amount: "[Amount]" }
}`;

const T = "conversion_templates.*";

/** Top-level and wildcard slots that no single struct owns (bxp's envelope entries). */
const ENVELOPE: FieldDoc[] = [
  field({
    key: "maps",
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "Named lookup tables shared by every template: map_name -> { key: value }. REMAP (whole value) and REPLACE (substrings) use them through their 'name' argument; a template-level maps entry of the same name takes precedence.",
    insert_order: "alpha",
    insert_template: "{}",
  }),
  field({
    key: "maps.*",
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "A single named map of string keys to string values. Declaration order is kept, which is the order REPLACE applies its pairs in.",
    insert_order: "alpha",
    insert_template: `{ FROM: "TO" }`,
  }),
  field({
    key: "conversion_templates",
    type_name: "object",
    required: true,
    rule: "object",
    description:
      "The conversion templates, keyed by template id (the name --template selects). Without --template every template runs, in the order written here.",
    ordered: true,
    insert_order: "append",
    insert_template: "{}",
  }),
  field({
    key: T,
    type_name: "object",
    required: false,
    rule: "object",
    description: "A single conversion template; its settings are the `conversion_templates.*.*` entries.",
    insert_order: "schema",
    insert_template: TEMPLATE_SCAFFOLD,
  }),
  field({
    key: `${T}.input_schema.*`,
    type_name: "expression",
    required: true,
    rule: "expression",
    description:
      "Expression computed for every input row; its result becomes the value of this $variable. [Column] reads a field of the input row.",
    validator: "expr_string",
  }),
  field({
    key: `${T}.output_schema.*`,
    type_name: "string",
    required: true,
    rule: "string",
    description: "The $variable written into this output column. It must begin with $.",
    insert_template: `"$variable"`,
    validator: "starts_with_dollar",
    autocomplete: "input_schema_keys",
  }),
  field({
    key: `${T}.row_rules.*`,
    type_name: "object",
    required: false,
    rule: "object",
    description: "A single routing rule: a `when` condition and the `rows` it emits.",
    insert_order: "schema",
    insert_template: ROW_RULE_SCAFFOLD,
  }),
  field({
    key: `${T}.row_rules.*.rows.*`,
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "One emitted output row: $variable -> expression overrides applied on top of input_schema. {} emits the input_schema values unchanged.",
    insert_order: "append",
    insert_template: "{}",
  }),
  field({
    key: `${T}.pre_pass.when`,
    type_name: "expression",
    required: true,
    rule: "expression",
    description:
      "Single-block (legacy) pre_pass: only rows where this condition holds enter the lookup table.",
    validator: "expr_string",
  }),
  field({
    key: `${T}.pre_pass.key`,
    type_name: "expression",
    required: true,
    rule: "expression",
    description: "Single-block (legacy) pre_pass: expression giving the lookup key of a collected row.",
    validator: "expr_string",
  }),
  field({
    key: `${T}.pre_pass.values`,
    type_name: "object",
    required: true,
    rule: "object",
    description:
      "Single-block (legacy) pre_pass: field_name -> expression, stored per key and read back with LOOKUP(key, 'field_name'). Field names carry no $.",
    insert_order: "append",
  }),
  field({
    key: `${T}.pre_pass.values.*`,
    type_name: "expression",
    required: true,
    rule: "expression",
    description: "Expression computed for each collected row and stored under this field name for LOOKUP.",
    validator: "expr_string",
  }),
  field({
    key: `${T}.pre_pass.*`,
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "A named pre_pass block. The block name is its own LOOKUP namespace, read with LOOKUP('name', key, 'field'). The insert template is the block body; the name is the key it is stored under.",
    insert_order: "schema",
    insert_template: PRE_PASS_SCAFFOLD,
  }),
  field({
    key: `${T}.pre_pass.*.values.*`,
    type_name: "expression",
    required: true,
    rule: "expression",
    description: "Expression computed for each collected row and stored under this field name for LOOKUP.",
    validator: "expr_string",
  }),
];

/** Fields of one template (bxp's `BrokerConfig.fields`), bound under `conversion_templates.*`. */
const TEMPLATE_FIELDS: FieldDoc[] = [
  field({
    key: "data_dir",
    type_name: "string",
    required: true,
    rule: "string",
    description:
      'Folder holding the input files, relative to the config file (or absolute). Outputs are written there too. A list of folders (["inbox/2024", "inbox/2025"], not in bxp) reads every folder\'s inputs, folders in list order and names in order inside each, writes each output beside its input and the combined output into the first folder; one input name in two folders is refused.',
    validator: "non_empty",
  }),
  field({
    key: "file_type_in",
    type_name: "string",
    required: false,
    rule: "enum",
    default: "csv",
    enum_values: FILE_TYPES,
    description: 'Input format: "csv", or "json" for a JSON array of objects.',
  }),
  field({
    key: "file_type_out",
    type_name: "string",
    required: false,
    rule: "enum",
    default: "csv",
    enum_values: FILE_TYPES,
    description: 'Output format: "csv", or "json" to write a JSON array of objects.',
  }),
  field({
    key: "file_pattern_in",
    type_name: "string",
    required: true,
    rule: "string",
    description:
      'Literal file-name ending that selects input files in data_dir (".csv", "_cash.csv"); not a glob. The ending is replaced by file_pattern_out to name the output.',
    validator: "non_empty",
  }),
  field({
    key: "file_pattern_out",
    type_name: "string",
    required: true,
    rule: "string",
    description: "File-name ending of the output file; it replaces file_pattern_in.",
    validator: "non_empty",
  }),
  field({
    key: "csv_header_line",
    type_name: "number",
    required: false,
    rule: "u32",
    default: "1",
    description:
      "1-based line of the CSV header. 0 means the file has no header: every line is data and columns are reached with FIELDS(n). N > 1 skips the N-1 lines before the header. CSV input only.",
  }),
  field({
    key: "csv_delimiter_in",
    type_name: "string",
    required: false,
    rule: "single_char",
    default: ",",
    enum_values: DELIMITERS,
    description: "Field separator of the input CSV (one character).",
  }),
  field({
    key: "csv_delimiter_out",
    type_name: "string",
    required: false,
    rule: "single_char",
    default: ",",
    enum_values: DELIMITERS,
    description: "Field separator written to the output CSV (one character).",
  }),
  field({
    key: "csv_decimal_separator_in",
    type_name: "string",
    required: false,
    rule: "single_char",
    default: ".",
    enum_values: DECIMAL_SEPARATORS,
    description:
      'Decimal mark used by numbers in the input (use "," for European exports). Must not equal csv_delimiter_in.',
  }),
  field({
    key: "csv_decimal_separator_out",
    type_name: "string",
    required: false,
    rule: "single_char",
    default: ".",
    enum_values: DECIMAL_SEPARATORS,
    description: "Decimal mark written into numeric output values.",
  }),
  field({
    key: "csv_text_quote_in",
    type_name: "string",
    required: false,
    rule: "enum",
    default: "double",
    enum_values: QUOTE_STYLES,
    description:
      "Quote character recognised around input fields. In expressions write '' for a literal quote.",
  }),
  field({
    key: "csv_text_quote_out",
    type_name: "string",
    required: false,
    rule: "enum",
    default: "none",
    enum_values: QUOTE_STYLES,
    description: "Quote character put around output fields that need it.",
  }),
  field({
    key: "csv_input_encoding",
    type_name: "string",
    required: false,
    rule: "string",
    default: "utf-8",
    description:
      'Character set of the input CSV, converted to UTF-8 on read (for example "windows-1250" for Czech Excel exports). CSV only; JSON and xlsx are always UTF-8.',
  }),
  field({
    key: "csv_output_encoding",
    type_name: "string",
    required: false,
    rule: "string",
    default: "utf-8",
    description:
      "Character set of the output CSV; characters it cannot represent are written as '?'. CSV only.",
  }),
  field({
    key: "maps",
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "Named maps private to this template ({ map_name: { key: value } }), laid over the top-level maps; on a name clash this template's map is used.",
  }),
  field({
    key: "date_filter_from_filename",
    type_name: "boolean",
    required: false,
    rule: "boolean",
    default: "false",
    description:
      "Keep only rows whose $date lies inside the YYYY-MM-DD_YYYY-MM-DD range found in the input file name. Needs $date in input_schema.",
  }),
  field({
    key: "combined_output",
    type_name: "boolean",
    required: false,
    rule: "boolean",
    default: "false",
    description:
      "Also write every input file's rows into one file, 1-<template_id>-combined<file_pattern_out>; files are taken in alphabetical order.",
  }),
  field({
    key: "row_rules_debug_missing",
    type_name: "boolean",
    required: false,
    rule: "boolean",
    default: "false",
    description: "With --debug, print the rows that no row_rules entry matched.",
  }),
  field({
    key: "xlsx_sheet",
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "Read one sheet of the xlsx workbook in data_dir into an intermediate CSV before the CSV pass.",
    insert_order: "schema",
    insert_template: `{ name: "Sheet1", header_row: 1, output_suffix: "" }`,
  }),
  field({
    key: "zip_input",
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "Unpack the members of every .zip in data_dir whose names end with entry_pattern into flat CSV files before the CSV pass.",
    insert_order: "schema",
    insert_template: `{ entry_pattern: ".csv" }`,
  }),
  field({
    key: "pre_pass",
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "Lookup tables built in a first pass over the input. Either one legacy block { when, key, values } (recognised by its `when`), read with LOOKUP(key, 'field'), or named blocks { name: { when, key, values } }, read with LOOKUP('name', key, 'field').",
    insert_template: PRE_PASS_SCAFFOLD,
  }),
  field({
    key: "input_schema",
    type_name: "object",
    required: true,
    rule: "object",
    description:
      "$variable -> expression, computed for every input row. output_schema and row_rules use the variables; the order here does not change results.",
    insert_order: "append",
    insert_template: `{ $value: "[Column]" }`,
  }),
  field({
    key: "output_schema",
    type_name: "object",
    required: true,
    rule: "object",
    description: "Output column header -> $variable. The order here is the column order of the output file.",
    ordered: true,
    insert_order: "append",
    insert_template: `{ column: "$value" }`,
  }),
  field({
    key: "row_rules",
    type_name: "array",
    required: false,
    rule: "array",
    description:
      "Routing rules tried in order; the first whose `when` holds decides the output rows and the rest are skipped. A row no rule matches is dropped.",
    ordered: true,
    insert_template: "[]",
  }),
  field({
    key: "description",
    type_name: "string",
    required: false,
    rule: "string",
    description: "Free text about the template, shown by template listings.",
  }),
  field({
    key: "fill_down",
    type_name: "array",
    required: false,
    rule: "array",
    description:
      "Input columns whose blank cells take the same column's value in the previous record of the same file (exports that write a date or account only on the first row of a group), before any expression reads the record. A header column name each; a short row's missing cells stay missing. Such templates convert serially and the partition modes refuse them. Not in bxp.",
    insert_template: `["Date"]`,
  }),
];

const XLSX_FIELDS: FieldDoc[] = [
  field({
    key: "name",
    type_name: "string",
    required: true,
    rule: "string",
    description: "Name of the sheet to read, as the workbook shows it.",
    validator: "non_empty",
  }),
  field({
    key: "header_row",
    type_name: "number",
    required: true,
    rule: "u32",
    description: "1-based row of the sheet that holds the column headers.",
  }),
  field({
    key: "output_suffix",
    type_name: "string",
    required: true,
    rule: "string",
    description: 'Text added before ".csv" in the intermediate file name; "" adds nothing.',
  }),
];

const ZIP_FIELDS: FieldDoc[] = [
  field({
    key: "entry_pattern",
    type_name: "string",
    required: false,
    rule: "string",
    default: ".csv",
    description: "Literal ending of the zip member names to extract (not a glob).",
  }),
  field({
    key: "dir_mode",
    type_name: "string",
    required: false,
    rule: "enum",
    default: "basename",
    enum_values: DIR_MODES,
    description:
      'How a member path becomes a file name in data_dir: "basename" keeps the last segment, "keep_path" joins the segments with path_separator.',
  }),
  field({
    key: "path_separator",
    type_name: "string",
    required: false,
    rule: "string",
    default: "_",
    description: 'Text that replaces "/" in member paths when dir_mode is "keep_path".',
  }),
];

const ROW_RULE_FIELDS: FieldDoc[] = [
  field({
    key: "when",
    type_name: "expression",
    required: true,
    rule: "expression",
    description: 'Condition of the rule; it matches when the result is non-empty, not zero and not "false".',
    validator: "expr_string",
  }),
  field({
    key: "rows",
    type_name: "array",
    required: true,
    rule: "array",
    description:
      "Rows emitted when the rule matches, one output row per entry. [] drops the input row; [{}] emits it with the input_schema values.",
    insert_template: "[{}]",
  }),
];

const PRE_PASS_FIELDS: FieldDoc[] = [
  field({
    key: "when",
    type_name: "expression",
    required: true,
    rule: "expression",
    description: "Only rows where this condition holds enter this block's lookup table.",
    validator: "expr_string",
  }),
  field({
    key: "key",
    type_name: "expression",
    required: true,
    rule: "expression",
    description: "Expression giving the lookup key of a collected row in this block.",
    validator: "expr_string",
  }),
  field({
    key: "values",
    type_name: "object",
    required: true,
    rule: "object",
    description: "field_name -> expression, read back with LOOKUP('name', key, 'field_name').",
    insert_order: "append",
  }),
  field({
    key: "aggregate",
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "field_name -> how several records writing one key combine (last, first, sum, count). A field not named here keeps bxp's last-wins, and such a collision is reported as a prepass_key_collision finding. Not in bxp.",
    insert_order: "append",
    insert_template: `{ fee: "sum" }`,
  }),
];

/** Wildcard slots of keys bxp lacks: after all of bxp's entries, so bxp's own keys keep bxp's order. */
const EXTENSION_SLOTS: FieldDoc[] = [
  field({
    key: `${T}.pre_pass.aggregate`,
    type_name: "object",
    required: false,
    rule: "object",
    description:
      "Single-block (legacy) pre_pass: field_name -> how several records writing one key combine. A field not named here keeps bxp's last-wins, and such a collision is reported as a prepass_key_collision finding. Not in bxp.",
    insert_order: "append",
    insert_template: `{ fee: "sum" }`,
  }),
  field({
    key: `${T}.pre_pass.aggregate.*`,
    type_name: "string",
    required: false,
    rule: "enum",
    default: "last",
    enum_values: AGGREGATES,
    description: AGGREGATE_TEXT,
  }),
  field({
    key: `${T}.pre_pass.*.aggregate.*`,
    type_name: "string",
    required: false,
    rule: "enum",
    default: "last",
    enum_values: AGGREGATES,
    description: AGGREGATE_TEXT,
  }),
];

function bind(prefix: string, fields: FieldDoc[]): FieldDoc[] {
  return fields.map((f) => ({ ...f, key: `${prefix}.${f.key}` }));
}

/** Every config key, in bxp's docs order. */
export const CONFIG_SCHEMA: readonly FieldDoc[] = [
  ...ENVELOPE,
  ...bind(T, TEMPLATE_FIELDS),
  ...bind(`${T}.xlsx_sheet`, XLSX_FIELDS),
  ...bind(`${T}.zip_input`, ZIP_FIELDS),
  ...bind(`${T}.row_rules.*`, ROW_RULE_FIELDS),
  ...bind(`${T}.pre_pass.*`, PRE_PASS_FIELDS),
  ...EXTENSION_SLOTS,
];

const BY_KEY = new Map(CONFIG_SCHEMA.map((f) => [f.key, f]));

/** The schema entry for a dotted key (with `*` wildcards), if any. */
export function schemaEntry(key: string): FieldDoc | undefined {
  return BY_KEY.get(key);
}

/** childKeys answers, computed once per parent (the schema never changes). */
const CHILD_KEYS = new Map<string, readonly string[]>();

/** Named (non-wildcard) children of a schema path, in schema order. Root is `""`. */
export function childKeys(parent: string): string[] {
  return [...childKeyList(parent)];
}

/**
 * {@link childKeys} without the copy: the cached list itself, for readers that only look (the unknown-key
 * check asks for it at every level of every validated config).
 *
 * @example
 * ```ts
 * import { childKeyList } from "./schema.ts";
 * import assert from "node:assert/strict";
 * assert.equal(childKeyList("").includes("conversion_templates"), true);
 * ```
 */
export function childKeyList(parent: string): readonly string[] {
  const known = CHILD_KEYS.get(parent);
  if (known !== undefined) return known;
  const prefix = parent === "" ? "" : parent + ".";
  const out: string[] = [];
  for (const f of CONFIG_SCHEMA) {
    if (!f.key.startsWith(prefix)) continue;
    const rest = f.key.slice(prefix.length);
    if (rest === "*" || rest.includes(".")) continue;
    out.push(rest);
  }
  Object.freeze(out);
  CHILD_KEYS.set(parent, out);
  return out;
}

/** The docs projection of a schema entry: bxp's FieldDoc fields only, in bxp's order. */
export function docFields(f: FieldDoc): Omit<FieldDoc, "rule"> {
  return {
    key: f.key,
    type_name: f.type_name,
    required: f.required,
    default: f.default,
    description: f.description,
    enum_values: f.enum_values,
    ordered: f.ordered,
    insert_order: f.insert_order,
    insert_template: f.insert_template,
    validator: f.validator,
    autocomplete: f.autocomplete,
  };
}

/**
 * Every diagnostic code validation can emit, with what it means. Expression findings use `expr.<ErrorName>`
 * with the language's error names (see `src/lang/errors.ts`); `expr.UnknownField` is the header-typo warning.
 */
export const DIAGNOSTIC_CODES: Readonly<Record<string, string>> = {
  "json5.parse_error": "The text is not valid JSON5 (line/col point at the problem).",
  "json5.duplicate_key": "A key appears twice in the same object; the last value would win.",
  "json5.too_large": "The config is over the 1 MiB size limit.",
  "json5.too_deep": "Containers are nested deeper than the reader accepts.",
  "config.load_failed": "Loading stopped at a hard error (the root marker names it).",
  "config.no_templates": "No conversion_templates are defined.",
  "config.missing_field": "A required key is absent.",
  "config.wrong_type": "A value has a type the loader cannot use (hard error).",
  "config.wrong_type_silent": "A value has the wrong type and is ignored in favour of the default.",
  "config.invalid_enum": "A value is not one of the allowed words; the default is used.",
  "config.invalid_value": "A value is out of its allowed range.",
  "config.invalid_pre_pass_name": "A pre_pass block name is empty or holds a NUL byte.",
  "config.invalid_aggregate":
    "A pre_pass aggregate entry is not last/first/sum/count, or names a field the block's values lack.",
  "config.empty_value": "A required value is empty.",
  "config.bad_variable": "A $variable name or reference does not start with $.",
  "config.unset_variable": "An output_schema variable is neither in input_schema nor set by every rule row.",
  "config.same_separators": "csv_delimiter_in and csv_decimal_separator_in are the same character.",
  "config.requires": "A setting needs another one that is missing.",
  "config.output_overwrites_input":
    "file_pattern_out equals file_pattern_in (ignoring case): every output would overwrite its own input.",
  "config.unsafe_path_separator":
    "zip_input.path_separator holds '/', '\\', ':' or NUL: keep_path members could land outside data_dir.",
  "config.path_outside_root":
    "Under a project root: data_dir, a file-name pattern, output_suffix or a combined output's id leads outside the root.",
  "config.unknown_key": "A key the schema does not know (did-you-mean in `suggest`).",
  "config.unused_pre_pass": "A pre_pass block no LOOKUP reads.",
  "config.unused_input_var": "An input_schema variable nothing uses.",
  "config.pattern_collision":
    "Two templates read the same files (same data_dir, overlapping file_pattern_in).",
  "fs.dir_not_found": "data_dir does not exist.",
  "fs.dir_unreadable": "data_dir cannot be opened.",
  "fs.no_input_files": "data_dir holds no file ending with file_pattern_in.",
  "fs.timeout": "The filesystem check ran out of time.",
  "expr.UnknownField": "A [Field] used once that looks like a typo of a field used often.",
  "expr.LookupUnknownPrePass": "LOOKUP names a pre_pass block the template does not declare.",
  "expr.LookupRequiresName": "A 2-argument LOOKUP in a template with several pre_pass blocks.",
  "expr.UnknownNamedMap": "REMAP/REPLACE name a map neither the template nor the top level defines.",
};
