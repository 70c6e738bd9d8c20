/** Built-in template: XTB cash operations (new export) → Wealthfolio. @module */

import { WEALTHFOLIO_COLUMNS, XTB_MAP } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// XTB account statement, new layout, sheet "Cash Operations" → Wealthfolio cash activities and buys.
//
// The statement is an .xlsx workbook; its sheet is extracted to <name>_cash.csv (header on sheet row 5)
// and that file is converted. Columns: Type, Ticker, Instrument, Time, Amount (signed, CZK), ID,
// Comment, Product. A stock purchase's Comment reads "OPEN BUY <quantity>[/<ordered>] @ <price>": the
// quantity is its third word. Sales are taken from the closed-positions sheet instead
// (xtb2_closed_to_wealthfolio). A closing "Total" line sums the sheet.
{
  maps: {
    ${XTB_MAP},
  },
  conversion_templates: {
    xtb2_cash_to_wealthfolio: {
      description: "XTB cash operations, new export -> Wealthfolio",
      data_dir: ".",
      xlsx_sheet: { name: "Cash Operations", header_row: 5, output_suffix: "_cash.csv" },
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
        $ticker: "IF(ISEMPTY([Ticker]), '$CASH-CZK', REMAP([Ticker], 'xtb'))",
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
        { when: "[Type] = 'Dividend'", rows: [{ $action: "'DIVIDEND'" }] },
        { when: "IN([Type], 'Withholding tax', 'Stamp duty', 'Free funds interest tax')", rows: [{ $action: "'TAX'" }] },
        { when: "[Type] = 'Free funds interest'", rows: [{ $action: "'INTEREST'" }] },
        {
          when: "[Type] = 'Stock purchase'",
          rows: [{
            $action: "'BUY'",
            $ticker: "REMAP([Ticker], 'xtb')",
            $quantity: "SPLIT_PART(SPLIT_PART([Comment], ' ', 3), '/', 1)",
            $unitprice: "ABS([Amount]) / SPLIT_PART(SPLIT_PART([Comment], ' ', 3), '/', 1)",
          }],
        },
        // Both spellings occur.
        { when: "IN([Type], 'Deposit', 'deposit')", rows: [{ $action: "'DEPOSIT'" }] },
        // Sales come from the closed-positions sheet; "Total" and an empty Type close the sheet.
        { when: "IN([Type], 'Stock sell', 'Stock sale', 'close trade', 'Total') OR ISEMPTY([Type])", rows: [] },
      ],

      ${WEALTHFOLIO_COLUMNS},
    },
  },
}
`;
