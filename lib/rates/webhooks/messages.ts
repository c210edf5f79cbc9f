import crypto from "node:crypto";
import { getEnv } from "../../server/env";
import { ratesToday } from "../in-force";
import { findLatestRateOnOrBefore, findRateByDate, listCurrencyRatesBetween } from "../repository";
import { RATE_SOURCE } from "../source";
import { type AllowedHosts, parseAllowedHosts } from "./destination";

/** Ids of webhooks ("wh_") and deliveries ("msg_"): 16 random bytes, URL-safe. */
export const randomId = (prefix: string) => prefix + crypto.randomBytes(16).toString("base64url");

let allowedCache: { list: string; parsed: AllowedHosts } | undefined;

/** WEBHOOK_ALLOWED_HOSTS, parsed once. */
export function allowedHosts(): AllowedHosts {
  const list = getEnv().WEBHOOK_ALLOWED_HOSTS;
  if (allowedCache?.list !== list) allowedCache = { list, parsed: parseAllowedHosts(list) };
  return allowedCache!.parsed;
}

/**
 * The body of a rates.published delivery (Standard Webhooks' envelope: type, timestamp, data): the new value
 * date, its dollar rate and the rates of the subscribed currencies on that date, bolivares per unit, whether it
 * is the rate in force today (lib/rates/in-force.ts) and when this service first stored it.
 */
export async function publishedPayload(valueDate: string, currencies: string): Promise<string> {
  const asked = currencies === "all" ? "all" : currencies.split(",");
  const values = await listCurrencyRatesBetween(
    valueDate,
    valueDate,
    asked === "all" ? "all" : [...new Set(["USD", ...asked])],
  );
  const rates: Record<string, number> = {};
  let dollar: number | null = null;
  for (const value of values) {
    if (value.currency === "USD") dollar = Number(value.rate);
    if (asked === "all" || asked.includes(value.currency)) rates[value.currency] = Number(value.rate);
  }
  // What the rate is when the message is made: a rate published in the afternoon is the next one (in_force
  // false), in force from its value date.
  const [stored, inForce] = await Promise.all([findRateByDate(valueDate), findLatestRateOnOrBefore(ratesToday())]);
  return JSON.stringify({
    type: "rates.published",
    timestamp: new Date().toISOString(),
    data: {
      value_date: valueDate,
      dollar,
      rates,
      in_force: inForce?.date === valueDate,
      published_at: stored?.publishedAt.toISOString() ?? null,
      source: RATE_SOURCE,
    },
  });
}
