/** Pieces shared by the XTB templates. @module */

/** XTB's symbol (ticker plus market suffix) → Yahoo Finance symbol, as a JSON5 `maps` entry. */
export const XTB_MAP: string = String.raw`xtb: {
      "ASML.NL": "ASML.AS",
      "BNTX.US": "BNTX",
      "BP.UK": "BP.L",
      "CSG.NL": "CSG.AS",
      "CZG.CZ": "CZG.PR",
      "FOUR.US": "FOUR",
      "KOMB.CZ": "KOMB.PR",
      "MRNA.US": "MRNA",
      "NESN.CH": "NESN.SW",
      "NOVN.CH": "NOVN.SW",
      "O.US": "O",
      "PFE.US": "PFE",
      "ROG.CH": "ROG.SW",
      "TABAK.CZ": "TABAK.PR",
      "VICI.US": "VICI",
      "VWRA.UK": "VWRA.L",
    }`;

/** The Wealthfolio columns, in import order, as a JSON5 `output_schema` body. */
export const WEALTHFOLIO_COLUMNS: string = String.raw`output_schema: {
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
      }`;

/** The brycht.app tracker's import columns, in order, as a JSON5 `output_schema` body. */
export const BRYCHTAPP_COLUMNS: string = String.raw`output_schema: {
        date: "$date",
        type: "$type",
        ticker: "$ticker",
        quantity: "$quantity",
        price: "$price",
        currency: "$currency",
        fees: "$fees",
        notes: "$notes",
      }`;
