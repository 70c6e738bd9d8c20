/** Built-in template: Anycoin statement → brycht.app tracker. @module */

import { BRYCHTAPP_COLUMNS } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// Anycoin (crypto exchange) statement → brycht.app tracker (buys only; one combined file).
//
// Same export as anycoin_to_wealthfolio: a purchase is a "trade payment" line (fiat out) and a
// "trade fill" line (coin in) sharing an Order ID. The tracker wants trades only, dated YYYY-MM-DD,
// with a price per coin in the fiat paid. Lines outside the period in the file name are left out.
{
  maps: {
    anycoin: { BTC: "BTC-EUR" },
  },
  conversion_templates: {
    anycoin_to_brychtapp: {
      description: "Anycoin (crypto) -> brycht.app tracker",
      data_dir: ".",
      file_type_in: "csv",
      file_type_out: "csv",
      file_pattern_in: ".csv",
      file_pattern_out: ".csvx",
      csv_delimiter_in: ",",
      csv_delimiter_out: ",",
      csv_decimal_separator_in: ".",
      csv_decimal_separator_out: ".",
      csv_text_quote_in: "none",
      csv_text_quote_out: "none",
      date_filter_from_filename: true,
      combined_output: true,

      pre_pass: {
        when: "[Type] = 'trade payment'",
        key: "[Order ID]",
        values: { paid: "ABS([Amount])", currency: "[Currency]" },
      },

      input_schema: {
        // date_filter_from_filename needs $date; the filter reads its YYYY-MM-DD start.
        $date: "DATE_CONVERT([Date], 'YYYY-MM-DD[T]hh:mm:ss[*]', 'YYYY-MM-DD')",
        $ticker: "REMAP([Currency], 'anycoin')",
        $quantity: "[Amount]",
        $price: "LOOKUP([Order ID], 'paid') / [Amount]",
        $currency: "LOOKUP([Order ID], 'currency')",
        $fees: "",
        $notes: "[anycoin TX ID]",
      },

      row_rules: [
        { when: "[Type] = 'trade fill'", rows: [{ $type: "'BUY'" }] },
        // Everything else (deposits, payments, withdrawals) is not a trade.
        { when: "1 = 1", rows: [] },
      ],

      ${BRYCHTAPP_COLUMNS},
    },
  },
}
`;
