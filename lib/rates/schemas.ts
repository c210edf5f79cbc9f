import { z } from "zod";

/** The longest range GET /rates/history serves: days from start_date to end_date (about ten years). */
export const MAX_HISTORY_SPAN_DAYS = 3660;
/** How far back GET /rates/history reaches when start_date is not given. */
export const DEFAULT_HISTORY_SPAN_DAYS = 30;

// z.iso.date() checks the calendar too (2026-02-30, 2026-02-29, 2026-13-01 fail), not only the shape.
export const isoDateSchema = z.iso
  .date({ error: "must be a calendar date written YYYY-MM-DD, such as 2026-11-23" })
  .describe("A calendar date, YYYY-MM-DD")
  // Without an example, Swagger UI invents one from the calendar pattern: 6800-02-29.
  .meta({ example: "2026-11-24" });

export const rateDateParamsSchema = z.object({
  date: isoDateSchema
    .describe("The value date whose rate is asked, YYYY-MM-DD (with in_force=true, any date: the rate in force on it)")
    .meta({ example: "2025-10-14" }),
});

const currenciesParameterSchema = z
  .string()
  .optional()
  .describe(
    'Other currencies to include: "all", or ISO 4217 codes separated by commas. Each rate then carries `rates` ' +
      "(bolivares per unit by code, for the asked currencies that have a rate on that date). An unknown or " +
      "malformed code answers 400 naming it. Without it the response is exactly the dollar's.",
  )
  .meta({ examples: ["EUR,CNY", "all"] });

const includeParameterSchema = z
  .literal("change", { error: 'must be "change", the only extra this endpoint adds' })
  .optional()
  .describe(
    "\"change\" adds the previous value date's rate and the change since then: `previous` (the dollar's previous " +
      "value date and rate), `change` (bolivares, exact) and `change_percent` (4 decimals, half away from zero), " +
      "null on the first stored date; with `currencies`, `changes` gives the same per currency. Without it the " +
      "response has none of these fields.",
  )
  .meta({ example: "change" });

// No example: Swagger UI fills each parameter's example in, and the answers /docs shows would turn to text.
const decimalsParameterSchema = z
  .enum(["number", "string"], { error: 'must be "number" or "string"' })
  .optional()
  .describe(
    '"string" writes every decimal value (`dollar`, `rates`, `previous`, `change`, `change_percent`) as decimal ' +
      'text, "236.4587", as GET /convert writes amounts: exact in any client, where a JSON number is read as ' +
      'binary floating point. Without it (or "number") they are JSON numbers: deprecated, and to be replaced by ' +
      "text as the default in the API's next major version. JSON answers only: the files write values as stored.",
  );

export const rateCurrenciesQuerySchema = z.object({
  currencies: currenciesParameterSchema,
  include: includeParameterSchema,
  decimals: decimalsParameterSchema,
});

/** The rule every read of "today's rate" follows, told once in the API's descriptions. */
export const IN_FORCE_RULE =
  "The bank publishes, around 5 p.m. in Caracas, the rate whose value date (Fecha Valor) is the next business " +
  "day (Friday's publication is Monday's rate). The rate in force on a day is the one with the newest value date " +
  "on or before it; one whose value date is after today (in RATES_TIMEZONE, America/Caracas) is the next rate, " +
  "published ahead. On weekends and holidays the last business day's rate stays in force.";

const inForceParameterSchema = z
  .enum(["true", "false"], { error: 'must be "true" or "false"' })
  .optional()
  .describe(
    `"true" answers the rate in force today. ${IN_FORCE_RULE} \`date\` is then today and \`value_date\` the ` +
      'value date whose rate it is. Without it (or "false") the newest published rate, which after the ' +
      "afternoon's publication is the next one.",
  )
  .meta({ example: "true" });

/** GET /rates/: the newest rate, or with in_force=true today's; `currency` is `currencies` with one code. */
export const latestRateQuerySchema = rateCurrenciesQuerySchema.extend({
  // No example: Swagger UI fills each parameter's example in, and this one beside `currencies`' is a 400.
  currency: z
    .string()
    .optional()
    .describe(
      "One currency to include, as the badge, the embed card and the dashboard's address name it: the same as " +
        "`currencies` with one code. Not with `currencies`.",
    ),
  in_force: inForceParameterSchema,
});

