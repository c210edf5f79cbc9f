import { badRequest } from "../http/problem";

/**
 * The currencies the central bank publishes reference rates for, by ISO 4217 code. The home page shows five;
 * the quarterly workbooks about twenty. Rates are bolivares (VES) per unit of the currency.
 */
export const CURRENCY_NAMES: Readonly<Record<string, string>> = {
  USD: "US dollar",
  EUR: "Euro",
  CNY: "Chinese yuan",
  TRY: "Turkish lira",
  RUB: "Russian ruble",
  CAD: "Canadian dollar",
  INR: "Indian rupee",
  JPY: "Japanese yen",
  ARS: "Argentine peso",
  BRL: "Brazilian real",
  CLP: "Chilean peso",
  COP: "Colombian peso",
  UYU: "Uruguayan peso",
  PEN: "Peruvian sol",
  BOB: "Bolivian boliviano",
  MXN: "Mexican peso",
  CUC: "Cuban convertible peso",
  NIO: "Nicaraguan córdoba",
  DOP: "Dominican peso",
  TTD: "Trinidad and Tobago dollar",
  ANG: "Netherlands Antillean guilder",
};

/** The currency rates are expressed in; it has no rate of its own (1 bolivar is 1 bolivar). */
export const BOLIVAR = "VES";
export const BOLIVAR_NAME = "Venezuelan bolívar";

export const DOLLAR = "USD";

/** Codes the bank writes that are not ISO 4217: the workbooks still use the Mexican peso's pre-1993 code. */
const BANK_CODE_ALIASES: Readonly<Record<string, string>> = { MXP: "MXN" };

/** The ISO 4217 code of a code as the bank writes it, or undefined when it is not a currency this service keeps. */
export function isoCodeOf(bankCode: string): string | undefined {
  const code = bankCode.trim().toUpperCase();
  const iso = BANK_CODE_ALIASES[code] ?? code;
  return iso in CURRENCY_NAMES ? iso : undefined;
}

/** The home page's blocks, by element id, and the currency each shows. The dollar is the one required. */
export const HOME_PAGE_BLOCKS: readonly { id: string; currency: string }[] = [
  { id: "dolar", currency: "USD" },
  { id: "euro", currency: "EUR" },
  { id: "yuan", currency: "CNY" },
  { id: "lira", currency: "TRY" },
  { id: "rublo", currency: "RUB" },
];

/** Every known code, USD first, then alphabetical: the order of `currencies=all` and of GET /currencies. */
export const KNOWN_CURRENCIES: readonly string[] = [
  DOLLAR,
  ...Object.keys(CURRENCY_NAMES)
    .filter((code) => code !== DOLLAR)
    .sort(),
];

/** The most codes one `currencies` parameter may list (more than there are, so any honest list fits). */
const MAX_LISTED_CURRENCIES = 32;

/**
 * The codes of a `currencies` query parameter: "all", or ISO codes separated by commas (any case, spaces
 * around them ignored, duplicates dropped). 400 naming each malformed or unknown code; undefined when absent.
 */
export function parseCurrencyList(value: string | undefined, field = "query.currencies"): string[] | "all" | undefined {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === "all") return "all";
  const items = value.split(",").map((item) => item.trim());
  if (items.length > MAX_LISTED_CURRENCIES) {
    throw badRequest(`currencies lists ${items.length} codes; at most ${MAX_LISTED_CURRENCIES} are accepted.`, [
      { field, message: `must list at most ${MAX_LISTED_CURRENCIES} codes` },
    ]);
  }
  const codes: string[] = [];
  const errors: { field: string; message: string }[] = [];
  for (const item of items) {
    const code = item.toUpperCase();
    if (!/^[A-Z]{3}$/.test(code)) {
      errors.push({ field, message: `${JSON.stringify(item.slice(0, 20))} is not a three-letter ISO 4217 code` });
    } else if (!(code in CURRENCY_NAMES)) {
      errors.push({
        field,
        message: `${code} is not a currency the central bank publishes (${KNOWN_CURRENCIES.join(", ")})`,
      });
    } else if (!codes.includes(code)) {
      codes.push(code);
    }
  }
  if (errors.length > 0) {
    throw badRequest(
      `${field.split(".").pop()} must be "all" or comma-separated ISO 4217 codes: ${errors.map((e) => e.message).join("; ")}.`,
      errors,
    );
  }
  return codes;
}

/**
 * The code of a one-currency parameter (`currency` of the badge, the embed card and GET /rates/): one ISO code
 * the bank publishes, any case. 400 naming the parameter otherwise.
 */
export function parseCurrencyCode(value: string, field = "query.currency"): string {
  const code = value.trim().toUpperCase();
  const name = field.split(".").pop();
  const problem = !/^[A-Z]{3}$/.test(code)
    ? `${JSON.stringify(value.slice(0, 20))} is not a three-letter ISO 4217 code`
    : code in CURRENCY_NAMES
      ? undefined
      : `${code} is not a currency the central bank publishes (${KNOWN_CURRENCIES.join(", ")})`;
  if (problem) throw badRequest(`${name} must be one ISO 4217 code: ${problem}.`, [{ field, message: problem }]);
  return code;
}
