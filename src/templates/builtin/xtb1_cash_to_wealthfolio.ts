/** Built-in template: XTB cash operations (old export) → Wealthfolio. @module */

import { WEALTHFOLIO_COLUMNS, XTB_MAP } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// XTB account statement, old layout, sheet "CASH OPERATION" → Wealthfolio cash activities and buys.
//
// The statement is an .xlsx workbook; its sheet is extracted to <name>_cash.csv (header on sheet row 11)
// and that file is converted. Columns: ID, Type, Time, Comment, Symbol, Amount (signed, CZK). A stock
// purchase's Comment reads "OPEN BUY <quantity>[/<ordered>] @ <price>": the quantity is its third word.
// Sales are taken from the closed-positions sheet instead (xtb1_closed_to_wealthfolio).
{
  maps: {
    ${XTB_MAP},
  },
  conversion_templates: {
    xtb1_cash_to_wealthfolio: {
      description: "XTB cash operations, old export -> Wealthfolio",
      data_dir: ".",
      xlsx_sheet: { name: "CASH OPERATION", header_row: 11, output_suffix: "_cash.csv" },
      file_type_in: "csv",
      file_type_out: "csv",
      file_pattern_in: "_cash.csv",
      file_pattern_out: "_cash.csvx",
      csv_delimiter_in: ",",
      csv_delimiter_out: ",",
      csv_decimal_separator_in: ".",
      csv_decimal_separator_out: ".",
      csv_text_quote_in: "none",
      csv_text_quote_out: "double",
      date_filter_from_filename: false,

      // Cash events: one unit at the absolute amount.
      input_schema: {
        $date: "[Time]",
        $ticker: "IF(ISEMPTY([Symbol]), '$CASH-CZK', REMAP([Symbol], 'xtb'))",
        $quantity: "'1'",
        $unitprice: "ABS([Amount])",
        $currency: "'CZK'",
        $fee: "",
        $amount: "ABS([Amount])",
        $account: "",
        $fxRate: "",
        $subtype: "",
        $instrumentType: "",
        $comment: "[ID] & '_' & [Time] & '_' & [Comment]",
      },

      row_rules_debug_missing: true,
      row_rules: [
        // (sic: the old export spells it DIVIDENT)
        { when: "[Type] = 'DIVIDENT'", rows: [{ $action: "'DIVIDEND'" }] },
        { when: "IN([Type], 'Withholding Tax', 'Stamp Duty', 'Free-funds Interest Tax')", rows: [{ $action: "'TAX'" }] },
        { when: "[Type] = 'Free-funds Interest'", rows: [{ $action: "'INTEREST'" }] },
        { when: "[Type] = 'deposit'", rows: [{ $action: "'DEPOSIT'" }] },
        {
          when: "[Type] = 'Stock purchase'",
          rows: [{
            $action: "'BUY'",
            $ticker: "REMAP([Symbol], 'xtb')",
            $quantity: "SPLIT_PART(SPLIT_PART([Comment], ' ', 3), '/', 1)",
            $unitprice: "ABS([Amount]) / SPLIT_PART(SPLIT_PART([Comment], ' ', 3), '/', 1)",
          }],
        },
        // Sales come from the closed-positions sheet; empty Type is the closing total.
        { when: "IN([Type], 'Stock sale', 'close trade') OR ISEMPTY([Type])", rows: [] },
      ],

      ${WEALTHFOLIO_COLUMNS},
    },
  },
}
`;
