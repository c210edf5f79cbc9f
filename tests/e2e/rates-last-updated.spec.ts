import Database from "better-sqlite3";
import { todayInCaracas } from "@/components/rates/rate-range";
import { expect, registerThroughHeader, test } from "./fixtures";

test.describe("The latest rate says when it was last fetched from the central bank", { tag: "@rates" }, () => {
  test("'Last updated' beside the rate is the time of the last successful fetch, not its value date", async ({
    page,
    bcv,
  }) => {
    await bcv.set({ dollar: "245,5", date: todayInCaracas() });
    await page.goto("/");
    await registerThroughHeader(page);
    const card = page.getByRole("region", { name: "Latest rate" });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    await expect(page.getByTestId("latest-rate")).toHaveText("245.5000");

    const status = await (await page.request.get("/rates/status")).json();
    const fetched = card.getByTestId("latest-rate-fetched");
    await expect(fetched).toContainText("Last updated just now");
    await expect(fetched.locator("time")).toHaveAttribute("datetime", status.last_success.at);

    // On a 320 px phone the change wraps onto two lines: the line under it moves down, nothing overlaps.
    await page.setViewportSize({ width: 320, height: 800 });
    // The text's own box (its paragraph once had a fixed height the second line overflowed).
    const change = (await card.getByTestId("latest-rate-change").locator("span").first().boundingBox())!;
    expect((await fetched.boundingBox())!.y).toBeGreaterThanOrEqual(change.y + change.height);
    await page.setViewportSize({ width: 1440, height: 960 });

    // The same rates read two hours ago (every successful fetch so far moved back): the value date is
    // unchanged, the line tells the age of the fetch.
    const database = new Database(process.env.E2E_DATABASE_FILE!);
    try {
      const fetches = database.prepare("SELECT id, finishedAt FROM RateFetch WHERE outcome != 'failed'").all() as {
        id: number;
        finishedAt: number | string;
      }[];
      const update = database.prepare("UPDATE RateFetch SET finishedAt = ? WHERE id = ?");
      for (const { id, finishedAt } of fetches) {
        const earlier = new Date(new Date(finishedAt).getTime() - 2 * 3600_000);
        update.run(typeof finishedAt === "number" ? earlier.getTime() : earlier.toISOString(), id);
      }
    } finally {
      database.close();
    }
    await page.reload();
    await expect(card.getByTestId("latest-rate-fetched")).toContainText("Last updated 2 h ago");

    // The specs after this one store older dates and expect them to be the latest.
    const cleanup = new Database(process.env.E2E_DATABASE_FILE!);
    cleanup.prepare("DELETE FROM CurrencyRate WHERE date = ?").run(todayInCaracas());
    cleanup.close();
  });
});
