/** Built-in template: XTB closed positions (new export) → Wealthfolio. @module */

import { WEALTHFOLIO_COLUMNS, XTB_MAP } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// XTB account statement, new layout, sheet "Closed Positions" → Wealthfolio SELL activities.
//
// The statement is an .xlsx workbook; its sheet is extracted to <name>_closed.csv (header on sheet row
// 5) and that file is converted. Columns: Instrument, Category, Ticker, Type, Volume, Open Price,
// Open Time (UTC), Close Price, Close Time (UTC), ..., Purchase Value, Sale Value, ..., Position ID.
// Every closed long position ("BUY") is one sale. The account currency is CZK. A closing
// "Profit/loss" line sums the sheet.
{
  maps: {
    ${XTB_MAP},
  },
  conversion_templates: {
    xtb2_closed_to_wealthfolio: {
      description: "XTB closed positions, new export -> Wealthfolio",
      data_dir: ".",
      xlsx_sheet: { name: "Closed Positions", header_row: 5, output_suffix: "_closed.csv" },
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
        $date: "[Close Time (UTC)]",
        $ticker: "REMAP([Ticker], 'xtb')",
        $quantity: "[Volume]",
        $unitprice: "[Sale Value] / [Volume]",
        $currency: "'CZK'",
        $fee: "",
        $amount: "[Sale Value]",
        $account: "",
        $fxRate: "",
        $subtype: "",
        $instrumentType: "",
        $comment: "[Position ID] & '_' & [Open Time (UTC)]",
      },

      row_rules_debug_missing: true,
      row_rules: [
        { when: "[Type] = 'BUY'", rows: [{ $action: "'SELL'" }] },
        { when: "[Instrument] = 'Profit/loss'", rows: [] },
      ],

      ${WEALTHFOLIO_COLUMNS},
    },
  },
}
`;
