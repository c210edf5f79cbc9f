import { createTranslator } from "next-intl";
import { describe, expect, it } from "vitest";
import { chartPoints, markedPoints } from "@/components/rates/chart-points";
import { classifyFetchFailure, wordFetchFailure } from "@/components/rates/fetch-failure";
import { earlierParts, isGap } from "@/components/rates/gaps";
import { checkCustomRange, selectionFromQuery, selectionToQuery } from "@/components/rates/rate-range";
import { wordRangeProblem } from "@/components/rates/rate-range-picker";
import { dayToMs, formatTick, tickStyleFor, timeTicks } from "@/components/rates/time-axis";
import { formatDay, formatFixed, RATE_DISPLAY_DECIMALS } from "@/components/ui/format";
import type { Locale } from "@/i18n/locale";
import { ratesCsvUrl, ratesHistoryKey, valueIn } from "@/lib/swr/rate-keys";

const labels = (start: string, end: string, locale: Locale = "en") => {
  const [s, e] = [dayToMs(start), dayToMs(end)];
  return timeTicks(s, e).map((t) => formatTick(t, tickStyleFor(s, e), locale));
};

type Translate = (key: string, values?: Record<string, string | number>) => string;

/** The dashboard's messages of one language and namespace, as the components word them. */
async function translator(locale: Locale, namespace: string): Promise<Translate> {
  const messages = (await import(`@/messages/${locale}.json`)).default;
  return createTranslator({ locale, messages, namespace: namespace as never }) as unknown as Translate;
}

describe("the rate chart's time axis", () => {
  it("places dates by time, so a four-day gap is four times a one-day gap", () => {
    expect(dayToMs("2026-11-20") - dayToMs("2026-11-16")).toBe(4 * (dayToMs("2026-11-17") - dayToMs("2026-11-16")));
  });

  it("labels days as `Nov 23` on spans under a year, months as `Nov 2026` on longer ones, never a two-digit year", () => {
    expect(labels("2026-10-24", "2026-11-23")).toEqual(["Oct 24", "Oct 31", "Nov 7", "Nov 14", "Nov 21"]);
    expect(labels("2025-12-20", "2026-01-10")).toEqual(["Dec 20", "Dec 27", "Jan 3", "Jan 10"]);
    expect(labels("2025-11-23", "2026-11-23")).toEqual([
      "Jan 2026",
      "Mar 2026",
      "May 2026",
      "Jul 2026",
      "Sep 2026",
      "Nov 2026",
    ]);
    expect(labels("2016-11-27", "2026-11-23")).toEqual(["Jan 2017", "Jan 2019", "Jan 2021", "Jan 2023", "Jan 2025"]);
    for (const label of [...labels("2025-06-01", "2026-11-23"), ...labels("2026-01-01", "2026-03-01")]) {
      expect(label).not.toMatch(/, \d\d$/);
    }
  });

  it("labels them in Spanish as `23 nov` and `nov 2026`", () => {
    expect(labels("2026-10-24", "2026-11-23", "es")).toEqual(["24 oct", "31 oct", "7 nov", "14 nov", "21 nov"]);
    expect(labels("2016-11-27", "2026-11-23", "es")[0]).toBe("ene 2017");
  });

  it("keeps every tick inside the domain and at most seven of them", () => {
    for (const [start, end] of [
      ["2026-08-25", "2026-11-23"],
      ["2020-02-29", "2026-11-23"],
      ["2026-11-22", "2026-11-23"],
    ]) {
      const ticks = timeTicks(dayToMs(start), dayToMs(end));
      expect(ticks.length).toBeGreaterThan(0);
      expect(ticks.length).toBeLessThanOrEqual(7);
      for (const tick of ticks) expect(tick >= dayToMs(start) && tick <= dayToMs(end)).toBe(true);
    }
  });
});

