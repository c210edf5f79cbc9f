import type { APIRequestContext, Locator, Page, Response } from "@playwright/test";
import { shiftDays, todayInCaracas } from "@/components/rates/rate-range";
import { expect, PASSWORD, screenshotToLookAt, test, uniqueEmail } from "./fixtures";

/**
 * /docs as an API client uses it: every operation opens on its parameters and responses, Execute sends the
 * call and shows the answer, and Authorize sends a bearer token. The tests that fetch a rate are tagged @rates:
 * they take turns with the other rate specs.
 */

interface OpenApiOperation {
  parameters?: unknown[];
  responses: Record<string, unknown>;
}
type OpenApiPaths = Record<string, Record<string, OpenApiOperation>>;

const METHODS = ["get", "post", "put", "patch", "delete"];

/** The operation's block in Swagger UI, found by method and path. */
function operation(page: Page, method: string, path: string): Locator {
  return page
    .locator(`.opblock.opblock-${method}`)
    .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
}

async function expand(block: Locator) {
  await block.locator(".opblock-summary").click();
  await expect(block.locator(".opblock-body")).toBeVisible();
}

/** Presses Execute and returns the live response's status cell and body. */
async function execute(block: Locator) {
  await block.getByRole("button", { name: "Execute" }).click();
  const live = block.locator(".live-responses-table");
  await expect(live).toBeVisible();
  return {
    status: live.locator("tr.response .response-col_status"),
    // The first code block of the answer is its body; its headers follow.
    body: live.locator("tr.response .response-col_description .highlight-code").first(),
    requestUrl: block.locator(".request-url pre"),
  };
}

/** Relative luminance (0 black .. 1 white) of a computed CSS colour, "rgb(r, g, b)". */
function luminance(colour: string): number {
  const [r, g, b] = (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((channel) => {
    const value = Number(channel) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The page's background and the colours of the API's title and an operation's path, as a reader sees them. */
async function docsColours(page: Page) {
  return page.evaluate(() => {
    const text = (selector: string) => getComputedStyle(document.querySelector(selector)!).color;
    // What shows behind an element: its own background, or the nearest one below it that is not transparent.
    const background = (selector: string) => {
      for (let element: Element | null = document.querySelector(selector); element; element = element.parentElement) {
        const colour = getComputedStyle(element).backgroundColor;
        if (colour !== "transparent" && !/rgba\(.*, 0\)$/.test(colour)) return colour;
      }
      return "rgb(255, 255, 255)";
    };
    return {
      page: background("main"),
      swaggerUi: background(".swagger-ui .opblock-tag-section"),
      title: text(".swagger-ui .info .title"),
      path: text(".swagger-ui .opblock-summary-path"),
    };
  });
}

// Swagger UI swallows some errors and shows a spinner forever instead: any script error fails the test.
const docsTest = test.extend<{ scriptErrors: string[] }>({
  scriptErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        // A 401 or 400 to a call made on purpose is logged by Chromium as a failed resource: not a script error.
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
          errors.push(message.text());
      });
      await use(errors);
      expect(errors, "script errors on /docs").toEqual([]);
    },
    { auto: true },
  ],
});

