import { z } from "zod";

/** The longest range GET /rates/history serves: days from start_date to end_date (about ten years). */
export const MAX_HISTORY_SPAN_DAYS = 3660;
/** How far back GET /rates/history reaches when start_date is not given. */
export const DEFAULT_HISTORY_SPAN_DAYS = 30;

// z.iso.date() checks the calendar too (2026-02-30, 2026-02-29, 2026-13-01 fail), not only the shape.
export const isoDateSchema = z.iso
  .date({ error: "must be a calendar date written YYYY-MM-DD, such as 2026-11-23" })
  .describe("A calendar date, YYYY-MM-DD");

export const rateDateParamsSchema = z
  .object({ date: isoDateSchema.describe("The value date of the rate, YYYY-MM-DD") })
  .meta({ id: "RateDateParams" });

export const rateHistoryQuerySchema = z
  .object({
    start_date: isoDateSchema
      .optional()
      .describe(`First date of the range; default end_date - ${DEFAULT_HISTORY_SPAN_DAYS} days`),
    end_date: isoDateSchema
      .optional()
      .describe("Last date of the range; default today in RATES_TIMEZONE"),
  })
  .meta({ id: "RateHistoryQuery" });

export const rateSchema = z
  .object({
    dollar: z.number().positive().describe("Bolivares per US dollar, every decimal the central bank published"),
    date: isoDateSchema.describe("The value date (Fecha Valor), YYYY-MM-DD"),
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

export type RateHistoryQuery = z.infer<typeof rateHistoryQuerySchema>;
export type RateView = z.infer<typeof rateSchema>;
export type StoredRateView = z.infer<typeof storedRateSchema>;
export type RateHistoryView = z.infer<typeof rateHistorySchema>;
