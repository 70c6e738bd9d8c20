/** Built-in template: Trading 212 history export → brycht.app tracker. @module */

import { BRYCHTAPP_COLUMNS } from "./xtb_common.ts";

/** The whole config, JSON5 text. */
export const TEXT: string = String
  .raw`// Trading 212 history export → brycht.app tracker (buys and sells; one combined file).
//
// Same export as trading212_to_wealthfolio. The tracker wants trades only, dated YYYY-MM-DD, at the
// price per share in the share's own currency (Currency (Price / share); London quotes in pence, which
// Trading 212 writes GBX and the tracker GBp). Shares that arrive or leave for nothing (Total = 0)
// get a token price of 0.00000001 because the tracker refuses a zero price.
{
  maps: {
    trading212: {
      ASML: "ASML.AS",
      CMBT: "CMBT.BR",
      CSPX: "CSPX.L",
      DIV: "DIV.TO",
      IMB: "IMB.L",
      LGEN: "LGEN.L",
      NESN: "NESN.SW",
      NG: "NG.L",
      NOVN: "NOVN.SW",
      RIO: "RIO.L",
      ROG: "ROG.SW",
      ROP: "ROG.SW",
      SMIF: "SMIF.L",
      UBSG: "UBSG.SW",
      UKW: "UKW.L",
      ZURN: "ZURN.SW",
    },
  },
  conversion_templates: {
    trading212_to_brychtapp: {
      description: "Trading 212 -> brycht.app tracker",
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
        $date: "DATE_CONVERT([Time], 'YYYY-MM-DD hh:mm:ss', 'YYYY-MM-DD')",
        $ticker: "REMAP([Ticker], 'trading212')",
        $quantity: "[No. of shares]",
        $price: "IF([Total] = 0, '0.00000001', [Price / share])",
        $currency: "IF([Currency (Price / share)] = 'GBX', 'GBp', [Currency (Price / share)])",
        // Fees are charged in the account currency, not the price currency: left out.
        $fees: "",
        $notes: "[ID]",
      },

      row_rules: [
        { when: "IN([Action], 'Market buy', 'Limit buy', 'Stock distribution')", rows: [{ $type: "'BUY'" }] },
        { when: "[Action] = 'Market sell'", rows: [{ $type: "'SELL'" }] },
        // Cash movements, dividends, interest and fees are not trades.
        { when: "1 = 1", rows: [] },
      ],

      ${BRYCHTAPP_COLUMNS},
    },
  },
}
`;
