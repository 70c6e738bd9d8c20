/**
 * Dates for the bxp expression language: date format tokens, the ISO date reader, the calendar
 * builtins and the time-zone builtins. String arguments arrive evaluated; numeric ones as JS
 * numbers. Functions raise `ExprError("InvalidDate", …)` where bxp raises and return "" where bxp
 * returns "".
 *
 * @example
 * ```ts
 * import { dateConvert, nthDow, tzOffset } from "./mod.ts";
 * import assert from "node:assert/strict";
 * assert.equal(dateConvert("31.12.2024", "DD.MM.YYYY", "YYYY-MM-DD"), "2024-12-31");
 * assert.equal(nthDow(2024, 3, 7, -1), "2024-03-31");
 * assert.equal(tzOffset("2024-07-15 12:00:00", "Europe/Prague"), "+02:00");
 * ```
 * @module
 */

import { convertDate } from "./format.ts";

export { checkDateFormat, DATE_TOKENS } from "./tokens.ts";
export { convertDate, dateConverter } from "./format.ts";
export {
  dateAdd,
  dateDiff,
  dateTrunc,
  day,
  eomonth,
  hour,
  isDate,
  minute,
  month,
  nowUtc,
  nthDow,
  quarter,
  second,
  weekday,
  weeknum,
  workday,
  year,
} from "./builtins.ts";
export { isDst, toUtc, tzConvert, tzOffset } from "./timezones.ts";

/**
 * `DATE_CONVERT(value, fromFmt, toFmt)`: read `value` under `fromFmt` and write it under `toFmt`.
 * Never raises: input that does not fit, or names an impossible date or time, gives "".
 */
export function dateConvert(value: string, fromFmt: string, toFmt: string): string {
  return convertDate(value, fromFmt, toFmt);
}
