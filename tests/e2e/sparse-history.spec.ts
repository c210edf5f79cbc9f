import { storeRates } from "./api";
import { expect, test } from "./fixtures";

/**
 * Months without a rate are a hole in the data, not a trend: the chart's line stops at the gap and starts
 * again after it, and a change across it says how far back its previous rate is.
 */
// 2022 (imports refuse dates before the bolívar digital, 2021-10): far from the dates other specs store (rates.spec's "900 days ago" moves with today and once fell in 2024).
test("the chart breaks its line at a gap, and the table says how far apart the two dates are", {
  tag: "@rates",
}, async ({ page }) => {
  await storeRates(page.request, [
    { date: "2022-01-02", dollar: "36,10" },
    { date: "2022-01-03", dollar: "36,20" },
    { date: "2022-01-04", dollar: "36,30" },
    // Five months missing.
    { date: "2022-06-03", dollar: "36,50" },
    { date: "2022-06-04", dollar: "36,60" },
  ]);
  await page.goto("/?from=2022-01-01&to=2022-06-30");
  const history = page.getByRole("region", { name: "Rate history" });
  const chart = history.locator("figure");
  await expect(chart).toHaveAttribute("data-gaps", "1", { timeout: 60_000 });
  await expect(chart).toHaveAttribute("aria-label", /broken where one stretch of more than 14 days has no rates/);
  // One line drawn as two pieces: its path moves (M) twice and never draws across the months between.
  const path = history.locator(".recharts-line-curve");
  await expect(path).toHaveAttribute("d", /^M[^M]+M[^M]+$/);
  await expect(history.locator(".recharts-line-dots circle")).toHaveCount(5);

  const firstAfterGap = history.getByRole("table").getByRole("row").filter({ hasText: "Jun 3, 2022" });
  await expect(firstAfterGap.getByTestId("change-across-gap")).toHaveText("vs Jan 4, 2022, 4 months earlier");
});

// September to November 2022: apart from the dates above (the first half of 2022) and from those other specs store
// (viewports.spec stores March 2023; rates.spec's "900 days ago" is 2024 or later).
test("the oldest row of a range has its change from the rate before the range, as the latest rate card says, and the CSV link still answers", async ({
  page,
}) => {
  await storeRates(page.request, [
    { date: "2022-09-12", dollar: "38,00" },
    // Two months missing, then the one rate of November.
    { date: "2022-11-15", dollar: "40,25" },
  ]);
  const url = "/?from=2022-11-01&to=2022-11-30";
  // The first paint (rendered on the server, before any script runs) already has it.
  // (React separates the parts of a text with empty comments.)
  const html = (await (await page.request.get(url)).text()).replaceAll("<!-- -->", "");
  expect(html).toContain("vs Sep 12, 2022, 2 months earlier");

  await page.goto(url);
  const history = page.getByRole("region", { name: "Rate history" });
  await expect(history.getByTestId("rates-count")).toHaveText(/^1 rate ·/, { timeout: 60_000 });
  const onlyRow = history.getByRole("table").getByRole("row").filter({ hasText: "Nov 15, 2022" });
  const changeCell = onlyRow.getByRole("cell").nth(2);
  await expect(changeCell).toContainText("+2.25");
  await expect(onlyRow.getByTestId("change-across-gap")).toHaveText("vs Sep 12, 2022, 2 months earlier");

  // The CSV export refuses include=change (400): the link asks without it.
  const csvLink = history.getByRole("link", { name: "Download CSV" });
  const href = await csvLink.getAttribute("href");
  expect(href).not.toContain("include");
  const csv = await page.request.get(href!);
  expect(csv.status()).toBe(200);
  expect(await csv.text()).toContain("2022-11-15");
});

// March 2022: apart from the dates above and from those other specs store.
test("the newest rate is drawn whole at the chart's right edge, also when a gap leaves it alone", {
  tag: "@rates",
}, async ({ page }) => {
  await storeRates(page.request, [
    { date: "2022-03-01", dollar: "4,30" },
    { date: "2022-03-02", dollar: "4,31" },
    // Seventeen days missing: no line reaches the newest rate, which is also the range's last day.
    { date: "2022-03-20", dollar: "4,40" },
  ]);
  await page.goto("/?from=2022-03-01&to=2022-03-20");
  const history = page.getByRole("region", { name: "Rate history" });
  const chart = history.locator("figure");
  await expect(chart).toHaveAttribute("data-gaps", "1", { timeout: 60_000 });
  const newest = history.locator(".recharts-reference-dot circle");
  await expect(newest).toHaveCount(1);
  // Whole: no clip path cuts it at the plot's edge, and it lies inside the chart.
  expect(await newest.evaluate((circle) => circle.closest("[clip-path]") === null)).toBe(true);
  const dot = (await newest.boundingBox())!;
  const figure = (await chart.boundingBox())!;
  expect(dot.width).toBeGreaterThanOrEqual(6);
  expect(dot.x + dot.width).toBeLessThanOrEqual(figure.x + figure.width);
});
