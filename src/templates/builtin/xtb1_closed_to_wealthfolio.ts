/** Built-in template: XTB closed positions (old export) → Wealthfolio. @module */

import { WEALTHFOLIO_COLUMNS, XTB_MAP } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// XTB account statement, old layout, sheet "CLOSED POSITION" → Wealthfolio SELL activities.
//
// The statement is an .xlsx workbook; its sheet is extracted to <name>_closed.csv (header on sheet row
// 13) and that file is converted. Columns: Position, Symbol, Type, Volume, Open time, Open price,
// Close time, Close price, ..., Purchase value, Sale value, ... Every closed long position ("BUY") is one
// sale at the close time. The account currency is CZK. The last line is a total without a Symbol.
{
  maps: {
    ${XTB_MAP},
  },
  conversion_templates: {
    xtb1_closed_to_wealthfolio: {
      description: "XTB closed positions, old export -> Wealthfolio",
      data_dir: ".",
      xlsx_sheet: { name: "CLOSED POSITION", header_row: 13, output_suffix: "_closed.csv" },
      file_type_in: "csv",
      file_type_out: "csv",
      file_pattern_in: "_closed.csv",
      file_pattern_out: "_closed.csvx",
      csv_delimiter_in: ",",
      csv_delimiter_out: ",",
      csv_decimal_separator_in: ".",
      csv_decimal_separator_out: ".",
      csv_text_quote_in: "none",
      csv_text_quote_out: "double",
      date_filter_from_filename: false,

      input_schema: {
        $date: "[Close time]",
        $ticker: "REMAP([Symbol], 'xtb')",
        $quantity: "[Volume]",
        $unitprice: "[Sale value] / [Volume]",
        $currency: "'CZK'",
        $fee: "",
        $amount: "[Sale value]",
        $account: "",
        $fxRate: "",
        $subtype: "",
        $instrumentType: "",
        $comment: "[Position] & '_' & [Open time]",
      },

      row_rules_debug_missing: true,
      row_rules: [
        { when: "[Type] = 'BUY'", rows: [{ $action: "'SELL'" }] },
        // The closing total.
        { when: "ISEMPTY([Symbol])", rows: [] },
      ],

      ${WEALTHFOLIO_COLUMNS},
    },
  },
}
`;
