import Database from "better-sqlite3";
import { presetRange, todayInCaracas } from "@/components/rates/rate-range";
import { formatDay, formatRate } from "@/components/ui/format";
import { expect, PASSWORD, test, uniqueEmail } from "./fixtures";

test.describe("The dashboard's first paint", { tag: "@rates" }, () => {
  test.beforeEach(async ({ request, bcv }) => {
    const email = uniqueEmail("first-paint");
    expect((await request.post("/users/", { data: { email, password: PASSWORD } })).status()).toBe(201);
    const token = await request.post("/users/token", { form: { username: email, password: PASSWORD } });
    const { access_token } = (await token.json()) as { access_token: string };
    await bcv.set({ dollar: "246,75", date: todayInCaracas() });
    expect((await request.post("/rates/", { headers: { Authorization: `Bearer ${access_token}` } })).ok()).toBe(true);
  });
  // The specs after these store older dates and expect them to be the latest.
  test.afterEach(() => deleteRatesOf(todayInCaracas()));

  test.describe("without running any script", () => {
    test.use({ javaScriptEnabled: false });

    test("shows the latest rate, when it was fetched, and the history table's rows", async ({ page, request }) => {
      await page.goto("/");
      await expect(page.getByTestId("latest-rate")).toHaveText("246.7500");
      await expect(page.getByTestId("latest-rate-fetched")).toContainText("Last updated");
      const history = await (
        await request.get(`/rates/history?${new URLSearchParams({ ...presetRange("30d") })}`)
      ).json();
      const rows = page.getByRole("region", { name: "Rate history" }).getByRole("table").locator("tbody tr");
      await expect(rows).toHaveCount(history.rates.length);
      await expect(rows.first()).toContainText(formatDay(todayInCaracas(), "en"));
      await expect(rows.first()).toContainText("246.75");
    });

    test("answers the converter's default amount: 100 dollars in bolívares", async ({ page }) => {
      await page.goto("/");
      const converter = page.getByRole("region", { name: "Converter" });
      await expect(converter.getByLabel("Amount in USD", { exact: true })).toHaveValue("100");
      // 100 x 246.75, the rate stored above.
      await expect(converter.getByLabel("Amount in VES", { exact: true })).toHaveValue("24,675.00");
      await expect(converter.getByTestId("conversion-result")).toContainText("100 USD = Bs. 24,675.00");
    });

    test("shows the currency and range of the address", async ({ page, request }) => {
      const latest = await (await request.get("/rates/?in_force=true&currencies=EUR")).json();
      await page.goto("/?currency=EUR&range=90d");
      await expect(page.getByRole("region", { name: "Latest rate" })).toContainText("Bolívares per Euro");
      await expect(page.getByTestId("latest-rate")).toHaveText(formatRate(latest.rates.EUR, "en"));
      await expect(page.getByRole("region", { name: "Rate history" }).getByRole("table")).toContainText("Bs. per EUR");
    });
  });

  test("the chart library is not among the scripts the page loads first, and the chart comes after", async ({
    page,
    request,
  }) => {
    const html = await (await request.get("/")).text();
    // Scripts the HTML runs or preloads.
    const scripts = [
      ...new Set([...html.matchAll(/(?:src|href)="([^"]+\.js(?:\?[^"]*)?)"/g)].map((match) => match[1])),
    ];
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      // recharts' own class name, in its code wherever it is bundled.
      expect(await (await request.get(src)).text(), src).not.toContain("recharts-line-curve");
    }
    await page.goto("/");
    await expect(
      page.getByRole("region", { name: "Rate history" }).getByRole("figure", { name: /^Line chart of/ }),
    ).toBeVisible();
  });
});

function deleteRatesOf(date: string) {
  const database = new Database(process.env.E2E_DATABASE_FILE!);
  try {
    database.prepare("DELETE FROM CurrencyRate WHERE date = ?").run(date);
  } finally {
    database.close();
  }
}
