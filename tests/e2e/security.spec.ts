import { expect, registerThroughHeader, signOutThroughHeader, test, uniqueEmail } from "./fixtures";

// The Content-Security-Policy must not break the pages (the dashboard, Swagger UI at /docs),
// and the dashboard's Sign out must end the session on the server, not only in the browser.

test.describe("security in the browser", () => {
  test("the dashboard and /docs run under the CSP without a single violation", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    await page.goto("/");
    await expect(page.getByRole("banner").getByRole("button", { name: "Sign in" })).toBeVisible();
    await page.goto("/docs");
    await expect(page.getByText("/rates/history").first()).toBeVisible();
    expect(violations).toEqual([]);
  });

  test("after Sign out, the session cookie the browser held is refused by the API", async ({ page, context }) => {
    await page.goto("/");
    await registerThroughHeader(page, uniqueEmail("revoke"));
    const session = (await context.cookies()).find((cookie) => cookie.name.endsWith("next-auth.session-token"));
    expect(session).toBeTruthy();
    const cookie = `${session!.name}=${session!.value}`;
    const before = await page.request.get("/users/me", { headers: { Cookie: cookie } });
    expect(before.status()).toBe(200);
    await signOutThroughHeader(page);
    // A copy kept elsewhere (a stolen cookie) must stop working too.
    const after = await fetch(new URL("/users/me", page.url()), { headers: { Cookie: cookie } });
    expect(after.status).toBe(401);
  });
});
