/** Built-in template: XTB closed positions (new export) → brycht.app tracker. @module */

import { BRYCHTAPP_COLUMNS, XTB_MAP } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// XTB account statement, new layout, sheet "Closed Positions" → brycht.app tracker (sells; one file).
//
// Same export as xtb2_closed_to_wealthfolio. Every closed long position ("BUY") is one sale at its
// Close Price (the instrument's currency, which the sheet does not name: left blank), dated by its
// close time. The closing "Profit/loss" line is not a position.
{
  maps: {
    ${XTB_MAP},
  },
  conversion_templates: {
    xtb2_closed_to_brychtapp: {
      description: "XTB closed positions, new export -> brycht.app tracker",
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
      combined_output: true,

      input_schema: {
        $date: "DATE_CONVERT([Close Time (UTC)], 'YYYY-MM-DD hh:mm:ss', 'YYYY-MM-DD')",
        $ticker: "REMAP([Ticker], 'xtb')",
        $quantity: "[Volume]",
        $price: "[Close Price]",
        $currency: "",
        $fees: "",
        $notes: "[Position ID]",
      },

      row_rules: [
        { when: "[Type] = 'BUY'", rows: [{ $type: "'SELL'" }] },
        { when: "1 = 1", rows: [] },
      ],

      ${BRYCHTAPP_COLUMNS},
    },
  },
}
`;