/** The badge and the card for a shop's own site: which currency, in which language. */
export const rateCardQuerySchema = z.object({
  currency: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{3}$/, { error: "must be a three-letter ISO 4217 code such as USD or EUR" })
    .default("USD")
    .describe("The currency whose rate is shown, in bolivares per unit: USD (the default) or another stored one")
    .meta({ example: "USD" }),
  lang: z
    .enum(["es", "en"], { error: 'must be "es" (Spanish) or "en" (English)' })
    .default("es")
    .describe(
      "The language of the words and of the numbers: es writes 236,4587 and 26 nov 2026 (the default), en " +
        "writes 236.4587 and Nov 26, 2026",
    ),
});

/** The embed card: the badge's parameters and its colours. */
export const rateEmbedQuerySchema = rateCardQuerySchema.extend({
  theme: z
    .enum(["light", "dark", "auto"], { error: 'must be "light", "dark" or "auto"' })
    .default("light")
    .describe(
      "The card's colours: light (the default, for the light pages most shops have), dark, or auto (as the " +
        "visitor's system is, whatever the page around it)",
    ),
});

export const rateByDateQuerySchema = rateCurrenciesQuerySchema.extend({
  in_force: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .optional()
    .describe(
      '"true" answers the rate in force on the date: that of the latest value date on or before it (the bank ' +
        "publishes none for weekends and holidays). `date` is then the date asked and `value_date` the value date " +
        "whose rate it is. 404 before the first stored rate, or for a date after both today and the newest value " +
        'date (not known yet). Without it (or "false") a date without a rate of its own answers 404.',
    )
    .meta({ example: "true" }),
});

export const rateHistoryQuerySchema = z.object({
  currencies: currenciesParameterSchema,
  include: includeParameterSchema,
  decimals: decimalsParameterSchema,
  start_date: isoDateSchema
    .optional()
    .describe(`First date of the range, YYYY-MM-DD; default end_date - ${DEFAULT_HISTORY_SPAN_DAYS} days`)
    .meta({ example: "2026-10-24" }),
  end_date: isoDateSchema
    .optional()
    .describe(
      "Last date of the range, YYYY-MM-DD; default today in RATES_TIMEZONE. A next rate, published ahead of its " +
        "value date (the bank's afternoon publication), is read with an end_date on or after that value date",
    )
    .meta({ example: "2026-11-23" }),
  format: z
    .enum(["json", "csv", "ndjson", "xlsx"], { error: 'must be "json", "csv", "ndjson" or "xlsx"' })
    .optional()
    .describe(
      "csv, ndjson or xlsx: the range as a file instead of JSON; json: JSON whatever the Accept header says. " +
        "Without it an Accept header that prefers text/csv or application/x-ndjson to application/json chooses " +
        "CSV or NDJSON. CSV: a header `date,USD,<asked codes>`, one row per value date, newest first, values as " +
        "stored (every digit, a decimal point, an empty cell for a currency without a rate that date), CRLF, RFC " +
        "4180 quoting. NDJSON: one object per line, each exactly an item of the JSON `rates`. XLSX: an Excel " +
        "workbook of one sheet, `rates`, laid out as the CSV (the same header, rows and empty cells; for a Spanish " +
        "reader, by the site's `lang` cookie or else the first language of Accept-Language, the sheet `tasas` and " +
        "the date column `fecha`), with each date " +
        "a date cell (shown YYYY-MM-DD) and each value a number cell (up to 8 decimals), so that a spreadsheet set " +
        "to any language reads it; written whole, not streamed. Without `currencies` the dollar only; " +
        "`currencies=all` every stored currency. Not with include.",
    ),
});

const overwriteSchema = z.enum(["true", "false"], { error: "must be true or false" });
const overwriteMeaning = "true: replace values the home page stored for the same date and currency; false keeps them";

/** POST /rates/import's query: the file's name when the body is the raw file, and whether to overwrite. */
export const rateImportQuerySchema = z.object({
  name: z
    .string()
    .optional()
    .describe("The file's name, for the summary, when the body is the raw file")
    .meta({ example: "2_1_2d25_smc.xls" }),
  overwrite: overwriteSchema
    .default("false")
    .describe(`${overwriteMeaning} (the default). Also accepted as a form field, which wins`),
});

