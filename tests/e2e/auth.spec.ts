import {
  expect,
  PASSWORD,
  registerThroughHeader,
  screenshotToLookAt,
  signInThroughHeader,
  signOutThroughHeader,
  test,
  uniqueEmail,
} from "./fixtures";

test.describe("Signing in, registering and signing out from the header", () => {
  test("signed out, the actions that need a session are disabled with a hint", async ({ page }) => {
    await page.goto("/builds");
    await expect(page.getByRole("banner").getByRole("button", { name: "Sign in" })).toBeVisible();
    await expect(page.getByRole("button", { name: "New build" })).toBeDisabled();
    await expect(page.getByText("Sign in to use this action.").first()).toBeVisible();
    // Every front and the API docs, from the header of any of them.
    const fronts = page.getByRole("navigation", { name: "Main" });
    await expect(fronts.getByRole("link", { name: "Rates" })).toHaveAttribute("href", "/");
    await expect(fronts.getByRole("link", { name: "Builds" })).toHaveAttribute("aria-current", "page");
    await expect(fronts.getByRole("link", { name: "Developers" })).toHaveAttribute("href", "/developers");
    await expect(fronts.getByRole("link", { name: "API docs" })).toHaveAttribute("href", "/docs");
  });

  test("registration shows the API's field errors next to their fields", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("banner").getByRole("button", { name: "Register" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an account" });
    await expect(dialog.getByText("At least 8 characters.", { exact: true })).toBeVisible();
    await dialog.getByLabel("Email").fill("not-an-email");
    await dialog.getByLabel("Password").fill("short");
    await dialog.getByRole("button", { name: "Create account" }).click();
    await expect(dialog.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
    await expect(dialog.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
    await expect(dialog.getByText("must be at least 8 characters")).toBeVisible();
    // The rule is said once: the error takes the hint's place.
    await expect(dialog.getByText("At least 8 characters.", { exact: true })).toHaveCount(0);
  });

  test("who is signed in shows on a phone too, in both languages, within the screen", async ({ page, baseURL }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    const email = await registerThroughHeader(page, uniqueEmail("phone"));
    for (const language of ["en", "es"]) {
      await page.context().addCookies([{ name: "lang", value: language, url: baseURL! }]);
      await page.reload();
      const shown = page.getByRole("banner").getByTitle(email);
      await expect(shown).toBeVisible();
      expect(await shown.textContent()).toBe(email);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), language).toBeLessThanOrEqual(390);
      await screenshotToLookAt(page.getByRole("banner"), `header-signed-in-390-${language}`);
    }
  });

  test("register, sign out, fail and then succeed to sign in", async ({ page }) => {
    await page.goto("/builds");
    const email = await registerThroughHeader(page, uniqueEmail("auth"));
    await expect(page.getByRole("button", { name: "New build" })).toBeEnabled();

    await signOutThroughHeader(page);
    await expect(page.getByRole("button", { name: "New build" })).toBeDisabled();

    await signInThroughHeader(page, email, "wrong password!");
    const dialog = page.getByRole("dialog", { name: "Sign in" });
    await expect(dialog.getByRole("alert")).toContainText(/(incorrect|wrong) email or password/i);

    await dialog.getByLabel("Password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Sign in" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("banner").getByText(email)).toBeVisible();

    // The session survives a reload: it is next-auth's cookie, not page state.
    await page.reload();
    await expect(page.getByRole("banner").getByText(email)).toBeVisible();
    await expect(page.getByRole("button", { name: "New build" })).toBeEnabled();

    // One sign-in for every front: the rates and the integrators' page know the same person.
    for (const front of ["Rates", "Developers"]) {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: front }).click();
      await expect(page.getByRole("banner").getByText(email)).toBeVisible();
    }
    await expect(page.getByRole("button", { name: "Create a token" })).toBeVisible();
  });

  test("registering an email twice says so next to the email", async ({ page }) => {
    await page.goto("/");
    const email = await registerThroughHeader(page, uniqueEmail("twice"));
    await signOutThroughHeader(page);
    await page.getByRole("banner").getByRole("button", { name: "Register" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an account" });
    await dialog.getByLabel("Email").fill(email.toUpperCase());
    await dialog.getByLabel("Password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Create account" }).click();
    await expect(dialog.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
  });
});
