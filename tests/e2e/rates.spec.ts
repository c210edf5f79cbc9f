import fs from "node:fs";
import Database from "better-sqlite3";
import { shiftDays, todayInCaracas } from "@/components/rates/rate-range";
import { formatWeekday } from "@/components/ui/format";
import { apiUser } from "./api";
import { expect, registerThroughHeader, screenshotToLookAt, test } from "./fixtures";
import { importRates } from "./workbook-rates";

test.describe("Rates on the dashboard", { tag: "@rates" }, () => {
  test("fetch a rate, then a newer one: the latest rate, its change, the chart and the table follow", async ({
    page,
    bcv,
  }) => {
    const today = todayInCaracas();
    const earlier = shiftDays(today, -2);
    const later = shiftDays(today, -1);
    await page.goto("/");
    await registerThroughHeader(page);
    const card = page.getByRole("region", { name: "Latest rate" });
    const history = page.getByRole("region", { name: "Rate history" });

    await bcv.set({ dollar: "240,12345678", date: earlier });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    await expect(card.getByRole("status")).toContainText("Bs. 240.1235");
    await expect(page.getByTestId("latest-rate")).toHaveText("240.1235");
    const rows = history.getByRole("table").getByRole("row");
    await expect(rows.filter({ hasText: "240.1235" })).toHaveCount(1);
    const rowsBefore = await rows.count();

    await bcv.set({ dollar: "250,5", date: later });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    await expect(page.getByTestId("latest-rate")).toHaveText("250.5000");
    // 250.5 − 240.12345678 = +10.37654322, shown with a rate's 4 decimals; +4.32 %
    await expect(page.getByTestId("latest-rate-change")).toContainText("+10.3765");
    await expect(page.getByTestId("latest-rate-change")).toContainText("+4.32%");
    await expect(rows).toHaveCount(rowsBefore + 1);
    // Newest first: the first data row is the new rate.
    await expect(rows.nth(1)).toContainText("250.50");
    // The chart draws one dot per stored rate of the range.
    await expect(history.locator(".recharts-line-dots circle")).toHaveCount(rowsBefore);

    // Fetching the same date again refreshes it instead of adding a row.
    await bcv.set({ dollar: "251,25", date: later });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    await expect(card.getByRole("status")).toContainText("Refreshed");
    await expect(page.getByTestId("latest-rate")).toHaveText("251.2500");
    await expect(rows).toHaveCount(rowsBefore + 1);

    // Hovering the newest point shows its date and value.
    const lastDot = history.locator(".recharts-line-dots circle").last();
    // Without the hit check: once the pointer has been over the point, the chart draws its highlight (the active
    // dot) on top of it, which Playwright takes for something covering the dot, retrying until the test times out
    // (seen on a loaded machine). The tooltip's text is what is checked. Again until it shows: the refreshed rate
    // redraws the line, and a dot met mid-animation has no box to hover ("Element is not visible").
    await expect(async () => {
      await lastDot.hover({ force: true, timeout: 5_000 });
      await expect(history.locator(".recharts-tooltip-wrapper")).toContainText("251.25", { timeout: 2_000 });
    }).toPass({ timeout: 30_000 });

    // The CSV is the table's range, streamed by the server (format=csv), newest first, every decimal kept.
    const link = history.getByRole("link", { name: "Download CSV" });
    await expect(link).toHaveAttribute(
      "href",
      /^\/rates\/history\?start_date=\d{4}-\d{2}-\d{2}&end_date=\d{4}-\d{2}-\d{2}&format=csv$/,
    );
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    // Named after the currency and the first and last dates in the file.
    const csv = fs.readFileSync((await download.path())!, "utf8");
    const lines = csv.split("\r\n");
    expect(lines.pop()).toBe("");
    expect(lines[0]).toBe("date,USD");
    expect(lines[1]).toBe(`${later},251.25`);
    expect(lines).toContain(`${earlier},240.12345678`);
    expect(download.suggestedFilename()).toBe(`bcv-rates_USD_${lines.at(-1)!.split(",")[0]}_${later}.csv`);
  });

  test("range buttons and a custom range change what the chart and table show", async ({ page }) => {
    const today = todayInCaracas();
    const old = shiftDays(today, -200);
    await page.goto("/");
    await registerThroughHeader(page);
    // The home page gives only value dates near today: an old rate comes from a workbook, as in real life.
    await importRates(page.request, [{ date: old, dollar: "100,5" }]);
    await page.reload();

    const history = page.getByRole("region", { name: "Rate history" });
    const oldRow = history.getByRole("row").filter({ hasText: "100.50" });
    await expect(oldRow).toHaveCount(0);
    await history.getByRole("button", { name: "1 year" }).click();
    await expect(history.getByRole("button", { name: "1 year" })).toHaveAttribute("aria-pressed", "true");
    await expect(oldRow).toHaveCount(1);
    // "All" is the longest range the API serves: 3660 days ending today.
    const allRange = page.waitForResponse(
      (response) => response.url().includes(`start_date=${shiftDays(today, -3660)}&end_date=${today}`) && response.ok(),
    );
    await history.getByRole("button", { name: "All" }).click();
    await allRange;
    await expect(oldRow).toHaveCount(1);

    await history.getByRole("button", { name: "Custom" }).click();
    await history.getByLabel("From", { exact: true }).fill(shiftDays(old, -1));
    await history.getByLabel("To", { exact: true }).fill(shiftDays(old, 1));
    await history.getByRole("button", { name: "Apply" }).click();
    await expect(history.getByRole("table").getByRole("row")).toHaveCount(2);
    await expect(oldRow).toHaveCount(1);
    // The range is in the address: a reload (or the link, shared) shows the same range.
    await expect(page).toHaveURL(new RegExp(`from=${shiftDays(old, -1)}&to=${shiftDays(old, 1)}`));
    await page.reload();
    await expect(history.getByRole("table").getByRole("row")).toHaveCount(2);
    await expect(oldRow).toHaveCount(1);
    await expect(history.getByRole("button", { name: "Custom" })).toHaveAttribute("aria-pressed", "true");
    await expect(history.getByLabel("From", { exact: true })).toHaveValue(shiftDays(old, -1));

    // A range that cannot be served is refused here, naming the field, without asking the API; nothing of
    // the previous range stays beside the message. (The reloaded page may still ask for other ranges: the
    // one it shows, again, and the rate card's own history.)
    const refused = [
      `start_date=${today}&end_date=${old}`,
      `start_date=${shiftDays(today, -4000)}&`,
      `end_date=${shiftDays(today, 2)}`,
    ];
    const asked: string[] = [];
    page.on("request", (request) => {
      if (refused.some((range) => request.url().includes(range))) asked.push(request.url());
    });
    await history.getByLabel("From", { exact: true }).fill(today);
    await history.getByLabel("To", { exact: true }).fill(old);
    await history.getByRole("button", { name: "Apply" }).click();
    const from = history.getByLabel("From", { exact: true });
    await expect(from).toHaveAttribute("aria-invalid", "true");
    await expect(history.getByTestId("range-problems")).toHaveText(/^From: .+ is after To \(.+\)\.$/);
    await expect(history.getByTestId("rates-count")).toHaveCount(0);
    await expect(history.getByTestId("rate-stats")).toHaveCount(0);
    await expect(oldRow).toHaveCount(0);

    await from.fill(shiftDays(today, -4000));
    await history.getByLabel("To", { exact: true }).fill(today);
    await history.getByRole("button", { name: "Apply" }).click();
    await expect(history.getByTestId("range-problems")).toContainText("From: the range spans 4000 days; at most 3660");

    await from.fill(shiftDays(today, -3));
    await history.getByLabel("To", { exact: true }).fill(shiftDays(today, 2));
    await history.getByRole("button", { name: "Apply" }).click();
    await expect(history.getByLabel("To", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(history.getByTestId("range-problems")).toContainText(/^To: .+ is in the future/);
    expect(asked).toEqual([]);
  });

  test("the chart spaces dates by time, the summary describes the range, and the table lines up decimals", async ({
    page,
    request,
  }) => {
    const { storeRates } = await import("./api");
    // Far back, alone in their range: two consecutive days, then a gap of four.
    const base = shiftDays(todayInCaracas(), -900);
    await storeRates(request, [
      { date: base, dollar: "10,5" },
      { date: shiftDays(base, 1), dollar: "11,12345678" },
      { date: shiftDays(base, 5), dollar: "9,25" },
    ]);
    await page.goto(`/?from=${shiftDays(base, -1)}&to=${shiftDays(base, 6)}`);
    const history = page.getByRole("region", { name: "Rate history" });
    const dots = history.locator(".recharts-line-dots circle");
    await expect(dots).toHaveCount(3);
    const xs = await dots.evaluateAll((circles) => circles.map((c) => Number(c.getAttribute("cx"))));
    expect((xs[2] - xs[1]) / (xs[1] - xs[0])).toBeCloseTo(4, 1);
    // Ticks are days of the month, never a two-digit year.
    // Recharts draws the tick labels in their own layer, apart from the axis line.
    const tickLabels = history.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
    await expect(tickLabels.nth(1)).toBeVisible();
    const ticks = await tickLabels.allTextContents();
    for (const tick of ticks) expect(tick).toMatch(/^[A-Z][a-z]{2} \d{1,2}$/);

    await expect(history.getByTestId("stat-lowest")).toHaveText("9.2500");
    await expect(history.getByTestId("stat-highest")).toHaveText("11.1235");
    await expect(history.getByTestId("stat-average")).toHaveText("10.2912");
    await expect(history.getByTestId("stat-change")).toHaveText("-1.2500");
    // Every rate has 4 decimals (the rule for people), so the points line up.
    await expect(history.getByTestId("rate-value")).toHaveText(["9.2500", "11.1235", "10.5000"]);
    const points = await history.getByTestId("rate-value").evaluateAll((cells) =>
      cells.map((cell) => {
        const range = document.createRange();
        const text = cell.firstChild!;
        const dot = text.textContent!.indexOf(".");
        range.setStart(text, dot);
        range.setEnd(text, dot + 1);
        return Math.round(range.getBoundingClientRect().left);
      }),
    );
    expect(new Set(points).size).toBe(1);
  });

  test("when the central bank fails, the fetch shows the problem's detail and stores nothing", async ({
    page,
    bcv,
    request,
  }) => {
    await page.goto("/");
    await registerThroughHeader(page);
    const before = await request.get("/rates/");
    await bcv.set({ scenario: "error-500" });
    const card = page.getByRole("region", { name: "Latest rate" });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    const alert = card.getByRole("alert");
    await expect(alert).toBeVisible();
    await expect(alert).toContainText(
      "The central bank’s website answered with an error (HTTP 500). Nothing was stored.",
    );
    const after = await request.get("/rates/");
    expect(after.status()).toBe(before.status());
    if (before.ok()) expect(await after.json()).toEqual(await before.json());
  });

  test("against a slow central bank, the fetch says what it is doing, then why it gave up", async ({ page, bcv }) => {
    await page.goto("/");
    await registerThroughHeader(page);
    await bcv.set({ scenario: "slow" });
    const card = page.getByRole("region", { name: "Latest rate" });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    await expect(card.getByTestId("fetch-progress")).toContainText(/Asking the central bank… \d+ s/);
    await screenshotToLookAt(page, "fetch-slow-progress");
    await expect(card.getByRole("alert")).toContainText(
      "The central bank’s website did not answer in time. Nothing was stored.",
      {
        timeout: 30_000,
      },
    );
    await expect(card.getByTestId("fetch-progress")).toHaveCount(0);
    await card.getByText("Technical details").click();
    await expect(card.getByRole("alert")).toContainText(/did not answer within \d+ ms/);
    await screenshotToLookAt(page, "fetch-slow-failure");
  });
});

/**
 * Which rate is today's (lib/rates/in-force.ts): after the bank's afternoon publication of tomorrow's value date,
 * every surface for people shows the rate in force today as the rate, and tomorrow's beside it with its day.
 */
test.describe("Which rate is today's", { tag: "@rates" }, () => {
  test("after the afternoon's publication: today's rate on every surface, tomorrow's beside it", async ({
    page,
    request,
    bcv,
  }) => {
    const today = todayInCaracas();
    const tomorrow = shiftDays(today, 1);
    const { headers } = await apiUser(request, "in-force");
    try {
      await bcv.set({ dollar: "236,0101", date: today });
      expect((await request.post("/rates/", { headers })).ok()).toBe(true);
      await bcv.set({ dollar: "236,4587", date: tomorrow });
      expect((await request.post("/rates/", { headers })).ok()).toBe(true);
      const next = `Next rate: Bs. 236.4587, in force from ${formatWeekday(tomorrow, "en")}`;

      // The first HTML, before any script: the card, the converter's answer and the price list.
      const textOf = (html: string) => html.replace(/<script[\s\S]*?<\/script>/g, "").replace(/<[^>]+>/g, "");
      const html = await (await request.get("/")).text();
      expect(html).toMatch(/data-testid="latest-rate"[^>]*>236\.0101</);
      const first = textOf(html);
      expect(first).toContain(next);
      expect(first).toContain("100 USD = Bs. 23,601.01");
      expect(first).not.toContain("23,645.87");
      const prices = textOf(await (await request.get("/prices")).text());
      expect(prices).toContain("1 USD = Bs. 236.0101");
      expect(prices).toContain(`Next rates, in force from ${formatWeekday(tomorrow, "en")}: 1 USD = Bs. 236.4587`);

      // In the browser.
      await page.goto("/");
      await expect(page.getByTestId("latest-rate")).toHaveText("236.0101");
      await expect(page.getByTestId("next-rate")).toHaveText(next);
      const converter = page.getByTestId("conversion-result");
      await expect(converter).toContainText("100 USD = Bs. 23,601.01");
      // Each box shows its currency before the number, the bolívar as "Bs." as everywhere else.
      await expect(page.getByTestId("amount-currency")).toHaveText(["USD", "Bs."]);
      await expect(page.getByTestId("converter-next-rate")).toHaveText(
        `Next rate: 1 USD = Bs. 236.4587, in force from ${formatWeekday(tomorrow, "en")}`,
      );
      await page.goto("/prices");
      await expect(page.getByTestId("price-list-rates")).toContainText("1 USD = Bs. 236.0101");
      await expect(page.getByTestId("price-list-next-rates")).toContainText("1 USD = Bs. 236.4587");

      // A shop's own site: the card names both, the badge today's only.
      await page.goto("/embed?lang=en");
      await expect(page.locator(".rate")).toHaveText("Bs. 236.0101");
      await expect(page.locator(".next")).toHaveText(next);
      const badge = await (await request.get("/rates/badge.svg?lang=en")).text();
      expect(badge).toContain(">Bs. 236.0101 · ");
      expect(badge).not.toContain("236.4587");
    } finally {
      // Recent value dates left behind would be the latest for the specs that follow.
      const database = new Database(process.env.E2E_DATABASE_FILE!);
      const remove = database.prepare("DELETE FROM CurrencyRate WHERE date = ?");
      for (const date of [today, tomorrow]) remove.run(date);
      database.close();
    }
  });
});
