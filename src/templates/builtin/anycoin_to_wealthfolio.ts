/** Built-in template: Anycoin account statement → Wealthfolio activity import. @module */

/** The whole config, JSON5 text. */
export const TEXT: string = String.raw`// Anycoin (crypto exchange) statement → Wealthfolio activities.
//
// The export lists one line per ledger movement: Date (ISO, UTC, with milliseconds), Type, Amount,
// Currency, Order ID, anycoin TX ID, ... A purchase is two lines sharing an Order ID: a "trade payment"
// (the fiat that left) and a "trade fill" (the coin that arrived). The pre_pass remembers each payment,
// so the fill line can be written as one BUY with its price. File names carry the statement's period
// (name_YYYY-MM-DD_YYYY-MM-DD.csv): lines outside it are left out.
{
  maps: {
    // Anycoin coin code → the Yahoo Finance symbol Wealthfolio prices it with.
    anycoin: { BTC: "BTC-EUR" },
  },
  conversion_templates: {
    anycoin_to_wealthfolio: {
      description: "Anycoin (crypto) -> Wealthfolio",
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

      // Fiat paid per order, read back on the matching "trade fill" line.
      pre_pass: {
        when: "[Type] = 'trade payment'",
        key: "[Order ID]",
        values: {
          amount: "ABS([Amount])",
          currency: "[Currency]",
        },
      },

      input_schema: {
        $date: "DATE_CONVERT([Date], 'YYYY-MM-DD[T]hh:mm:ss[*]', 'YYYY-MM-DD hh:mm:ss')",
        // Deposits are cash in the deposited currency; fills are the coin.
        $ticker: "IF([Type] = 'deposit', '$CASH-' & [Currency], REMAP([Currency], 'anycoin'))",
        $quantity: "IF([Type] = 'deposit', 1, [Amount])",
        $unitprice: "IF([Type] = 'deposit', [Amount], LOOKUP([Order ID], 'amount') / [Amount])",
        $currency: "IF([Type] = 'deposit', [Currency], LOOKUP([Order ID], 'currency'))",
        $fee: "",
        $amount: "IF([Type] = 'deposit', [Amount], LOOKUP([Order ID], 'amount'))",
        $account: "",
        $fxRate: "",
        $subtype: "",
        $instrumentType: "",
        $comment: "[anycoin TX ID]",
      },

      row_rules_debug_missing: true,
      row_rules: [
        { when: "[Type] = 'deposit'", rows: [{ $action: "'DEPOSIT'" }] },
        { when: "[Type] = 'trade fill'", rows: [{ $action: "'BUY'" }] },
        // Already folded into the fill through the pre_pass.
        { when: "[Type] = 'trade payment'", rows: [] },
        // Coins sent out of Anycoin (and the holds around them) are not trades.
        { when: "IN([Type], 'withdrawal', 'withdrawal_block', 'withdrawal_unblock')", rows: [] },
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
