/** Built-in template: XTB cash operations (new export) → brycht.app tracker. @module */

import { BRYCHTAPP_COLUMNS, XTB_MAP } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// XTB account statement, new layout, sheet "Cash Operations" → brycht.app tracker (buys; one file).
//
// Same export as xtb2_cash_to_wealthfolio. A stock purchase's Comment reads
// "OPEN BUY <quantity>[/<ordered>] @ <price>": the quantity is its third word, the price its fifth,
// in the instrument's currency, which the sheet does not name (left blank for the tracker to fill).
// Sales come from the closed-positions sheet (xtb2_closed_to_brychtapp).
{
  maps: {
    ${XTB_MAP},
  },
  conversion_templates: {
    xtb2_cash_to_brychtapp: {
      description: "XTB cash operations, new export -> brycht.app tracker",
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
      combined_output: true,

      input_schema: {
        $date: "DATE_CONVERT([Time], 'YYYY-MM-DD hh:mm:ss', 'YYYY-MM-DD')",
        $ticker: "REMAP([Ticker], 'xtb')",
        $quantity: "SPLIT_PART(SPLIT_PART([Comment], ' ', 3), '/', 1)",
        $price: "SPLIT_PART([Comment], ' ', 5)",
        $currency: "",
        $fees: "",
        $notes: "[ID]",
      },

      row_rules: [
        { when: "[Type] = 'Stock purchase'", rows: [{ $type: "'BUY'" }] },
        { when: "1 = 1", rows: [] },
      ],

      ${BRYCHTAPP_COLUMNS},
    },
  },
}
`;
