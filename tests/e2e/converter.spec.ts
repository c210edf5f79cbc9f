import { storeRates } from "./api";
import { expect, test } from "./fixtures";

/**
 * The converter shows what it sends: with rates stored, the currencies on screen are the ones in the request.
 * On a fresh install (nothing stored) it says there is nothing to convert with: blank-install.spec.ts.
 */
test.describe("The converter", { tag: "@rates" }, () => {
  test("sends the currencies it shows, converts as the amount is typed, and reads 1.234,56", async ({
    page,
    request,
  }) => {
    await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
    await page.goto("/");
    const converter = page.getByRole("region", { name: "Converter" });
    const from = converter.getByRole("combobox", { name: "From", exact: true });
    const to = converter.getByRole("combobox", { name: "To", exact: true });
    const amount = converter.getByLabel("Amount", { exact: true });

    const asked = page.waitForRequest(
      (r) => r.url().includes("/convert?") && new URL(r.url()).searchParams.get("amount") === "1234.56",
    );
    await amount.fill("1.234,56");
    const query = new URL((await asked).url()).searchParams;
    // What the pickers show is exactly what went out.
    expect(query.get("from")).toBe(await from.getAttribute("data-value"));
    expect(query.get("to")).toBe(await to.getAttribute("data-value"));
    await expect(from).toHaveValue(new RegExp(`^${query.get("from")} · `));
    await expect(to).toHaveValue(new RegExp(`^${query.get("to")} · `));
    await expect(converter.getByTestId("conversion-result")).toContainText(`1,234.56 ${query.get("from")} = `);

    // Swapping swaps both what is shown and what is sent.
    const swapped = page.waitForRequest(
      (r) => r.url().includes("/convert?") && new URL(r.url()).searchParams.get("from") === query.get("to"),
    );
    await converter.getByRole("button", { name: "Swap the currencies" }).click();
    expect(new URL((await swapped).url()).searchParams.get("to")).toBe(query.get("from"));
    await expect(from).toHaveAttribute("data-value", query.get("to")!);
  });
});
