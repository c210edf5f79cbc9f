import * as cheerio from "cheerio";
import pRetry from "p-retry";
import { getEnv } from "../env";
import { todayIn } from "./dates";
import { isoDateSchema } from "./schemas";

/**
 * Reads the official US dollar rate from the Banco Central de Venezuela's home page (BCV_URL).
 *
 * Transient failures (network errors, timeouts, 5xx answers) are retried with exponential backoff; a page
 * that downloads but cannot be read is not, since reading it again gives the same page. Node's fetch
 * verifies TLS and this module never turns that off: when the real site's chain is incomplete, the missing
 * certificate goes in NODE_EXTRA_CA_CERTS.
 */

export const USER_AGENT = "bcv-runbot/0.2 (+exchange-rate service; reads the official reference rate)";

export type RateSourceFailure = "unreachable" | "timeout" | "bad-status" | "unparseable";

/** Why the rate could not be read; `message` is a sentence a person can act on. */
export class RateSourceError extends Error {
  constructor(
    readonly kind: RateSourceFailure,
    message: string,
    /** Whether asking again may help. */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = "RateSourceError";
  }
}

export interface PublishedRate {
  /** Bolivares per dollar as a decimal string with a dot, every digit the page shows ("236.45870000"). */
  dollar: string;
  /** The value date (Fecha Valor), YYYY-MM-DD; today in RATES_TIMEZONE when the page gives none. */
  date: string;
}

export interface BcvClientConfig {
  url: string;
  timeoutMs: number;
  retries: number;
  retryDelayMs: number;
  timeZone: string;
}

export function bcvClientConfigFromEnv(): BcvClientConfig {
  const env = getEnv();
  return {
    url: env.BCV_URL,
    timeoutMs: env.BCV_TIMEOUT_MS,
    retries: env.BCV_RETRIES,
    retryDelayMs: env.BCV_RETRY_DELAY_MS,
    timeZone: env.RATES_TIMEZONE,
  };
}

/** Downloads and reads the page; throws RateSourceError saying what went wrong after the last attempt. */
export async function fetchOfficialRate(config: BcvClientConfig = bcvClientConfigFromEnv()): Promise<PublishedRate> {
  let attempts = 0;
  try {
    const page = await pRetry(
      async () => {
        attempts++;
        return parseBcvPage(await downloadPage(config.url, config.timeoutMs), config.url);
      },
      {
        retries: config.retries,
        minTimeout: config.retryDelayMs,
        factor: 2,
        randomize: true,
        shouldRetry: ({ error }) => error instanceof RateSourceError && error.transient,
        onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
          console.warn(`Central bank rate, attempt ${attemptNumber} failed (${retriesLeft} retries left): ${error.message}`);
        },
      },
    );
    return { dollar: page.dollar, date: page.valueDate ?? todayIn(config.timeZone) };
  } catch (error) {
    if (!(error instanceof RateSourceError)) throw error;
    const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts`;
    throw new RateSourceError(error.kind, `${error.message} (${tries})`, error.transient);
  }
}

async function downloadPage(url: string, timeoutMs: number): Promise<string> {
  // One signal for the whole exchange: it also aborts a body that trickles in after quick headers.
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, {
      headers: { "User-Agent": USER_AGENT, Accept: "text/html,application/xhtml+xml" },
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel();
      const status = `${response.status} ${response.statusText}`.trim();
      // 5xx, 408 and 429 are the site's passing trouble; any other status will not change by asking again.
      const transient = response.status >= 500 || response.status === 408 || response.status === 429;
      throw new RateSourceError("bad-status", `${url} answered HTTP ${status}`, transient);
    }
    return await response.text();
  } catch (error) {
    if (error instanceof RateSourceError) throw error;
    throw describeFetchFailure(error, url, timeoutMs);
  }
}

// Node's TLS verification failures: not transient, and the fix is on this side (NODE_EXTRA_CA_CERTS).
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

function describeFetchFailure(error: unknown, url: string, timeoutMs: number): RateSourceError {
  if (error instanceof Error && error.name === "TimeoutError") {
    return new RateSourceError("timeout", `${url} did not answer within ${timeoutMs} ms`, true);
  }
  // undici reports network failures as TypeError("fetch failed") with the system error as its cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? "";
  const reason = cause?.message ?? (error as Error).message ?? String(error);
  if (CERTIFICATE_ERROR.test(code)) {
    return new RateSourceError(
      "unreachable",
      `the TLS certificate of ${url} could not be verified (${code}); if the site's chain is incomplete, ` +
        "add the missing CA certificate with NODE_EXTRA_CA_CERTS",
      false,
    );
  }
  return new RateSourceError("unreachable", `could not reach ${url}: ${reason}`, true);
}

/** What the page shows: the dollar value and, where present, the value date. */
export interface BcvPage {
  dollar: string;
  valueDate: string | undefined;
}

const VALUE_DATE_SELECTOR = ".date-display-single[content]";

/** Reads the dollar rate and its value date from the central bank's home page HTML. */
export function parseBcvPage(html: string, url = "the central bank's page"): BcvPage {
  const $ = cheerio.load(html);
  const unparseable = (why: string) => new RateSourceError("unparseable", `the page at ${url} ${why}`, false);

  const dollarBlock = $("#dolar");
  if (dollarBlock.length === 0) throw unparseable("has no #dolar block with the dollar rate");
  const valueText = dollarBlock.find("strong").first().text().trim();
  if (valueText === "") throw unparseable("has no value in #dolar strong");
  const dollar = parseCommaDecimal(valueText);
  if (dollar === undefined) {
    throw unparseable(`shows "${valueText}" as the dollar rate, which is not a positive decimal number`);
  }

  // The real page carries other dated items; the value date is the one nearest to the rates block: the
  // first inside the closest ancestor of #dolar that holds any.
  const dateElement = dollarBlock
    .parents()
    .filter((_, ancestor) => $(ancestor).find(VALUE_DATE_SELECTOR).length > 0)
    .first()
    .find(VALUE_DATE_SELECTOR)
    .first();
  if (dateElement.length === 0) return { dollar, valueDate: undefined };
  const content = dateElement.attr("content")!.trim();
  const valueDate = calendarDateOf(content);
  if (valueDate === undefined) throw unparseable(`gives the value date "${content}", which is not an ISO date`);
  return { dollar, valueDate };
}

/**
 * "236,45870000" -> "236.45870000"; "1.234,5" -> "1234.5" (dots group thousands in Venezuelan notation).
 * Every decimal is kept, as text, so nothing is rounded. Undefined for anything else, or for zero.
 */
export function parseCommaDecimal(text: string): string | undefined {
  const match = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  const integerPart = match[1].replaceAll(".", "");
  const decimal = match[2] === undefined ? integerPart : `${integerPart}.${match[2]}`;
  return /[1-9]/.test(decimal) ? decimal : undefined;
}

/**
 * The calendar date of an ISO timestamp as written, ignoring its offset: the page's Fecha Valor
 * "2026-11-23T00:00:00-04:00" is 2026-11-23. Converting the instant to another zone could move it to another
 * day (in UTC-5 it is still the 22nd).
 */
export function calendarDateOf(timestamp: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/.exec(timestamp);
  if (!match || !isoDateSchema.safeParse(match[1]).success) return undefined;
  return match[1];
}
