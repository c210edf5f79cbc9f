import DecimalBase from "decimal.js";

/**
 * How much a rate moved since the previous value date, in decimal arithmetic on the published decimal text.
 *
 * Rounding, decided here: `change` is the exact difference of the two published values (at most as many
 * decimals as the longer of them, so nothing is rounded before it becomes a JSON number);
 * `change_percent` is change / previous * 100 rounded to CHANGE_PERCENT_DECIMALS decimals, halves away from
 * zero (0.00005 -> 0.0001, -0.00005 -> -0.0001), as a spreadsheet's ROUND does.
 */
const Decimal = DecimalBase.clone({ precision: 40, rounding: DecimalBase.ROUND_HALF_UP });

export const CHANGE_PERCENT_DECIMALS = 4;

export interface Change {
  change: number;
  change_percent: number;
}

export function changeSince(previous: string, current: string): Change {
  const before = new Decimal(previous);
  const change = new Decimal(current).minus(before);
  return {
    change: Number(change.toFixed()),
    change_percent: Number(change.dividedBy(before).times(100).toDecimalPlaces(CHANGE_PERCENT_DECIMALS).toFixed()),
  };
}