describe("the custom range check", () => {
  const today = "2026-11-23";
  it("accepts a range that the API serves", () => {
    expect(checkCustomRange("2026-01-01", today, today)).toEqual([]);
  });
  it("names the field: start after end, future dates, too long a span, a missing date", async () => {
    const en = await translator("en", "range");
    const words = (start: string, end: string) =>
      checkCustomRange(start, end, today).map((problem) => ({
        field: problem.field,
        message: wordRangeProblem(problem, en, { day: (date) => formatDay(date, "en") }),
      }));
    expect(words("2026-11-20", "2026-11-10")).toEqual([
      { field: "from", message: "From: Nov 20, 2026 is after To (Nov 10, 2026)." },
    ]);
    expect(words("2026-11-01", "2026-12-01")).toEqual([
      { field: "to", message: expect.stringMatching(/^To: Dec 1, 2026 is in the future/) },
    ]);
    expect(words("2010-01-01", today)).toEqual([
      { field: "from", message: expect.stringMatching(/^From: the range spans \d+ days; at most 3660/) },
    ]);
    expect(words("", today)).toEqual([{ field: "from", message: "From: choose a date." }]);
    expect(checkCustomRange("2026-02-30", today, today)[0].field).toBe("from");
  });

  it("says the same in Spanish, with Spanish dates", async () => {
    const es = await translator("es", "range");
    const [problem] = checkCustomRange("2026-11-20", "2026-11-10", today);
    expect(wordRangeProblem(problem, es, { day: (date) => formatDay(date, "es") })).toBe(
      "Desde: el 20 nov 2026 es posterior a Hasta (10 nov 2026).",
    );
  });
});

describe("the range in the query string", () => {
  it("round-trips presets and custom ranges, and leaves the default out", () => {
    expect(selectionToQuery({ preset: "30d" })).toEqual({ range: null, from: null, to: null });
    expect(selectionToQuery({ preset: "1y" })).toEqual({ range: "1y", from: null, to: null });
    expect(selectionFromQuery(new URLSearchParams("range=1y&build=x"))).toEqual({ preset: "1y" });
    expect(selectionFromQuery(new URLSearchParams("from=2026-01-01&to=2026-02-01"))).toEqual({
      preset: "custom",
      start: "2026-01-01",
      end: "2026-02-01",
    });
    expect(selectionFromQuery(new URLSearchParams("range=bogus"))).toEqual({ preset: "30d" });
  });
});

describe("rate columns aligned on the decimal point", () => {
  it("gives every rate the decimals of the rule for people, so the points line up", () => {
    const values = [250.5, 240.12345678, 236];
    const shown = values.map((value) => formatFixed(value, RATE_DISPLAY_DECIMALS, "en"));
    expect(shown).toEqual(["250.5000", "240.1235", "236.0000"]);
    expect(new Set(shown.map((text) => text.length - text.indexOf("."))).size).toBe(1);
    expect(formatFixed(250.5 - 240.12345678, RATE_DISPLAY_DECIMALS, "en", true)).toBe("+10.3765");
    expect(values.map((value) => formatFixed(value, RATE_DISPLAY_DECIMALS, "es"))).toEqual([
      "250,5000",
      "240,1235",
      "236,0000",
    ]);
    expect(formatFixed(1234.5, 2, "es")).toBe("1.234,50");
  });
});

describe("a failed fetch in words for a person", () => {
  const describeIn = async (locale: Locale, status: number, detail: string) =>
    wordFetchFailure(classifyFetchFailure(status, detail), await translator(locale, "fetchFailure"));

  it("says the bank was slow, with the attempts the API counted", async () => {
    const detail =
      "Could not get the rate from the central bank: https://www.bcv.org.ve/ did not answer within 10000 ms (3 attempts). Nothing was stored.";
    const failure = await describeIn("en", 504, detail);
    expect(failure.attempts).toBe(3);
    expect(failure.text).toBe(
      "The central bank’s website did not answer in time after 3 attempts. Nothing was stored. Its site is often slow: try again in a few minutes.",
    );
    expect((await describeIn("es", 504, detail)).text).toBe(
      "El sitio web del Banco Central no respondió a tiempo después de 3 intentos. No se guardó nada. Su sitio suele ser lento: intente de nuevo en unos minutos.",
    );
  });
  it("tells an error page, an unreadable page and an expired session apart", async () => {
    expect(
      (
        await describeIn(
          "en",
          502,
          "… http://x/ answered HTTP 500 Internal Server Error (1 attempt). Nothing was stored.",
        )
      ).text,
    ).toMatch(/^The central bank’s website answered with an error \(HTTP 500\)\. Nothing was stored/);
    expect((await describeIn("en", 502, "… the page has no #dolar block (1 attempt).")).text).toMatch(
      /did not show a rate that could be read/,
    );
    expect((await describeIn("en", 401, "Sign in")).text).toBe(
      "Your session has ended. Sign in again to fetch the rate.",
    );
    expect((await describeIn("es", 401, "Sign in")).text).toBe(
      "Su sesión terminó. Inicie sesión de nuevo para consultar la tasa.",
    );
  });
});

