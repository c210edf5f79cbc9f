import { getEnv } from "../server/env";
import { todayIn } from "./dates";

/**
 * Which rate is today's, the one rule every surface and read follows.
 *
 * The central bank publishes, around 5 p.m. in Caracas, the rate whose value date (Fecha Valor) is the next
 * business day: Friday's publication is Monday's rate. So the newest published rate is often not yet the one
 * a shop must charge with. The rate in force on a day D is the one with the newest value date on or before D;
 * a rate whose value date is after today is the *next* rate, published ahead. Weekends and holidays need no
 * calendar: on a Saturday, Sunday or holiday no value date of its own exists, so the last business day's rate
 * stays in force, and a Friday's publication (Monday's value date) stays the next rate until Monday.
 */
export type RateStanding = "in-force" | "next" | "earlier";

/** Today in RATES_TIMEZONE (America/Caracas by default): the day whose rate in force the surfaces show. */
export function ratesToday(now: Date = new Date()): string {
  return todayIn(getEnv().RATES_TIMEZONE, now);
}

/** Of value dates (any order), the one in force on `day`: the newest on or before it; undefined when none is. */
export function valueDateInForce(valueDates: Iterable<string>, day: string): string | undefined {
  let inForce: string | undefined;
  for (const date of valueDates) if (date <= day && (inForce === undefined || date > inForce)) inForce = date;
  return inForce;
}

/**
 * What a rate of `valueDate` is on `today`, given the value date in force then: the rate in force, the next
 * rate (published ahead, in force from its value date), or an earlier one.
 */
export function standingOf(valueDate: string, today: string, inForceValueDate: string | undefined): RateStanding {
  if (valueDate > today) return "next";
  return valueDate === inForceValueDate ? "in-force" : "earlier";
}
