import type { Page } from "@playwright/test";
import { apiUser, startApiBuild, storeRates } from "./api";
import { expect, PASSWORD, registerThroughHeader, screenshotToLookAt, test } from "./fixtures";

/** Waits until no panel of the page is loading (their placeholders pulse; a copy button's empty status does not). */
async function nothingLoading(page: Page) {
  await expect(page.getByRole("main").getByRole("region").first()).toBeVisible();
  await expect(page.locator("main [role=status].animate-pulse")).toHaveCount(0);
}

/**
 * One application, a front per audience: the rates for people at `/`, the builds console for teams at `/builds`
 * (the same address answers the API's JSON), the integrators' page at `/developers`; one header links them all and
 * /docs, and one sign-in holds for each.
 */
test.describe("The fronts", () => {
  test.use({ locale: "es-VE" });

  test("/ shows the rates and nothing about builds, previews, webhooks or tokens", async ({ page, request }) => {
    // A stored dollar, so that the card offers the way to the badge; July 2022 is accessibility.spec.ts's month.
    await storeRates(request, [{ date: "2022-07-01", dollar: "5,6112" }]);
    await page.goto("/");
    await expect(page.getByTestId("latest-rate")).toBeVisible();
    await expect(page.getByRole("banner").getByRole("link", { name: "Tasas BCV" })).toHaveAttribute("href", "/");
    await expect(page.getByRole("banner")).not.toContainText(/previews?/i);
    // The page's own content, not the header's links to the other fronts.
    const main = page.getByRole("main");
    await expect(main.getByRole("region", { name: "Calculadora" })).toBeVisible();
    await expect(main.getByRole("region", { name: "Histórico de tasas" })).toBeVisible();
    await expect(main.getByRole("link", { name: "Lista de precios para su negocio" })).toHaveAttribute(
      "href",
      "/prices",
    );
    await expect(main.getByRole("link", { name: "Poner esta tasa en su sitio web" })).toHaveAttribute(
      "href",
      "/developers#embed",
    );
    expect(await main.textContent()).not.toMatch(/build|preview|webhook|token/i);
    const nav = page.getByRole("navigation", { name: "Principal" });
    await expect(nav.getByRole("link", { name: "Tasas", exact: true })).toHaveAttribute("aria-current", "page");
    for (const [name, href] of [
      ["Builds", "/builds"],
      ["Desarrolladores", "/developers"],
      ["Docs de la API", "/docs"],
    ]) {
      await expect(nav.getByRole("link", { name })).toHaveAttribute("href", href);
    }
  });

  test("the addresses of before still lead where they did", async ({ page, request }) => {
    await page.goto("/?currency=EUR");
    await expect(page.getByRole("region", { name: "Tasa del día" }).getByRole("combobox")).toHaveValue(/^EUR · /);
    // A build's address from when the builds were on `/`: the console, with the build's drawer.
    const answer = await request.get("/?build=abc123", { maxRedirects: 0 });
    expect(answer.status()).toBe(307);
    expect(answer.headers().location).toBe("/builds?build=abc123");
    await page.goto("/?build=doesnotexist");
    await expect(page).toHaveURL(/\/builds\?build=doesnotexist$/);
    await expect(page.getByRole("dialog", { name: "Build no encontrado" })).toBeVisible();
  });

  test("/builds is the console for a browser and the list for an API client", async ({ page, request }) => {
    const json = await request.get("/builds", { headers: { Accept: "application/json" } });
    expect(json.headers()["content-type"]).toContain("application/json");
    expect(Array.isArray((await json.json()).builds)).toBe(true);
    const anything = await request.get("/builds");
    expect(anything.headers()["content-type"]).toContain("application/json");
    const html = await request.get("/builds", { headers: { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(html.status()).toBe(200);
    expect(html.headers()["content-type"]).toContain("text/html");
    // The page's policy, with the nonce its scripts run under, not the API's `default-src 'none'`.
    expect(html.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-/);

    // The list first, within the first screen of a laptop.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/builds");
    await expect(page).toHaveTitle(/^Builds/);
    const builds = page.getByRole("region", { name: "Builds", exact: true });
    await expect(builds.getByRole("button", { name: "Nuevo build" })).toBeInViewport();
    const top = (await builds.boundingBox())!.y;
    expect(top, "the list starts in the first screen").toBeLessThan(300);
    await expect(builds.getByRole("checkbox", { name: /Agrupar por rama/ })).toBeInViewport();
    await expect(page.getByRole("navigation", { name: "Consola de builds" }).getByRole("link")).toHaveText([
      "Builds",
      "Errores",
    ]);
    await screenshotToLookAt(page, "builds-1440");
  });
});

test.describe("The builds console at /builds", { tag: "@builds" }, () => {
  test("opening and closing a build stays in the page: its payload is the console's, not the list's JSON", async ({
    page,
    request,
  }) => {
    const owner = await apiUser(request, "console");
    const buildId = await startApiBuild(request, owner.headers, ["alpha"]);
    await page.goto("/builds");
    const documents: string[] = [];
    const payloads: string[] = [];
    page.on("request", (sent) => {
      if (sent.resourceType() === "document") documents.push(sent.url());
    });
    page.on("response", (answer) => {
      if (answer.request().headers().rsc) payloads.push(answer.headers()["content-type"] ?? "");
    });
    await page.getByRole("link", { name: buildId.slice(0, 8) }).click();
    await expect(page).toHaveURL(new RegExp(`/builds\\?build=${buildId}$`));
    await expect(page.getByRole("dialog", { name: `Build ${buildId.slice(0, 8)}` })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(/\/builds$/);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    // A JSON answer would make Next's router load the whole page again.
    expect(documents).toEqual([]);
    expect(payloads.length).toBeGreaterThan(0);
    for (const type of payloads) expect(type).toContain("text/x-component");
  });
});

test.describe("The integrators' page", () => {
  test("/developers has the token, the rate webhooks, the badge and the card, and the way to /docs", async ({
    page,
    request,
  }) => {
    await page.goto("/developers");
    const main = page.getByRole("main");
    await expect(main.getByRole("heading", { level: 1, name: "Developers" })).toBeVisible();
    await expect(main.getByRole("link", { name: "API reference" })).toHaveAttribute("href", "/docs");
    await expect(main.getByRole("region", { name: "Rate webhooks" })).toBeVisible();
    await expect(
      main.getByRole("region", { name: "The rate on your website" }).getByTestId("embed-snippets"),
    ).toHaveAttribute("open", "");
    const token = main.getByRole("region", { name: "API token" });
    await expect(token.getByText("Sign in to create a token here")).toBeVisible();

    // Signed in once, in the header: a token from the password, that the API takes.
    await registerThroughHeader(page);
    await token.getByLabel(/^Password of /).fill(PASSWORD);
    await token.getByRole("button", { name: "Create a token" }).click();
    const shown = token.getByTestId("api-token");
    await expect(shown).toBeVisible();
    // Asked without the page's session cookie: the token alone.
    const me = await request.get("/users/me", {
      headers: { Authorization: `Bearer ${await shown.textContent()}` },
    });
    expect(me.status()).toBe(200);
  });
});

/** A control as rendered: its box, its name for the message, and whether it is a link inside a sentence. */
interface Target {
  what: string;
  width: number;
  height: number;
}

/**
 * Every control on screen at its rendered size. A checkbox or radio inside its label is the label (a tap on
 * either toggles it); controls hidden from sight (a 1 px screen-reader text, a file input behind its button) are
 * not targets; links inside a sentence are excepted, as WCAG 2.5.8 excepts them.
 */
async function targetsOn(page: Page, selector: string): Promise<Target[]> {
  return page.locator(selector).evaluateAll((elements) =>
    elements.flatMap((element) => {
      const target =
        element instanceof HTMLInputElement && ["checkbox", "radio"].includes(element.type)
          ? (element.closest("label") ?? element)
          : element;
      const box = target.getBoundingClientRect();
      const style = getComputedStyle(element);
      if (box.width <= 1 || box.height <= 1 || style.visibility === "hidden") return [];
      if (element.tagName === "A" && style.display === "inline") {
        const sentence = element.parentElement?.textContent?.trim() ?? "";
        if (sentence.length > (element.textContent?.trim().length ?? 0)) return [];
      }
      const name = element.getAttribute("aria-label") ?? element.textContent?.trim() ?? "";
      return [
        { what: `${element.tagName.toLowerCase()} "${name.slice(0, 40)}"`, width: box.width, height: box.height },
      ];
    }),
  );
}

const CONTROLS =
  "main a[href], main button, main input:not([type=hidden]), main select, main summary, header a, header button";

const tooSmall = (targets: Target[], least: number) =>
  targets
    .filter((target) => target.width < least - 0.01 || target.height < least - 0.01)
    .map((target) => `${target.what}: ${target.width.toFixed(1)}x${target.height.toFixed(1)}`);

test.describe("Targets on a phone (390 px)", () => {
  test.use({ locale: "es-VE", viewport: { width: 390, height: 844 } });

  for (const path of ["/", "/prices", "/builds", "/developers"]) {
    test(`every control on ${path} is at least 24 by 24 px`, async ({ page }) => {
      await page.goto(path);
      await nothingLoading(page);
      // Opened where they fold, so that what they hold is measured too.
      for (const summary of await page.locator("main details:not([open]) > summary").all()) await summary.click();
      expect(tooSmall(await targetsOn(page, CONTROLS), 24)).toEqual([]);
    });
  }

  test("the converter's and the price list's buttons are at least 44 px", async ({ page }) => {
    await page.goto("/");
    const converter = page.getByRole("region", { name: "Calculadora" });
    await expect(converter.getByRole("button").first()).toBeVisible();
    const converterButtons = await converter.locator("button").evaluateAll((buttons) =>
      buttons
        .map((button) => ({ what: button.textContent, box: button.getBoundingClientRect() }))
        .filter(({ box }) => box.width > 1)
        .map(({ what, box }) => ({ what: `button "${what}"`, width: box.width, height: box.height })),
    );
    expect(converterButtons.length).toBeGreaterThan(0);
    expect(tooSmall(converterButtons, 44)).toEqual([]);

    await page.goto("/prices");
    const list = page.getByRole("region", { name: "Lista de precios" });
    await expect(list.getByRole("button", { name: "Agregar", exact: true })).toBeVisible();
    for (const summary of await list.locator("details:not([open]) > summary").all()) await summary.click();
    const listButtons = await list.locator("button").evaluateAll((buttons) =>
      buttons
        .map((button) => ({ what: button.textContent, box: button.getBoundingClientRect() }))
        .filter(({ box }) => box.width > 1)
        .map(({ what, box }) => ({ what: `button "${what}"`, width: box.width, height: box.height })),
    );
    expect(listButtons.length).toBeGreaterThan(0);
    expect(tooSmall(listButtons, 44)).toEqual([]);
  });
});
