import type { APIRequestContext } from "@playwright/test";
import Database from "better-sqlite3";
import { shiftDays, todayInCaracas } from "@/components/rates/rate-range";
import { expect, PASSWORD, test, uniqueEmail } from "./fixtures";

async function registerAndGetToken(request: APIRequestContext) {
  const email = uniqueEmail("stale");
  expect((await request.post("/users/", { data: { email, password: PASSWORD } })).status()).toBe(201);
  const response = await request.post("/users/token", { form: { username: email, password: PASSWORD } });
  expect(response.status()).toBe(200);
  const { access_token: token } = (await response.json()) as { access_token: string };
  return { authorization: { Authorization: `Bearer ${token}` } };
}

test.describe("The latest rate's freshness on the dashboard", { tag: "@rates" }, () => {
  test("a value date the bank should have replaced shows a stale badge, which goes when the due one is stored", async ({
    page,
    request,
    bcv,
  }) => {
    const { authorization } = await registerAndGetToken(request);
    // Yesterday's value date is always behind: the value date due is today's or a later business day.
    const yesterday = shiftDays(todayInCaracas(), -1);
    await bcv.set({ dollar: "241,5", date: yesterday });
    expect((await request.post("/rates/", { headers: authorization })).ok()).toBe(true);
    const stale = await (await request.get("/rates/status")).json();
    expect(stale.newest_value_date).toBe(yesterday);
    expect(stale.stale).toBe(true);

    await page.goto("/");
    const badge = page.getByRole("region", { name: "Latest rate" }).getByTestId("stale-badge");
    const days = stale.business_days_missed === 1 ? "1 business day" : `${stale.business_days_missed} business days`;
    await expect(badge).toHaveText(`Stale · ${days} missed`);
    // Why, in words on the card rather than a tooltip a phone cannot show; the badge on one line.
    const due = new Date(`${stale.expected_value_date}T00:00:00Z`).toLocaleDateString("en-US", {
      timeZone: "UTC",
      month: "short",
      day: "numeric",
      year: "numeric",
    });
    await expect(page.getByTestId("stale-reason")).toHaveText(
      `The central bank's rate for ${due} is due and not stored yet.`,
    );
    await page.setViewportSize({ width: 390, height: 844 });
    const box = (await badge.boundingBox())!;
    expect(box.height).toBeLessThan(30);
    await page.setViewportSize({ width: 1440, height: 960 });

    // The bank publishes the value date due: the badge goes once the fetch stores it.
    await bcv.set({ dollar: "242,5", date: stale.expected_value_date });
    try {
      expect((await request.post("/rates/", { headers: authorization })).ok()).toBe(true);
      await page.reload();
      // After the bank's afternoon publication the value date due is tomorrow's: the next rate, shown beside the
      // one in force (lib/rates/in-force.ts).
      if (stale.expected_value_date > todayInCaracas()) {
        await expect(page.getByTestId("latest-rate")).toHaveText("241.5000");
        await expect(page.getByTestId("next-rate")).toContainText("Next rate: Bs. 242.5000, in force from");
      } else {
        await expect(page.getByTestId("latest-rate")).toHaveText("242.5000");
      }
      await expect(badge).toHaveCount(0);
      await expect(page.getByTestId("stale-reason")).toHaveCount(0);
    } finally {
      // Both value dates are recent: left behind, they would be the latest for the specs that follow, which
      // store earlier ones (rates.spec's "two days ago" then "yesterday").
      const database = new Database(process.env.E2E_DATABASE_FILE!);
      const remove = database.prepare("DELETE FROM CurrencyRate WHERE date = ?");
      for (const date of [yesterday, stale.expected_value_date]) remove.run(date);
      database.close();
    }
  });
});
