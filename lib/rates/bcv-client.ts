import pRetry from "p-retry";
import { getEnv } from "../server/env";
import { processWide } from "../server/process-wide";
import { DOLLAR, HOME_PAGE_BLOCKS } from "./currencies";
import { todayIn } from "./dates";
import { implausibleHomePageDate, implausibleRateReason } from "./plausibility";
import { isoDateSchema } from "./schemas";

/**
 * Reads the official reference rates from the Banco Central de Venezuela's home page (BCV_URL): the dollar,
 * which is required, and the other currencies the page shows, each of which may be missing.
 *
 * Transient failures (network errors, timeouts, 5xx answers) are retried with exponential backoff; a page
 * that downloads but cannot be read is not, since reading it again gives the same page. Node's fetch
 * verifies TLS and this module never turns that off: when the real site's chain is incomplete, the missing
 * certificate goes in NODE_EXTRA_CA_CERTS. Redirects are followed only within the configured host, and
 * concurrent callers share one fetch in flight. What the page says is checked before anyone stores it:
 * plausible decimal values and a value date within days of today.
 */

export const USER_AGENT = "bcv-runbot/0.2 (+exchange-rate service; reads the official reference rate)";

export type RateSourceFailure = "unreachable" | "timeout" | "bad-status" | "unparseable" | "implausible" | "redirected";

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
  /** Every currency read, by ISO code, the dollar included: bolivares per unit as decimal text. */
  rates: Record<string, string>;
  /** The currency blocks that were missing or unreadable, and why; the others are kept. */
  skipped: SkippedCurrency[];
}

