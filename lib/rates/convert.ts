import DecimalBase from "decimal.js";
import { badRequest, fieldErrorsOf } from "../http/problem";
import { rejectUnknownQuery } from "../http/request";
import { getEnv } from "../server/env";
import { BOLIVAR, CURRENCY_NAMES, KNOWN_CURRENCIES } from "./currencies";
import { todayIn } from "./dates";
import { findFirstDates, findLatestDateWithAll, listCurrencyRatesBetween } from "./repository";
import { type ConversionView, type ConvertQuery, convertQuerySchema } from "./schemas";

/**
 * Conversion between bolivars and any stored currency, or between two currencies through the bolivar, at
 * the rates of one value date. Every step is decimal arithmetic on the published decimal text: no binary
 * floating point between the stored digits and the answer.
 */

// 40 significant digits: a 15-digit amount times a 24-digit rate loses nothing before the final rounding.
const Decimal = DecimalBase.clone({ precision: 40, rounding: DecimalBase.ROUND_HALF_UP });

const RESULT_DECIMALS = 8;
const RATE_DECIMALS = 12;

/** The query of GET /convert; 400 naming each bad field. */
export function parseConvertQuery(request: Request): ConvertQuery {
  rejectUnknownQuery(request, Object.keys(convertQuerySchema.shape));
  const values: Record<string, string> = {};
  for (const [key, value] of new URL(request.url).searchParams) values[key] = value;
  const result = convertQuerySchema.safeParse(values);
  if (!result.success) {
    const errors = fieldErrorsOf(result.error, "query");
    throw badRequest(`${errors.map((error) => `${error.field} ${error.message}`).join("; ")}.`, errors);
  }
  const from = currencyCode(result.data.from, "query.from");
  const to = currencyCode(result.data.to, "query.to");
  return { ...result.data, from, to };
}

function currencyCode(value: string, field: string): string {
  const code = value.trim().toUpperCase();
  if (code === BOLIVAR || code in CURRENCY_NAMES) return code;
  const message = /^[A-Z]{3}$/.test(code)
    ? `${code} is not a currency with rates here: use VES or one of ${KNOWN_CURRENCIES.join(", ")}`
    : `"${value.slice(0, 20)}" is not a three-letter ISO 4217 code`;
  throw badRequest(`${field} ${message}.`, [{ field, message }]);
}

/**
 * Converts `amount` of `from` into `to` at the rates of `date` or, when that date has none for both
 * currencies, of the nearest earlier date that has (the latest when no date is given). 400 when no such
 * date exists (before the first rate, or a currency never stored).
 */
export async function convertAmount(query: ConvertQuery): Promise<ConversionView> {
  const foreign = [...new Set([query.from, query.to].filter((code) => code !== BOLIVAR))];
  const amount = new Decimal(query.amount);
  if (foreign.length === 0) {
    // Bolivars to bolivars needs no rate: the answer is the amount, on the date asked or today.
    return view(query, amount, new Decimal(1), query.date ?? todayIn(getEnv().RATES_TIMEZONE), {});
  }
  const date = await findLatestDateWithAll(foreign, query.date);
  if (date === undefined) throw await noRateProblem(foreign, query);
  const rows = await listCurrencyRatesBetween(date, date, foreign);
  const bolivars = new Map(rows.map((row) => [row.currency, row.rate]));
  const perUnit = (code: string) => (code === BOLIVAR ? new Decimal(1) : new Decimal(bolivars.get(code)!));
  // Units of `to` per unit of `from`: both through the bolivar.
  const rate = perUnit(query.from).dividedBy(perUnit(query.to));
  return view(query, amount, rate, date, Object.fromEntries(foreign.map((code) => [code, bolivars.get(code)!])));
}

function view(
  query: ConvertQuery,
  amount: DecimalBase,
  rate: DecimalBase,
  date: string,
  rates: Record<string, string>,
): ConversionView {
  return {
    amount: amount.toFixed(),
    from: query.from,
    to: query.to,
    result: amount.times(rate).toDecimalPlaces(RESULT_DECIMALS).toFixed(),
    rate: rate.toDecimalPlaces(RATE_DECIMALS).toFixed(),
    date,
    requested_date: query.date !== undefined && query.date !== date ? query.date : null,
    rates,
  };
}

async function noRateProblem(currencies: string[], query: ConvertQuery) {
  const first = await findFirstDates(currencies);
  const never = currencies.filter((code) => !first.has(code));
  if (never.length > 0) {
    const errors = never.map((code) => ({
      field: code === query.from ? "query.from" : "query.to",
      message: `no rate is stored for ${code}`,
    }));
    return badRequest(
      `No rate is stored for ${never.join(" or ")}; POST /rates/import imports the central bank's workbooks.`,
      errors,
    );
  }
  const starts = currencies.map((code) => `${code} ${first.get(code)}`).join(", ");
  return badRequest(
    `No rates for ${currencies.join(" and ")} on or before ${query.date}; the first stored: ${starts}.`,
    [{ field: "query.date", message: `is before the first date with rates (${starts})` }],
  );
}