/** POST /rates/import's multipart/form-data body: the workbook, and `overwrite` as a form field. */
export const rateImportFormSchema = z
  .object({
    file: z
      .file({ error: (issue) => (issue.input === undefined ? "is missing" : "is not a non-empty file") })
      .min(1, { error: "is not a non-empty file" })
      .describe("The workbook, an Excel 97 .xls file"),
    overwrite: overwriteSchema
      .optional()
      .describe(`${overwriteMeaning}. Without it the query's \`overwrite\` decides (false unless given)`),
  })
  .meta({ id: "RateImportForm" });

/**
 * A decimal value of a rate read: a number in the code, documented as the API writes it, a JSON number or, with
 * decimals=string, decimal text (lib/rates/decimal-text.ts). `pattern` holds for text only and a numeric bound
 * for numbers only, so the one schema is exact for both.
 */
const rateDecimal = (number: z.ZodNumber) => number.meta({ type: ["number", "string"], pattern: "^-?\\d+(\\.\\d+)?$" });

const changeFields = {
  change: rateDecimal(z.number())
    .nullable()
    .describe("Bolivares per unit gained since the previous value date (negative when it fell): exact, every digit"),
  change_percent: rateDecimal(z.number())
    .nullable()
    .describe("The change as a percentage of the previous rate, rounded to 4 decimals (half away from zero)"),
};

export const currencyChangeSchema = z
  .object({
    previous_date: isoDateSchema.nullable().describe("The currency's previous value date; null for its first"),
    previous: rateDecimal(z.number().positive()).nullable().describe("Bolivares per unit on previous_date"),
    ...changeFields,
  })
  .meta({ id: "CurrencyChange" });

export const rateSchema = z
  .object({
    dollar: rateDecimal(z.number().positive()).describe(
      "Bolivares per US dollar, every decimal the central bank published; decimal text with decimals=string",
    ),
    date: isoDateSchema.describe(
      "The value date (Fecha Valor), YYYY-MM-DD; with in_force=true the date asked, and value_date the value date",
    ),
    value_date: isoDateSchema
      .optional()
      .describe("Only with in_force=true: the value date whose rate is in force on `date` (on or before it)"),
    in_force: z
      .boolean()
      .optional()
      .describe(
        "In every answer of one rate (GET /rates/, /rates/{date}, POST /rates/), not in the history's items: " +
          "whether this is the rate in force today in Caracas. False for a next rate (value date after today) " +
          "and for an older one.",
      ),
    published_at: z
      .string()
      .nullable()
      .optional()
      .describe(
        "In every answer of one rate: when this service first stored it (the fetch of the bank's page, or the " +
          "workbook's import), ISO 8601 in UTC",
      )
      .meta({ example: "2026-12-01T21:04:11.482Z" }),
    rates: z
      .record(z.string(), rateDecimal(z.number().positive()))
      .optional()
      .describe(
        "Only when `currencies` is asked: bolivares per unit of each asked currency that has a rate on this " +
          "date, by ISO 4217 code, every published digit",
      )
      .meta({ example: { USD: 197.2456, EUR: 228.09086692, CNY: 27.65836079 } }),
    previous: z
      .object({ date: isoDateSchema, dollar: rateDecimal(z.number().positive()) })
      .nullable()
      .optional()
      .describe("Only with include=change: the dollar's previous value date and rate; null for the first stored"),
    change: changeFields.change.optional().describe(`Only with include=change: ${changeFields.change.description}`),
    change_percent: changeFields.change_percent
      .optional()
      .describe(`Only with include=change: ${changeFields.change_percent.description}`),
    changes: z
      .record(z.string(), currencyChangeSchema)
      .optional()
      .describe("Only with include=change and `currencies`: the change of each currency in `rates`, by code"),
  })
  .meta({ id: "Rate" });

export const storedRateSchema = rateSchema
  .extend({ id: z.number().int().describe("Stays the same when the rate of a date is refreshed") })
  .meta({ id: "StoredRate" });