export interface SkippedCurrency {
  currency: string;
  reason: string;
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

// One fetch in flight per address, shared by every caller that asks while it runs (20 simultaneous POST
// /rates/ must not become 20 fetches with their retries). On globalThis: Next.js may load this module once
// per route bundle, and the schedule runs in yet another.
const globalForFetches = processWide<{ bcvFetchesInFlight?: Map<string, Promise<PublishedRate>> }>(
  "bcvFetchesInFlight",
  () => ({}),
);
const inFlight = (globalForFetches.bcvFetchesInFlight ??= new Map());

/**
 * Downloads and reads the page; throws RateSourceError saying what went wrong after the last attempt. A call
 * made while another for the same address is in flight gets that one's result.
 */
export function fetchOfficialRate(config: BcvClientConfig = bcvClientConfigFromEnv()): Promise<PublishedRate> {
  const running = inFlight.get(config.url);
  if (running) return running;
  const fetching = fetchOnce(config).finally(() => inFlight.delete(config.url));
  inFlight.set(config.url, fetching);
  return fetching;
}

async function fetchOnce(config: BcvClientConfig): Promise<PublishedRate> {
  let attempts = 0;
  try {
    const page = await pRetry(
      async () => {
        attempts++;
        return await parseBcvRates(await downloadPage(config.url, config.timeoutMs), config.url);
      },
      {
        retries: config.retries,
        minTimeout: config.retryDelayMs,
        factor: 2,
        randomize: true,
        // No line per attempt: the final error names the attempts, and a failed scheduled fetch is one line.
        shouldRetry: ({ error }) => error instanceof RateSourceError && error.transient,
      },
    );
    const today = todayIn(config.timeZone);
    const date = page.valueDate ?? today;
    const implausible = implausibleHomePageDate(date, today);
    if (implausible) {
      throw new RateSourceError(
        "implausible",
        `the page at ${config.url} gives the value date ${date}, which ${implausible}`,
        false,
      );
    }
    return { dollar: page.dollar, date, rates: page.rates, skipped: page.skipped };
  } catch (error) {
    if (!(error instanceof RateSourceError)) throw error;
    const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts`;
    throw new RateSourceError(error.kind, `${error.message} (${tries})`, error.transient);
  }
}

/** Redirects followed within the configured host before giving up. */
const MAX_REDIRECTS = 5;

async function downloadPage(url: string, timeoutMs: number): Promise<string> {
  // One signal for the whole exchange: it also aborts a body that trickles in after quick headers.
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let address = url;
    let response: Response;
    for (let redirects = 0; ; redirects++) {
      // Followed by hand: fetch would follow a redirect to any host, and the rate must come from the bank's.
      response = await fetch(address, {
        headers: { "User-Agent": USER_AGENT, Accept: "text/html,application/xhtml+xml" },
        redirect: "manual",
        signal,
      });
      const location = response.headers.get("location");
      if (response.status < 300 || response.status > 399 || location === null) break;
      await response.body?.cancel();
      if (redirects === MAX_REDIRECTS) {
        throw new RateSourceError("redirected", `${url} redirected more than ${MAX_REDIRECTS} times`, false);
      }
      address = sameHostRedirect(url, address, location);
    }
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

/**
 * The address a redirect points to, when it stays on the configured host (the same host name, over the same
 * scheme or upgraded to https); a RateSourceError otherwise.
 */
function sameHostRedirect(configured: string, current: string, location: string): string {
  let target: URL;
  try {
    target = new URL(location, current);
  } catch {
    throw new RateSourceError(
      "redirected",
      `${current} redirected to "${location.slice(0, 200)}", which is not an address`,
      false,
    );
  }
  const origin = new URL(configured);
  const sameScheme =
    target.protocol === origin.protocol || (origin.protocol === "http:" && target.protocol === "https:");
  if (target.hostname !== origin.hostname || !sameScheme) {
    throw new RateSourceError(
      "redirected",
      `${current} redirected to ${target.origin}, another host; only redirects within ${origin.host} are followed ` +
        "(set BCV_URL to the address that serves the page)",
      false,
    );
  }
  return target.href;
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

/** The whole page: every currency read (the dollar included) and the blocks that could not be. */
export interface BcvRatesPage extends BcvPage {
  rates: Record<string, string>;
  skipped: SkippedCurrency[];
}

const VALUE_DATE_SELECTOR = ".date-display-single[content]";

/** Reads the dollar rate and its value date from the central bank's home page HTML. */
export async function parseBcvPage(html: string, url = "the central bank's page"): Promise<BcvPage> {
  const { dollar, valueDate } = await parseBcvRates(html, url);
  return { dollar, valueDate };
}

/**
 * Reads every currency block of the home page under the page's value date. The dollar is required (no dollar,
 * no rates); another currency whose block is missing or unreadable is skipped with the reason.
 */
export async function parseBcvRates(html: string, url = "the central bank's page"): Promise<BcvRatesPage> {
  // Loaded on the first page read, not with this module: cheerio's entry brings undici and parse5, over half of
  // the code of every route that can fetch the page (the rate reads among them) and of the background jobs,
  // loaded and kept by every server from its start, for a fetch that comes a few times a day.
  const { load } = await import("cheerio");
  const $ = load(html);
  const unparseable = (why: string) => new RateSourceError("unparseable", `the page at ${url} ${why}`, false);

  const rates: Record<string, string> = {};
  const skipped: SkippedCurrency[] = [];
  for (const block of HOME_PAGE_BLOCKS) {
    const element = $(`#${block.id}`);
    const read = readBlockValue(
      element.length === 0 ? undefined : element.find("strong").first().text().trim(),
      block.id,
    );
    if ("value" in read) {
      rates[block.currency] = read.value;
    } else if (block.currency === DOLLAR) {
      throw read.implausible
        ? new RateSourceError("implausible", `the page at ${url} ${read.reason}`, false)
        : unparseable(read.reason);
    } else {
      skipped.push({ currency: block.currency, reason: read.reason });
    }
  }

  // The real page carries other dated items; the value date is the one nearest to the rates block: the
  // first inside the closest ancestor of #dolar that holds any.
  const dateElement = $("#dolar")
    .parents()
    .filter((_, ancestor) => $(ancestor).find(VALUE_DATE_SELECTOR).length > 0)
    .first()
    .find(VALUE_DATE_SELECTOR)
    .first();
  const dollar = rates[DOLLAR];
  if (dateElement.length === 0) return { dollar, valueDate: undefined, rates, skipped };
  const content = dateElement.attr("content")!.trim();
  const valueDate = calendarDateOf(content);
  if (valueDate === undefined) throw unparseable(`gives the value date "${content}", which is not an ISO date`);
  return { dollar, valueDate, rates, skipped };
}

type BlockRead = { value: string } | { reason: string; implausible: boolean };

function readBlockValue(text: string | undefined, id: string): BlockRead {
  const what = id === "dolar" ? "the dollar rate" : `the #${id} rate`;
  if (text === undefined) {
    return {
      reason: id === "dolar" ? "has no #dolar block with the dollar rate" : `has no #${id} block`,
      implausible: false,
    };
  }
  if (text === "") return { reason: `has no value in #${id} strong`, implausible: false };
  const shown = text.length > 40 ? `${text.slice(0, 40)}... (${text.length} characters)` : text;
  const value = parseCommaDecimal(text);
  if (value === undefined) {
    return { reason: `shows "${shown}" as ${what}, which is not a positive decimal number`, implausible: false };
  }
  const implausible = implausibleRateReason(value);
  if (implausible) return { reason: `shows "${shown}" as ${what}, which ${implausible}`, implausible: true };
  return { value };
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
