import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import * as cheerio from "cheerio";

/**
 * A stand-in for the central bank's web site: serves the fixture page of www.bcv.org.ve, or a broken
 * variant of it, on a loopback port. Integration tests drive it in-process; the e2e suite and developers on
 * an offline machine run it with `npm run bcv:serve` and drive it with `PUT /__control`.
 */

/** A copy of www.bcv.org.ve's home page, kept in the repository so a fresh clone needs nothing beside it. */
export const FIXTURE_PAGE = path.resolve(import.meta.dirname, "..", "fixtures", "bcv-home.sample.html");

export const BCV_SCENARIOS = [
  "ok",
  "no-dolar",
  "garbage-value",
  "no-date",
  "slow",
  "error-500",
  // The #euro block missing and the #yuan value unreadable; the other currencies as in the fixture.
  "partial-currencies",
  // The page answers 302 to the same page on another host name of this server (localhost for 127.0.0.1).
  "redirect-other-host",
  // The page answers 302 to another path of this server, which serves the page.
  "redirect-same-host",
] as const;
export type BcvScenario = (typeof BCV_SCENARIOS)[number];

/**
 * A rate to publish instead of the fixture's: the value as the page writes it ("240,12345678"). Without one,
 * the page shows the fixture's values under a recent value date, as the real page always does (the app
 * refuses one far from today): today's in Caracas, or with `valueDates: "bank"` the one the bank would show
 * now (bankValueDate).
 */
export interface BcvRate {
  dollar: string;
  date: string;
}

export interface BcvServerOptions {
  port?: number;
  host?: string;
  scenario?: BcvScenario;
  /** How long the `slow` scenario waits before answering: longer than the app's timeout. */
  slowMs?: number;
  /**
   * The value date shown without a published rate: "today" in Caracas, which tests pin their dates to, or
   * "bank", the date the bank's page shows at this hour (what `npm run bcv:serve` serves, so an app fetching
   * from it is not told its rate is stale right after a good fetch).
   */
  valueDates?: "today" | "bank";
  fixturePath?: string;
}

export interface BcvServer {
  /** The page's URL, for BCV_URL (ends with "/"). */
  url: string;
  setScenario(scenario: BcvScenario): void;
  /** Publishes this rate instead of the fixture's; undefined goes back to the fixture's. */
  setRate(rate: BcvRate | undefined): void;
  /** How many times the page was requested (control requests not counted). */
  readonly requests: number;
  /** The User-Agent of the last page request. */
  readonly lastUserAgent: string | undefined;
  stop(): Promise<void>;
}

const CONTROL_PATH = "/__control";
// Longer than the app's default BCV_TIMEOUT_MS (10 s).
const DEFAULT_SLOW_MS = 15_000;

