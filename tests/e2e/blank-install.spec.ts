import Database from "better-sqlite3";
import { shiftDays, todayInCaracas } from "@/components/rates/rate-range";
import { formatWeekday } from "@/components/ui/format";
import { expect, registerThroughHeader, test, waitUntilAppAnswers } from "./fixtures";

/**
 * A fresh install, before any rate is stored: the dashboard says so and offers the fetch. The other specs share
 * one database, which they fill with rates: these tests have a server of their own (tests/e2e/global-setup.ts)
 * on a database where nothing stores a rate. They fail, saying why, rather than skip themselves, if one is there.
 */
test.use({ baseURL: process.env.E2E_BLANK_BASE_URL });
// In order, in one worker: the last test stores a rate, which the others must not see.
test.describe.configure({ mode: "serial" });

test.describe("A fresh install without rates", () => {
  test.beforeAll(async ({ request }) => {
    await waitUntilAppAnswers(request, `the fresh install's server (${process.env.E2E_BLANK_BASE_URL})`);
  });

  test.beforeEach(async ({ request }) => {
    const latest = await request.get("/rates/");
    expect(
      latest.status(),
      "these tests need a database without rates: something stored one on the fresh install's server",
    ).toBe(404);
  });

  test("the latest rate's card says no rate is stored and offers the fetch to the signed in", async ({ page }) => {
    await page.goto("/");
    const card = page.getByRole("region", { name: "Latest rate" });
    await expect(card.getByText("No rate is stored yet.")).toBeVisible();
    await expect(card.getByRole("button", { name: "Fetch latest rate" })).toBeDisabled();
    await registerThroughHeader(page);
    await expect(card.getByRole("button", { name: "Fetch latest rate" })).toBeEnabled();
  });

  test("the converter says there is nothing to convert with and offers the fetch instead of a form that cannot answer", async ({
    page,
  }) => {
    await page.goto("/");
    const converter = page.getByRole("region", { name: "Converter" });
    await expect(converter.getByTestId("converter-empty")).toHaveText(
      "No rate is stored yet, so there is nothing to convert with.",
      {
        timeout: 60_000,
      },
    );
    await expect(converter.getByRole("button", { name: "Fetch latest rate" })).toBeVisible();
    // The workbook import is for admins: a visitor is not pointed to it.
    await expect(converter.getByRole("link", { name: "Latest rate" })).toHaveCount(0);
    await expect(converter.getByRole("combobox")).toHaveCount(0);
  });

  test("in the evening a first fetch stores only tomorrow's rate: the card, converter and price list show it as the next", async ({
    page,
  }) => {
    // As the fetch stores it (the stand-in bank is shared with the specs running beside this one, and imports
    // skip future value dates); removed at the end, whatever happens.
    const tomorrow = shiftDays(todayInCaracas(), 1);
    const database = new Database(process.env.E2E_BLANK_DATABASE_FILE!);
    try {
      const now = new Date().toISOString();
      database
        .prepare(
          "INSERT INTO CurrencyRate (date, currency, rate, source, sourceDetail, fetchedAt, createdAt, updatedAt) VALUES (?, 'USD', '236.45870000', 'home-page', 'e2e', ?, ?, ?)",
        )
        .run(tomorrow, now, now, now);
      await page.goto("/");
      const card = page.getByRole("region", { name: "Latest rate" });
      await expect(
        card.getByText("No rate in force today is stored: the central bank has already published the next one."),
      ).toBeVisible();
      const day = formatWeekday(tomorrow, "en");
      await expect(card.getByTestId("next-rate")).toHaveText(`Next rate: Bs. 236.4587, in force from ${day}`);
      const converter = page.getByRole("region", { name: "Converter" });
      await expect(converter.getByTestId("conversion-result")).toContainText("100 USD = Bs. 23,645.87");
      await expect(converter.getByTestId("converter-ahead")).toHaveText(
        `No rate is in force today yet: these are the next rates, in force from ${day}.`,
      );
      const history = page.getByRole("region", { name: "Rate history" });
      await expect(history).toContainText("No rates stored between");
      await expect(history).not.toContainText("No rate is stored yet");
      // The price list prices at it too, and says the same.
      await page.goto("/prices");
      await expect(page.getByTestId("price-list-rates")).toContainText("Next BCV rates: 1 USD = Bs. 236.4587");
      await expect(page.getByTestId("price-list-next-rates")).toHaveText(
        `No rate is in force today yet: these are the next rates, in force from ${day}.`,
      );
    } finally {
      database.prepare("DELETE FROM CurrencyRate WHERE date = ?").run(tomorrow);
      database.close();
    }
  });
});
