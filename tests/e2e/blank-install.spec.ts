import { expect, registerThroughHeader, test, waitUntilAppAnswers } from "./fixtures";

/**
 * A fresh install, before any rate is stored: the dashboard says so and offers the fetch. The other specs share
 * one database, which they fill with rates: these tests have a server of their own (tests/e2e/global-setup.ts)
 * on a database where nothing stores a rate. They fail, saying why, rather than skip themselves, if one is there.
 */
test.use({ baseURL: process.env.E2E_BLANK_BASE_URL });

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
});