docsTest.describe("/docs", () => {
  // Opening an operation costs Swagger UI most of a second of the browser's time (0.7-2 s a click, measured on a
  // busy machine), some fifty of them: the walk is in four parts, which both workers share, rather than one test
  // that ran on one worker alone long after everything else was done. First in the file: the pages project
  // (playwright.config.ts) runs its tests one by one, in order, on whichever worker is free.
  const under =
    (...prefixes: string[]) =>
    (path: string) =>
      prefixes.some((prefix) => path.startsWith(prefix));
  const parts = [
    { name: "/builds", has: under("/builds") },
    { name: "/rates", has: under("/rates") },
    { name: "/users and /gateway", has: under("/users", "/gateway") },
    { name: "other", has: (path: string) => !under("/builds", "/rates", "/users", "/gateway")(path) },
  ];
  for (const part of parts) {
    docsTest(
      `every ${part.name} operation opens on its parameters and documented responses`,
      async ({ page, request }) => {
        const document = (await (await request.get("/openapi.json")).json()) as { paths: OpenApiPaths };
        await page.goto("/docs");
        await expect(page.locator(".opblock").first()).toBeVisible({ timeout: 30_000 });
        const operations = Object.entries(document.paths).flatMap(([path, item]) =>
          Object.entries(item)
            .filter(([method]) => METHODS.includes(method))
            .map(([method, op]) => ({ path, method, op })),
        );
        expect(operations.length).toBeGreaterThan(10);
        await expect(page.locator(".opblock")).toHaveCount(operations.length);
        const walked = operations.filter(({ path }) => part.has(path));
        expect(walked.length).toBeGreaterThan(0);

        for (const { path, method, op } of walked) {
          const block = operation(page, method, path);
          await expand(block);
          const body = block.locator(".opblock-body");
          await expect(body.locator(".loading-container")).toHaveCount(0);
          await expect(body.getByRole("heading", { name: "Parameters" })).toBeVisible();
          if ((op.parameters ?? []).length === 0) {
            await expect(body.locator(".opblock-description-wrapper").getByText("No parameters")).toBeVisible();
          } else {
            await expect(body.locator("tr[data-param-name]")).toHaveCount(op.parameters!.length);
          }
          const codes = await body
            .locator(".responses-table:not(.live-responses-table) > tbody > tr.response")
            .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-code")));
          expect(codes, `${method.toUpperCase()} ${path}`).toEqual(Object.keys(op.responses));
          await expect(body.getByRole("button", { name: "Execute" })).toBeVisible();
          // Closed again so the page stays short and the next block's locators stay unambiguous.
          await block.locator(".opblock-summary").click();
          await expect(body).toBeHidden();
        }
      },
    );
  }

  docsTest("Swagger UI's script and styles load on /docs alone", async ({ page, context }) => {
    // Each path in a page of its own: a response that arrives after its page has navigated away has no body.
    const swaggerAssets = async (tab: Page, path: string) => {
      const found: string[] = [];
      const reading: Promise<void>[] = [];
      tab.on("response", (response: Response) => {
        if (!["script", "stylesheet"].includes(response.request().resourceType())) return;
        reading.push(
          response.text().then((text) => {
            if (text.includes("swagger-ui")) found.push(new URL(response.url()).pathname);
          }),
        );
      });
      await tab.goto(path);
      await tab.waitForLoadState("networkidle");
      await Promise.all(reading);
      return found;
    };
    expect(await swaggerAssets(page, "/docs")).not.toEqual([]);
    expect(await swaggerAssets(await context.newPage(), "/")).toEqual([]);
  });

  for (const colorScheme of ["light", "dark"] as const) {
    for (const viewport of [
      { width: 1440, height: 960 },
      { width: 390, height: 844 },
    ]) {
      docsTest(
        `an opened operation at ${viewport.width} px in ${colorScheme} mode fits the screen`,
        async ({ page }) => {
          await page.emulateMedia({ colorScheme });
          await page.setViewportSize(viewport);
          await page.goto("/docs");
          const history = operation(page, "get", "/rates/history");
          await expand(history);
          await history.getByRole("button", { name: "Execute" }).click();
          await expect(history.locator(".live-responses-table tr.response .response-col_status")).toHaveText("200");
          // Nothing scrolls sideways: long code lines wrap or scroll inside their own box.
          const overflow = await page.evaluate(() => ({
            width: document.documentElement.scrollWidth,
            // The innermost elements sticking out on the right, to name the culprit when this fails.
            culprits: [...document.querySelectorAll("body *")]
              .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
              .filter(
                (element) =>
                  ![...element.children].some(
                    (child) => child.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5,
                  ),
              )
              .slice(0, 5)
              .map(
                (element) =>
                  `${element.tagName.toLowerCase()}.${[...element.classList].join(".")} (${Math.round(element.getBoundingClientRect().right)} px)`,
              ),
          }));
          expect(overflow.width, overflow.culprits.join(", ")).toBeLessThanOrEqual(viewport.width);
          // Swagger UI's own dark mode in dark, its light one in light: dark text on a dark page is unreadable.
          const colours = await docsColours(page);
          for (const background of [colours.page, colours.swaggerUi]) {
            if (colorScheme === "dark") expect(luminance(background), JSON.stringify(colours)).toBeLessThan(0.05);
            else expect(luminance(background), JSON.stringify(colours)).toBeGreaterThan(0.9);
          }
          for (const text of [colours.title, colours.path]) {
            if (colorScheme === "dark") expect(luminance(text), JSON.stringify(colours)).toBeGreaterThan(0.5);
            else expect(luminance(text), JSON.stringify(colours)).toBeLessThan(0.1);
          }
          const name = `docs-${viewport.width}px-${colorScheme}`;
          await screenshotToLookAt(history, `${name}-operation`);
          await page.evaluate(() => window.scrollTo(0, 0));
          await screenshotToLookAt(page, `${name}-top`);
        },
      );
    }
  }

  docsTest("follows the system's colour scheme while open, and leaves no dark mode behind", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto("/docs");
    await expect(page.locator(".swagger-ui .info .title")).toBeVisible();
    await expect(page.locator("html")).not.toHaveClass(/dark-mode/);
    await page.emulateMedia({ colorScheme: "dark" });
    await expect(page.locator("html")).toHaveClass(/dark-mode/);
    expect(luminance((await docsColours(page)).swaggerUi)).toBeLessThan(0.05);
    await page.emulateMedia({ colorScheme: "light" });
    await expect(page.locator("html")).not.toHaveClass(/dark-mode/);
    expect(luminance((await docsColours(page)).swaggerUi)).toBeGreaterThan(0.9);
  });

  docsTest(
    "Authorize with a token: GET /users/me and POST /rates/ are sent with it",
    { tag: "@rates" },
    async ({ page, request, bcv }) => {
      const { email, token } = await registerAndGetToken(request);
      const today = todayInCaracas();
      await bcv.set({ dollar: "262,87654321", date: today });
      await page.goto("/docs");
      await expect(page.locator(".opblock").first()).toBeVisible({ timeout: 30_000 });

      // Without authorization the protected call is refused, as documented.
      const me = operation(page, "get", "/users/me");
      await expand(me);
      let answer = await execute(me);
      await expect(answer.status).toHaveText("401");

      await page.getByRole("button", { name: "Authorize" }).first().click();
      const dialog = page.locator(".dialog-ux .modal-ux");
      await expect(dialog).toBeVisible();
      // A token is all the API takes: one scheme, no client id, secret or scopes to puzzle over.
      await expect(dialog.locator(".auth-container")).toHaveCount(1);
      await expect(dialog).not.toContainText(/client_id|client_secret|scopes/i);
      const bearer = dialog.locator(".auth-container").filter({ hasText: "bearerAuth" });
      await bearer.locator("input").fill(token);
      await bearer.getByRole("button", { name: "Apply credentials" }).click();
      await expect(bearer.getByRole("button", { name: /logout|remove/i })).toBeVisible();
      await dialog.getByRole("button", { name: "Close" }).first().click();
      await expect(dialog).toBeHidden();

      answer = await execute(me);
      await expect(answer.status).toHaveText("200");
      await expect(answer.body).toContainText(email);

      // An authenticated write: POST /rates/ fetches today's rate from the central bank stand-in.
      const fetchRate = operation(page, "post", "/rates/");
      await expand(fetchRate);
      answer = await execute(fetchRate);
      await expect(answer.status).toHaveText(/^20[01]$/);
      await expect(answer.body).toContainText('"dollar": 262.87654321');
      await expect(answer.body).toContainText(`"date": "${today}"`);
    },
  );

  docsTest(
    "GET /rates/ and GET /rates/history execute, with the parameters given",
    { tag: "@rates" },
    async ({ page, request, bcv }) => {
      const { authorization } = await registerAndGetToken(request);
      const today = todayInCaracas();
      await bcv.set({ dollar: "263,5", date: today });
      expect((await request.post("/rates/", { headers: authorization })).ok()).toBe(true);
      await page.goto("/docs");
      await expect(page.locator(".opblock").first()).toBeVisible({ timeout: 30_000 });

      const latest = operation(page, "get", "/rates/");
      await expand(latest);
      let answer = await execute(latest);
      await expect(answer.status).toHaveText("200");
      await expect(answer.body).toContainText(`"date": "${today}"`);
      await expect(answer.body).toContainText('"dollar": 263.5');

      const history = operation(page, "get", "/rates/history");
      await expand(history);
      const start = shiftDays(today, -3);
      await history.locator('tr[data-param-name="start_date"] input').fill(start);
      await history.locator('tr[data-param-name="end_date"] input').fill(today);
      answer = await execute(history);
      await expect(answer.requestUrl).toContainText(`/rates/history?start_date=${start}&end_date=${today}`);
      await expect(answer.status).toHaveText("200");
      await expect(answer.body).toContainText(`"start_date": "${start}"`);
      await expect(answer.body).toContainText(`"end_date": "${today}"`);
      await expect(answer.body).toContainText('"dollar": 263.5');

      // A range the server refuses comes back as a problem naming the field. (A malformed date never leaves
      // the page: Swagger UI checks the documented pattern first.)
      await history.locator('tr[data-param-name="start_date"] input').fill(today);
      await history.locator('tr[data-param-name="end_date"] input').fill(start);
      answer = await execute(history);
      await expect(answer.status).toHaveText("400");
      await expect(answer.body).toContainText('"status": 400');
      await expect(answer.body).toContainText('"field": "query.start_date"');
    },
  );
});

/** Registers a fresh user through the API and returns its email, token and Authorization header. */
async function registerAndGetToken(request: APIRequestContext) {
  const email = uniqueEmail("docs");
  expect((await request.post("/users/", { data: { email, password: PASSWORD } })).status()).toBe(201);
  const response = await request.post("/users/token", { form: { username: email, password: PASSWORD } });
  expect(response.status()).toBe(200);
  const { access_token: token } = (await response.json()) as { access_token: string };
  return { email, token, authorization: { Authorization: `Bearer ${token}` } };
}