describe("gaps in the history", () => {
  it("a long weekend is no gap; more than two weeks without a rate is", async () => {
    const en = await translator("en", "format");
    const es = await translator("es", "format");
    const earlier = (a: string, b: string, t = en) => {
      const parts = earlierParts(a, b);
      return parts && t("earlier", parts);
    };
    expect(isGap("2025-10-10", "2025-10-14")).toBe(false);
    expect(earlier("2025-10-10", "2025-10-14")).toBeUndefined();
    expect(isGap("2025-10-01", "2025-10-20")).toBe(true);
    expect(earlier("2025-10-01", "2025-10-22")).toBe("3 weeks earlier");
    expect(earlier("2025-10-14", "2026-11-20")).toBe("13 months earlier");
    expect(earlier("2025-10-14", "2026-11-10")).toBe("12 months earlier");
    expect(earlier("2023-01-05", "2026-11-20")).toBe("3 years earlier");
    expect(earlier("2025-10-14", "2026-11-20", es)).toBe("13 meses antes");
  });
});

describe("what the history panel asks the API for", () => {
  const range = { start_date: "2023-03-01", end_date: "2023-03-31" };

  it("reads the table's rows with include=change (the oldest row's previous rate lies before the range), the CSV without it (refused there)", () => {
    expect(ratesHistoryKey(range, "EUR")).toBe(
      "/rates/history?start_date=2023-03-01&end_date=2023-03-31&currencies=EUR&include=change",
    );
    expect(ratesCsvUrl(range, "EUR")).toBe(
      "/rates/history?start_date=2023-03-01&end_date=2023-03-31&currencies=EUR&format=csv",
    );
    expect(ratesCsvUrl(range)).not.toContain("include");
  });

  it("gives another currency's row that currency's own previous rate, not the dollar's", () => {
    const rate = {
      date: "2023-03-15",
      dollar: 40.25,
      rates: { EUR: 43.5 },
      previous: { date: "2023-03-14", dollar: 40 },
      change: 0.25,
      change_percent: 0.625,
      changes: { EUR: { previous_date: "2023-01-10", previous: 41, change: 2.5, change_percent: 6.0976 } },
    };
    expect(valueIn(rate, "EUR")).toEqual({
      date: "2023-03-15",
      dollar: 43.5,
      previous: { date: "2023-01-10", dollar: 41 },
      change: 2.5,
      change_percent: 6.0976,
    });
    expect(
      valueIn(
        { ...rate, changes: { EUR: { previous_date: null, previous: null, change: null, change_percent: null } } },
        "EUR",
      ),
    ).toMatchObject({ previous: null });
  });
});

describe("the chart's newest rate and lone rates", () => {
  const rate = (date: string, dollar: number) => ({ date, dollar });
  it("marks the newest point, and a point with a gap on each side that no line can reach", () => {
    // Newest first, as the API answers: a lone rate in June between gaps, then two in December.
    const points = chartPoints([
      rate("2025-12-02", 40),
      rate("2025-12-01", 39),
      rate("2025-06-02", 30),
      rate("2025-01-03", 20),
      rate("2025-01-02", 19),
    ]);
    expect(markedPoints(points).map((point) => point.date)).toEqual(["2025-06-02", "2025-12-02"]);
  });
  it("marks a history of a single rate once", () => {
    expect(markedPoints(chartPoints([rate("2025-12-02", 40)])).map((point) => point.date)).toEqual(["2025-12-02"]);
  });
});
