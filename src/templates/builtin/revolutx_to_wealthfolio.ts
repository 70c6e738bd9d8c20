/** Built-in template: Revolut X statement → Wealthfolio activity import. @module */

/** The whole config, JSON5 text. */
export const TEXT: string = String.raw`// Revolut X (crypto) statement → Wealthfolio activities.
//
// Columns: Symbol, Type, Quantity, Price, Value, Fees, Date. Money columns carry their currency in the
// cell ("503524.67 CZK"): PRICE_VALUE takes the number, PRICE_CURRENCY the code. Dates read
// "26 Jun 2022, 16:02:36" and are double-quoted because of the comma. Type "Other" is a cash top-up.
// File names carry the statement's period (name_YYYY-MM-DD_YYYY-MM-DD.csv): lines outside it are left out.
{
  maps: {
    revolutx: { BTC: "BTC-USD" },
  },
  conversion_templates: {
    revolutx_to_wealthfolio: {
      description: "Revolut X (crypto) -> Wealthfolio",
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
      date_filter_from_filename: true,

      input_schema: {
        $date: "DATE_CONVERT([Date], 'D MMM YYYY, hh:mm:ss', 'YYYY-MM-DD hh:mm:ss')",
        $ticker: "IF([Type] = 'Other', '$CASH-' & PRICE_CURRENCY([Value]), REMAP([Symbol], 'revolutx'))",
        $quantity: "IF([Type] = 'Other', 1, [Quantity])",
        $unitprice: "PRICE_VALUE(IF([Type] = 'Other', [Value], [Price]))",
        $currency: "PRICE_CURRENCY([Value])",
        // A zero fee is left blank.
        $fee: "IF(PRICE_VALUE([Fees]) > 0, PRICE_VALUE([Fees]), '')",
        $amount: "PRICE_VALUE([Value])",
        $account: "",
        $fxRate: "",
        $subtype: "",
        $instrumentType: "",
        // The export has no transaction id: the timestamp, digits only, stands in for one.
        $comment: "DATE_CONVERT([Date], 'D MMM YYYY, hh:mm:ss', 'YYYYMMDDhhmmss')",
      },

      row_rules_debug_missing: true,
      row_rules: [
        { when: "IN([Type], 'Buy', 'Buy - Revolut X')", rows: [{ $action: "'BUY'" }] },
        { when: "[Type] = 'Sell'", rows: [{ $action: "'SELL'" }] },
        { when: "[Type] = 'Other'", rows: [{ $action: "'DEPOSIT'" }] },
        // Staking and rewards move coins without a price: not imported.
        { when: "IN([Type], 'Staking reward', 'Stake', 'Unstake', 'Learn reward')", rows: [] },
      ],

      output_schema: {
        date: "$date",
        symbol: "$ticker",
        quantity: "$quantity",
        activityType: "$action",
        unitPrice: "$unitprice",
        currency: "$currency",
        fee: "$fee",
        amount: "$amount",
        account: "$account",
        fxRate: "$fxRate",
        subtype: "$subtype",
        instrumentType: "$instrumentType",
        comment: "$comment",
      },
    },
  },
}
`;