export async function startBcvServer(options: BcvServerOptions = {}): Promise<BcvServer> {
  const fixture = fs.readFileSync(options.fixturePath ?? FIXTURE_PAGE, "utf8");
  const slowMs = options.slowMs ?? DEFAULT_SLOW_MS;
  const state: { scenario: BcvScenario; dollar?: string; date?: string; requests: number; bankDates: boolean } = {
    scenario: options.scenario ?? "ok",
    requests: 0,
    bankDates: options.valueDates === "bank",
  };
  let lastUserAgent: string | undefined;

  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
    if (pathname === CONTROL_PATH) return void handleControl(request, response, state);
    state.requests++;
    lastUserAgent = request.headers["user-agent"];
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "Content-Type": "text/html; charset=utf-8", ...headers });
      response.end(body);
    };
    const redirect = (location: string) => send(302, `<a href="${location}">moved</a>`, { Location: location });
    switch (state.scenario) {
      case "redirect-other-host": {
        const { port } = server.address() as AddressInfo;
        return redirect(`http://localhost:${port}/`);
      }
      case "redirect-same-host":
        return pathname === "/inicio" ? send(200, renderPage(fixture, state)) : redirect("/inicio");
      case "error-500":
        return send(500, "<h1>Internal Server Error</h1>");
      case "slow": {
        const page = renderPage(fixture, state);
        const timer = setTimeout(() => send(200, page), slowMs);
        response.once("close", () => clearTimeout(timer));
        return;
      }
      default:
        return send(200, renderPage(fixture, state));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;

  return {
    url: `http://${address}:${port}/`,
    setScenario(scenario) {
      state.scenario = scenario;
    },
    setRate(rate) {
      state.dollar = rate?.dollar;
      state.date = rate?.date;
    },
    get requests() {
      return state.requests;
    },
    get lastUserAgent() {
      return lastUserAgent;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        // Slow answers are still pending: drop their connections instead of waiting for them.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The fixture page with the published rate and the scenario's damage applied. */
function renderPage(
  fixture: string,
  state: { scenario: BcvScenario; dollar?: string; date?: string; bankDates: boolean },
): string {
  const $ = cheerio.load(fixture);
  if (state.dollar !== undefined) $("#dolar strong").text(` ${state.dollar} `);
  const date = state.date ?? (state.bankDates ? bankValueDate() : todayInCaracas());
  $(".date-display-single").attr("content", `${date}T00:00:00-04:00`).text(date);
  if (state.scenario === "partial-currencies") {
    $("#euro").remove();
    $("#yuan strong").text(" N/D ");
  }
  if (state.scenario === "no-dolar") $("#dolar").remove();
  if (state.scenario === "garbage-value") $("#dolar strong").text(" N/D ");
  if (state.scenario === "no-date") $(".date-display-single").remove();
  return $.html();
}

/** Today's date in Caracas (UTC-4 all year), computed without the app's helpers. */
function todayInCaracas(): string {
  return new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
}

/** The hour (Caracas) from which the bank's page shows the next business day's rate. */
const BANK_PUBLISHES_AT_HOUR = 17;

/**
 * The value date the bank's page shows at `now`: on a business day it publishes, late in the afternoon, the
 * rate of the next business day; so until 17:00 it shows today's, from 17:00 the next business day's, and over
 * a weekend Monday's. Holidays are not known here (the bank skips them too). Without the app's helpers.
 */
export function bankValueDate(now = new Date()): string {
  const caracas = new Date(now.getTime() - 4 * 3_600_000);
  const day = new Date(Date.UTC(caracas.getUTCFullYear(), caracas.getUTCMonth(), caracas.getUTCDate()));
  const isBusinessDay = (date: Date) => date.getUTCDay() !== 0 && date.getUTCDay() !== 6;
  if (isBusinessDay(day) && caracas.getUTCHours() < BANK_PUBLISHES_AT_HOUR) return day.toISOString().slice(0, 10);
  do day.setUTCDate(day.getUTCDate() + 1);
  while (!isBusinessDay(day));
  return day.toISOString().slice(0, 10);
}

/**
 * GET /__control answers the state; PUT /__control with JSON `{scenario?, dollar?, date?}` changes it
 * (`dollar`/`date` null goes back to the fixture's) and answers the new state.
 */
function handleControl(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  state: { scenario: BcvScenario; dollar?: string; date?: string; requests: number },
) {
  const answer = (status: number, body: unknown) => {
    response.writeHead(status, { "Content-Type": "application/json" });
    response.end(JSON.stringify(body));
  };
  const current = () => ({
    scenario: state.scenario,
    dollar: state.dollar ?? null,
    date: state.date ?? null,
    requests: state.requests,
  });
  if (request.method === "GET") return answer(200, current());
  if (request.method !== "PUT") return answer(405, { error: "use GET or PUT" });
  let text = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => (text += chunk));
  request.on("end", () => {
    let body: { scenario?: unknown; dollar?: unknown; date?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      return answer(400, { error: "the body must be JSON: {scenario?, dollar?, date?}" });
    }
    if (typeof body !== "object" || body === null) return answer(400, { error: "the body must be a JSON object" });
    if (body.scenario !== undefined && !BCV_SCENARIOS.includes(body.scenario as BcvScenario)) {
      return answer(400, { error: `scenario must be one of ${BCV_SCENARIOS.join(", ")}` });
    }
    for (const field of ["dollar", "date"] as const) {
      const value = body[field];
      if (value !== undefined && value !== null && typeof value !== "string") {
        return answer(400, { error: `${field} must be a string or null` });
      }
    }
    if (body.scenario !== undefined) state.scenario = body.scenario as BcvScenario;
    if (body.dollar !== undefined) state.dollar = (body.dollar as string | null) ?? undefined;
    if (body.date !== undefined) state.date = (body.date as string | null) ?? undefined;
    answer(200, current());
  });
}