export const rateHistorySchema = z
  .object({
    start_date: isoDateSchema.describe("The first date of the range actually used"),
    end_date: isoDateSchema.describe("The last date of the range actually used"),
    rates: z.array(rateSchema).describe("The stored rates within the range, newest first"),
  })
  .meta({ id: "RateHistory" });

export const currencySchema = z
  .object({
    code: z.string().describe("ISO 4217 code").meta({ example: "EUR" }),
    name: z.string().meta({ example: "Euro" }),
    first_date: isoDateSchema.describe("The first value date with a stored rate"),
    last_date: isoDateSchema.describe("The last value date with a stored rate"),
    dates: z.number().int().describe("How many value dates have a stored rate"),
  })
  .meta({ id: "Currency" });

export const currencyListSchema = z
  .object({
    currencies: z.array(currencySchema).describe("Every currency with a stored rate, USD first, then by code"),
  })
  .meta({ id: "CurrencyList" });

const decimalText = (description: string, example: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .describe(description)
    .meta({ example });

export const convertQuerySchema = z.object({
  amount: z
    .string({ error: "is required: a positive decimal number such as 100 or 12.5" })
    .trim()
    .regex(/^\d{1,15}(\.\d{1,8})?$/, {
      error: "must be a positive decimal number with a dot, at most 15 digits before it and 8 after (100, 12.5)",
    })
    .refine((text) => /[1-9]/.test(text), { error: "must be greater than zero" })
    .describe("How much of `from` to convert: a dot decimal without thousands separators (`50000`, `1234.56`)")
    .meta({ example: "100" }),
  from: z
    .string({ error: "is required: an ISO 4217 code such as USD, or VES" })
    .describe("The currency of the amount: VES or a currency with stored rates")
    .meta({ example: "USD" }),
  to: z
    .string({ error: "is required: an ISO 4217 code such as VES, or USD" })
    .describe("The currency to convert to: VES or a currency with stored rates")
    .meta({ example: "VES" }),
  date: isoDateSchema
    .optional()
    .describe("Convert at the rates of this date, or the nearest earlier date with rates; default the latest"),
});

export const conversionSchema = z
  .object({
    amount: decimalText("The amount converted, as asked", "100"),
    from: z.string().meta({ example: "USD" }),
    to: z.string().meta({ example: "VES" }),
    result: decimalText("The amount in `to`, rounded to 8 decimals (half up), as decimal text", "19724.56"),
    rate: decimalText("Units of `to` per unit of `from`, rounded to 12 decimals, as decimal text", "197.2456"),
    date: isoDateSchema.describe("The value date of the rates used"),
    requested_date: isoDateSchema
      .nullable()
      .describe("The date asked for, when it differs from `date` (it had no rate: a weekend, a holiday)"),
    rates: z
      .record(z.string(), z.string())
      .describe("The bolivar rates used, by code, as stored (decimal text)")
      .meta({ example: { USD: "197.2456" } }),
  })
  .meta({ id: "Conversion" });

export const importSummarySchema = z
  .object({
    file: z.string().describe("The file's name").meta({ example: "2_1_2d25_smc.xls" }),
    overwrite: z
      .boolean()
      .describe("Whether home-page values were to be replaced (`overwrite=true`)")
      .meta({ example: false }),
    sheets_read: z.number().int().describe("Sheets whose rates were read").meta({ example: 9 }),
    dates_added: z.number().int().describe("Value dates that had no rate before").meta({ example: 9 }),
    dates_changed: z
      .number()
      .int()
      .describe("Value dates where a rate was added or its value changed")
      .meta({ example: 0 }),
    dates_unchanged: z
      .number()
      .int()
      .describe("Value dates where nothing was stored: every rate was already there, or a home-page value was kept")
      .meta({ example: 0 }),
    values_stored: z.number().int().describe("Rates (date and currency) added or replaced").meta({ example: 189 }),
    first_date: isoDateSchema.describe("The earliest value date read"),
    last_date: isoDateSchema.describe("The latest value date read"),
    currencies: z.array(z.string()).describe("The currencies read, ISO 4217 (the workbooks' MXP is MXN)"),
    sheets_skipped: z
      .array(z.object({ sheet: z.string(), reason: z.string() }))
      .describe("Sheets not read, and why (among them sheets dated after today: future dates come from the home page)"),
    rows_skipped: z
      .array(z.object({ sheet: z.string(), reason: z.string() }))
      .describe("Currency rows of read sheets that could not be used, and why"),
    home_page_kept: z
      .array(z.object({ date: isoDateSchema, currency: z.string(), home_page: z.string(), workbook: z.string() }))
      .describe(
        "Without `overwrite=true`: where the home page had stored another value, kept (the workbook's was not stored)",
      ),
    workbook_won: z
      .array(z.object({ date: isoDateSchema, currency: z.string(), home_page: z.string(), workbook: z.string() }))
      .describe("With `overwrite=true`: where the home page had stored another value, replaced by the workbook's"),
  })
  .meta({ id: "ImportSummary" });

const instant = z.string().describe("An instant, ISO 8601 in UTC").meta({ example: "2026-11-24T19:00:02.123Z" });

export const rateStatusSchema = z
  .object({
    source: z
      .object({ name: z.string(), url: z.string() })
      .describe("Where the rates come from: the central bank allows reproducing them with the source cited")
      .meta({ example: { name: "Banco Central de Venezuela", url: "https://www.bcv.org.ve/" } }),
    newest_value_date: isoDateSchema.nullable().describe("The newest value date with a stored dollar rate"),
    expected_value_date: isoDateSchema.describe(
      "The value date the bank should have published by now: it publishes each business day, by RATES_STALE_AFTER " +
        "in RATES_TIMEZONE, the rate of the next business day",
    ),
    stale: z.boolean().describe("Whether newest_value_date is older than expected_value_date (or nothing is stored)"),
    business_days_missed: z
      .number()
      .int()
      .nullable()
      .describe("Business days after newest_value_date up to expected_value_date; null with no rate stored"),
    stale_after: z
      .string()
      .describe("The publication time after which a business day's rate is due, and its time zone")
      .meta({ example: "17:00 America/Caracas" }),
    last_success: z
      .object({
        at: instant.describe("When the fetch ended"),
        trigger: z.enum(["schedule", "request"]),
        created: z.boolean().describe("true when the value date was new, false when a stored one was refreshed"),
        value_date: isoDateSchema,
        dollar: z.number().positive(),
        currencies: z.array(z.string()).describe("The currencies the page showed and were read"),
      })
      .nullable()
      .describe("The newest fetch of the bank's page that stored rates; null when none did (yet)"),
    last_failure: z
      .object({
        at: instant.describe("When the fetch gave up"),
        trigger: z.enum(["schedule", "request"]),
        kind: z
          .string()
          .describe("unreachable, timeout, bad-status, unparseable, implausible, redirected, or internal")
          .meta({ example: "timeout" }),
        detail: z.string(),
      })
      .nullable()
      .describe("The newest fetch that failed (recorded for 90 days); null when none did"),
    next_fetch_at: instant
      .nullable()
      .describe(
        "When the schedule fetches next (whichever instance of a cluster runs it); null when it is off (RATES_FETCH_INTERVAL_SECONDS=0)",
      ),
  })
  .meta({ id: "RateStatus" });

export type RateStatusView = z.infer<typeof rateStatusSchema>;
export type RateHistoryQuery = z.infer<typeof rateHistoryQuerySchema>;
export type RateReadQuery = z.infer<typeof rateCurrenciesQuerySchema>;
export type LatestRateQuery = z.infer<typeof latestRateQuerySchema>;
export type RateByDateQuery = z.infer<typeof rateByDateQuerySchema>;
export type CurrencyChangeView = z.infer<typeof currencyChangeSchema>;
export type ConvertQuery = z.infer<typeof convertQuerySchema>;
export type RateCardQuery = z.infer<typeof rateCardQuerySchema>;
export type ConversionView = z.infer<typeof conversionSchema>;
export type CurrencyView = z.infer<typeof currencySchema>;
export type CurrencyListView = z.infer<typeof currencyListSchema>;
export type ImportSummary = z.infer<typeof importSummarySchema>;
export type RateView = z.infer<typeof rateSchema>;
export type StoredRateView = z.infer<typeof storedRateSchema>;
export type RateHistoryView = z.infer<typeof rateHistorySchema>;
