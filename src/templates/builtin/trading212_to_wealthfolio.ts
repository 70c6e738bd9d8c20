/** Built-in template: Trading 212 history export → Wealthfolio activity import. @module */

/** The whole config, JSON5 text. */
export const TEXT: string = String.raw`// Trading 212 history export → Wealthfolio activities.
//
// One line per event: Action, Time (YYYY-MM-DD hh:mm:ss), ISIN, Ticker, Name, Notes, ID, No. of shares,
// Price / share, Total with its currency, and optional fee / tax / conversion column pairs that later
// exports add at the end. Trades carry a Ticker; cash events do not. Total includes the currency
// conversion fee and the stamp duty, so the traded amount is Total minus both. A currency conversion
// becomes three activities: the fee, the cash leaving one currency, the cash arriving in the other.
{
  maps: {
    // Trading 212 ticker → Yahoo Finance symbol, for listings outside the US.
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
    trading212_to_wealthfolio: {
      description: "Trading 212 -> Wealthfolio",
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
      // The export is already cut to the period asked for.
      date_filter_from_filename: false,

      // Defaults fit trade lines; the rules below override them for cash events.
      input_schema: {
        $date: "[Time]",
        $ticker: "IF(ISEMPTY([Ticker]), '$CASH-' & [Currency (Total)], REMAP([Ticker], 'trading212'))",
        $isin: "",
        $quantity: "IF(ISEMPTY([Ticker]), 1, [No. of shares])",
        $unitprice: "IF(ISEMPTY([Ticker]), ABS([Total]), (ABS([Total]) - ABS([Currency conversion fee]) - ABS([Stamp duty reserve tax])) / [No. of shares])",
        $currency: "[Currency (Total)]",
        $fee: "IF(ABS([Currency conversion fee]) + ABS([Stamp duty reserve tax]) > 0, ABS([Currency conversion fee]) + ABS([Stamp duty reserve tax]), '')",
        $amount: "IF(ISEMPTY([Ticker]), ABS([Total]), ABS([Total]) - ABS([Currency conversion fee]) - ABS([Stamp duty reserve tax]))",
        $account: "'xT212'",
        $fxRate: "",
        $subtype: "",
        $instrumentType: "",
        $comment: "[ID] & '_' & [Time]",
      },

      row_rules_debug_missing: true,
      row_rules: [
        // Shares that arrive or leave for nothing are transfers, not trades (checked before BUY/SELL).
        {
          when: "IN([Action], 'Market buy', 'Limit buy', 'Stock distribution') AND [Total] = 0",
          rows: [{ $action: "'TRANSFER_IN'" }],
        },
        { when: "[Action] = 'Market sell' AND [Total] = 0", rows: [{ $action: "'TRANSFER_OUT'" }] },
        { when: "IN([Action], 'Market buy', 'Limit buy', 'Stock distribution')", rows: [{ $action: "'BUY'" }] },
        { when: "[Action] = 'Market sell'", rows: [{ $action: "'SELL'" }] },
        // Cash in and out: no quantity or price, only the amount.
        { when: "[Action] = 'Deposit'", rows: [{ $action: "'DEPOSIT'", $quantity: "", $unitprice: "" }] },
        { when: "[Action] = 'Withdrawal'", rows: [{ $action: "'WITHDRAWAL'", $quantity: "", $unitprice: "" }] },
        {
          when: "IN([Action], 'Dividend (Dividend)', 'Dividend (Dividend manufactured payment)', 'Dividend (Tax exempted)')",
          rows: [{ $action: "'DIVIDEND'" }],
        },
        { when: "IN([Action], 'Interest on cash', 'Lending interest')", rows: [{ $action: "'INTEREST'" }] },
        { when: "[Action] = 'SPLIT'", rows: [{ $action: "'SPLIT'" }] },
        {
          when: "[Action] = 'Currency conversion'",
          rows: [
            {
              $action: "'FEE'",
              $ticker: "'$CASH-' & [Currency (Currency conversion fee)]",
              $quantity: "",
              $unitprice: "",
              $currency: "[Currency (Currency conversion fee)]",
              $fee: "",
              $amount: "ABS([Currency conversion fee])",
            },
            {
              $action: "'WITHDRAWAL'",
              $ticker: "'$CASH-' & [Currency (Currency conversion from amount)]",
              $quantity: "",
              $unitprice: "",
              $currency: "[Currency (Currency conversion from amount)]",
              $fee: "",
              $amount: "ABS([Currency conversion from amount])",
            },
            {
              $action: "'DEPOSIT'",
              $ticker: "'$CASH-' & [Currency (Currency conversion to amount)]",
              $quantity: "",
              $unitprice: "",
              $currency: "[Currency (Currency conversion to amount)]",
              $fee: "",
              $amount: "ABS([Currency conversion to amount])",
            },
          ],
        },
        // Corrections move cash one way or the other, by the sign of Total.
        {
          when: "IN([Action], 'Result adjustment', 'Dividend adjustment')",
          rows: [{
            $action: "IF([Total] > 0, 'DEPOSIT', 'WITHDRAWAL')",
            $ticker: "'$CASH-' & [Currency (Total)]",
            $quantity: "1",
            $unitprice: "ABS([Total])",
            $currency: "[Currency (Total)]",
            $fee: "",
            $amount: "ABS([Total])",
          }],
        },
        // Depositary fees are charged in the share's price currency.
        {
          when: "[Action] = 'ADR Fee'",
          rows: [{
            $action: "'FEE'",
            $ticker: "'$CASH-' & [Currency (Price / share)]",
            $quantity: "1",
            $unitprice: "ABS([Total])",
            $currency: "[Currency (Price / share)]",
            $fee: "",
            $amount: "ABS([Total])",
          }],
        },
      ],

      output_schema: {
        date: "$date",
        symbol: "$ticker",
        isin: "$isin",
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
