/** Built-in template: Revolut X statement → brycht.app tracker. @module */

import { BRYCHTAPP_COLUMNS } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// Revolut X (crypto) statement → brycht.app tracker (buys and sells; one combined file).
//
// Same export as revolutx_to_wealthfolio: money cells carry their currency ("503524.67 CZK").
// The tracker wants trades only, dated YYYY-MM-DD, with the price per coin and its currency.
{
  maps: {
    revolutx: { BTC: "BTC-USD" },
  },
  conversion_templates: {
    revolutx_to_brychtapp: {
      description: "Revolut X (crypto) -> brycht.app tracker",
      data_dir: ".",
      file_type_in: "csv",
      file_type_out: "csv",
      file_pattern_in: ".csv",
      file_pattern_out: ".csvx",
      csv_delimiter_in: ",",
      csv_delimiter_out: ",",
      csv_decimal_separator_in: ".",
      csv_decimal_separator_out: ".",
      csv_text_quote_in: "double",
      csv_text_quote_out: "none",
      date_filter_from_filename: false,
      combined_output: true,

      input_schema: {
        $date: "DATE_CONVERT([Date], 'D MMM YYYY, hh:mm:ss', 'YYYY-MM-DD')",
        $ticker: "REMAP([Symbol], 'revolutx')",
        $quantity: "[Quantity]",
        $price: "PRICE_VALUE([Price])",
        $currency: "PRICE_CURRENCY([Price])",
        $fees: "IF(PRICE_VALUE([Fees]) > 0, PRICE_VALUE([Fees]), '')",
        $notes: "",
      },

      row_rules: [
        { when: "IN([Type], 'Buy', 'Buy - Revolut X')", rows: [{ $type: "'BUY'" }] },
        { when: "[Type] = 'Sell'", rows: [{ $type: "'SELL'" }] },
        // Top-ups, staking and rewards are not trades.
        { when: "1 = 1", rows: [] },
      ],

      ${BRYCHTAPP_COLUMNS},
    },
  },
}
`;
