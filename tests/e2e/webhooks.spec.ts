import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { formatDateTime } from "@/components/ui/format";
import type { Locale } from "@/i18n/locale";
import { apiUser } from "./api";
import { expect, inEachScheme, PASSWORD, screenshotToLookAt, test } from "./fixtures";

/**
 * The rate webhooks panel of the integrators' page (/developers), against a webhook receiver on loopback (a stand-in for the subscriber's
 * server; the app allows 127.0.0.1 as a destination in the e2e setup, WEBHOOK_ALLOWED_HOSTS): add one, keep its
 * secret, send tests and see them delivered or retried, delete it. In Spanish and English, at 390 and 1440 px,
 * light and dark, axe clean.
 */

const words = {
  es: {
    signIn: "Iniciar sesión",
    email: "Correo electrónico",
    password: "Contraseña",
    signOut: "Cerrar sesión",
    panel: "Webhooks de tasas",
    add: "Agregar webhook",
    dialog: "Agregar un webhook",
    url: "URL de destino",
    refused: "El servidor no envía webhooks a esta dirección:",
    notAbsolute: "Escriba la dirección completa, comenzando por https://.",
    secretDialog: "Webhook agregado",
    copySecret: "Copiar secreto",
    copied: "Copiado",
    done: "Listo, lo guardé",
    none: "Aún no tiene webhooks.",
    all: "Todas las monedas",
    noDelivery: "Sin entregas todavía",
    sendTest: "Enviar prueba",
    deliveries: "Entregas",
    delivered: "Prueba entregada: el receptor respondió 200.",
    retrying: /^Prueba aún no entregada \(respondió 500\); próximo intento /,
    deliveredStatus: "Entregada",
    pendingStatus: "Pendiente",
    test: "Prueba",
    delete: "Eliminar",
    deleteDialog: "¿Eliminar este webhook?",
    deleteConfirm: "Eliminar webhook",
    signedOut: "Inicie sesión para agregar webhooks y ver sus entregas.",
  },
  en: {
    signIn: "Sign in",
    email: "Email",
    password: "Password",
    signOut: "Sign out",
    panel: "Rate webhooks",
    add: "Add webhook",
    dialog: "Add a webhook",
    url: "Endpoint URL",
    refused: "The server does not send webhooks to this address:",
    notAbsolute: "Write the whole address, starting with https://.",
    secretDialog: "Webhook added",
    copySecret: "Copy secret",
    copied: "Copied",
    done: "Done, I kept it",
    none: "No webhooks yet.",
    all: "All currencies",
    noDelivery: "No deliveries yet",
    sendTest: "Send test",
    deliveries: "Deliveries",
    delivered: "Test delivered: the receiver answered 200.",
    retrying: /^Test not delivered yet \(answered 500\); next try /,
    deliveredStatus: "Delivered",
    pendingStatus: "Pending",
    test: "Test",
    delete: "Delete",
    deleteDialog: "Delete this webhook?",
    deleteConfirm: "Delete webhook",
    signedOut: "Sign in to add webhooks and see their deliveries.",
  },
} as const;

/** The subscriber's server: records what it gets, answers `status`. */
class Receiver {
  readonly received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  status = 200;
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      this.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(this.status).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/bcv`;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** What a Standard Webhooks receiver checks: the signature over "id.timestamp.body", keyed with the secret. */
function signatureIsValid(secret: string, request: { headers: http.IncomingHttpHeaders; body: string }) {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signed = `${request.headers["webhook-id"]}.${request.headers["webhook-timestamp"]}.${request.body}`;
  return (
    request.headers["webhook-signature"] === `v1,${crypto.createHmac("sha256", key).update(signed).digest("base64")}`
  );
}

/** WCAG 2.1 A and AA violations inside `selector` (the panel, or the open dialog), each named with its elements. */
async function axeViolations(page: Page, selector: string) {
  const results = await new AxeBuilder({ page })
    .include(selector)
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

async function signIn(page: Page, language: Locale, email: string) {
  const w = words[language];
  await page.getByRole("banner").getByRole("button", { name: w.signIn }).click();
  const dialog = page.getByRole("dialog", { name: w.signIn });
  await dialog.getByLabel(w.email).fill(email);
  await dialog.getByLabel(w.password).fill(PASSWORD);
  await dialog.getByRole("button", { name: w.signIn }).click();
  await expect(page.getByRole("banner").getByRole("button", { name: w.signOut })).toBeVisible();
}

for (const [locale, language] of [
  ["es-VE", "es"],
  ["en-US", "en"],
] as const satisfies readonly (readonly [string, Locale])[]) {
  const w = words[language];

  test.describe(`Rate webhooks in the dashboard, ${locale}`, () => {
    test.use({ locale });

    test("add one, keep its secret, send tests, see the deliveries, delete it", async ({ page, request }) => {
      test.setTimeout(240_000);
      const receiver = new Receiver();
      const hook = await receiver.start();
      try {
        const user = await apiUser(request, `webhooks-${language}`);
        await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
        await page.goto("/developers");
        await signIn(page, language, user.email);
        const panel = page.getByRole("region", { name: w.panel });
        await expect(panel.getByText(w.none)).toBeVisible();

        // The API's refusals, under the field: a private address (only the server can tell), a relative one.
        await panel.getByRole("button", { name: w.add }).click();
        const dialog = page.getByRole("dialog", { name: w.dialog });
        const url = dialog.getByLabel(w.url);
        await expect(url).toBeFocused();
        await url.fill("http://192.168.1.10/hooks");
        await dialog.getByRole("button", { name: w.add }).click();
        await expect(url).toHaveAttribute("aria-invalid", "true");
        await expect(url).toHaveAccessibleDescription(new RegExp(`${w.refused} 192\\.168\\.1\\.10, a private network`));
        await screenshotToLookAt(page, `webhooks-refused-${locale}-1440`);
        await url.fill("hooks.example.com/bcv");
        await dialog.getByRole("button", { name: w.add }).click();
        await expect(url).toHaveAccessibleDescription(new RegExp(w.notAbsolute.replace(/[.?*+^$()[\]\\/]/g, "\\$&")));

        // Added: the secret, shown this once, copied.
        await url.fill(hook);
        await dialog.getByRole("button", { name: w.add }).click();
        const secretDialog = page.getByRole("dialog", { name: w.secretDialog });
        const secret = (await secretDialog.getByTestId("webhook-secret").textContent())!;
        expect(secret).toMatch(/^whsec_/);
        await inEachScheme(page, async (scheme) => {
          expect(await axeViolations(page, "dialog[open]"), `the secret, ${locale}, ${scheme}`).toEqual([]);
          await screenshotToLookAt(page, `webhooks-secret-${locale}-1440-${scheme}`);
        });
        await secretDialog.getByRole("button", { name: w.copySecret }).click();
        await expect(secretDialog.getByRole("button", { name: w.copied })).toBeVisible();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
        await secretDialog.getByRole("button", { name: w.done }).click();
        await expect(secretDialog).toBeHidden();
        const { webhooks } = await (await request.get("/rates/webhooks", { headers: user.headers })).json();
        expect(webhooks).toHaveLength(1);
        expect(JSON.stringify(webhooks)).not.toContain(secret);

        const item = panel.getByRole("listitem").filter({ has: page.getByRole("heading", { name: hook }) });
        await expect(item.getByTestId("webhook-currencies")).toHaveText(w.all);
        await expect(item.getByTestId("last-delivery")).toContainText(w.noDelivery);

        // A test the receiver takes: delivered, signed with the secret shown, in the list with its status.
        await item.getByRole("button", { name: w.sendTest }).click();
        await expect(item.getByText(w.delivered)).toBeVisible();
        // Only tests: a value date stored meanwhile by another spec would come as a rates.published delivery.
        const tests = () => receiver.received.filter((entry) => JSON.parse(entry.body).type === "webhook.test");
        expect(tests()).toHaveLength(1);
        const [first] = tests();
        expect(signatureIsValid(secret, first)).toBe(true);
        expect(JSON.parse(first.body)).toMatchObject({ type: "webhook.test", data: { webhook_id: webhooks[0].id } });
        const deliveredRow = item.getByTestId("delivery-row").filter({ hasText: String(first.headers["webhook-id"]) });
        await expect(deliveredRow.getByRole("cell").nth(1)).toContainText(w.test);
        await expect(deliveredRow.getByTestId("delivery-status")).toHaveText(w.deliveredStatus);
        await expect(deliveredRow.getByTestId("delivery-response")).toHaveText("200");
        await expect(deliveredRow.getByRole("cell").nth(4)).toHaveText("1");
        const delivery = (
          await (await request.get(`/rates/webhooks/${webhooks[0].id}/deliveries`, { headers: user.headers })).json()
        ).deliveries.find((entry: { id: string }) => entry.id === first.headers["webhook-id"]);
        // The moment as the page's language writes it: 24-hour in Spanish, AM/PM in English.
        const created = formatDateTime(delivery.created_at, language);
        expect(created).toMatch(language === "es" ? /^\d{1,2} [a-z]+\.?, \d{2}:\d{2}:\d{2} / : / (AM|PM) /);
        await expect(deliveredRow.getByRole("cell").first()).toHaveText(created);
        await expect(item.getByTestId("last-delivery")).toContainText(w.deliveredStatus);
        await expect(item.getByTestId("last-delivery")).toContainText("200");

        // A test the receiver refuses: pending, with its answer and the next try.
        receiver.status = 500;
        await item.getByRole("button", { name: w.sendTest }).click();
        await expect(item.getByRole("status").filter({ hasText: w.retrying })).toBeVisible();
        expect(tests()).toHaveLength(2);
        const retried = item.getByTestId("delivery-row").filter({ hasText: String(tests()[1].headers["webhook-id"]) });
        await expect(retried.getByTestId("delivery-status")).toHaveText(w.pendingStatus);
        await expect(retried.getByTestId("delivery-response")).toHaveText("500");
        await expect(item.getByTestId("last-delivery")).toContainText(w.pendingStatus);
        await expect(item.getByTestId("last-delivery")).toContainText("500");

        // Looked at: the panel with both deliveries, in each scheme; axe clean.
        await inEachScheme(page, async (scheme) => {
          expect(await axeViolations(page, "#rate-webhooks"), `${locale}, ${scheme}`).toEqual([]);
          await screenshotToLookAt(panel, `webhooks-${locale}-1440-${scheme}`);
        });

        // Deleted after a confirmation that names it.
        await item.getByRole("button", { name: w.delete }).click();
        const confirm = page.getByRole("dialog", { name: w.deleteDialog });
        await expect(confirm).toContainText(hook);
        await confirm.getByRole("button", { name: w.deleteConfirm }).click();
        await expect(confirm).toBeHidden();
        await expect(panel.getByText(w.none)).toBeVisible();
        await expect(panel.getByRole("button", { name: w.add })).toBeFocused();
        expect((await (await request.get("/rates/webhooks", { headers: user.headers })).json()).webhooks).toEqual([]);
      } finally {
        await receiver.stop();
      }
    });

    test("on a phone: the list, the deliveries and the dialogs fit 390 px; axe clean, light and dark", async ({
      browser,
      request,
    }) => {
      test.setTimeout(240_000);
      const receiver = new Receiver();
      const hook = await receiver.start();
      const context = await browser.newContext({ locale, viewport: { width: 390, height: 844 } });
      try {
        const user = await apiUser(request, `webhooks-phone-${language}`);
        const created = await request.post("/rates/webhooks", { headers: user.headers, data: { url: hook } });
        expect(created.status()).toBe(201);
        const page = await context.newPage();
        await page.goto(`${process.env.E2E_BASE_URL!}/developers`);
        await signIn(page, language, user.email);
        const panel = page.getByRole("region", { name: w.panel });
        const item = panel.getByRole("listitem").filter({ has: page.getByRole("heading", { name: hook }) });
        // Bounded, unlike a click's wait: without the webhook on screen the test fails in seconds, not minutes.
        await expect(item).toBeVisible();
        await item.getByRole("button", { name: w.sendTest }).click();
        await expect(item.getByText(w.delivered)).toBeVisible();
        // Only tests: a value date stored meanwhile by another spec would come as a rates.published delivery.
        const tests = item.getByTestId("delivery-card").filter({ has: page.getByText(w.test, { exact: true }) });
        await expect(tests).toHaveCount(1);
        await expect(tests).toContainText(w.deliveredStatus);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await panel.scrollIntoViewIfNeeded();
        await inEachScheme(page, async (scheme) => {
          expect(await axeViolations(page, "#rate-webhooks"), `${locale}, 390 px, ${scheme}`).toEqual([]);
          await screenshotToLookAt(panel, `webhooks-${locale}-390-${scheme}`);
        });

        await panel.getByRole("button", { name: w.add }).click();
        const dialog = page.getByRole("dialog", { name: w.dialog });
        await dialog.getByLabel(w.url).fill("http://10.1.2.3/hooks");
        await dialog.getByRole("button", { name: w.add }).click();
        await expect(dialog.getByLabel(w.url)).toHaveAttribute("aria-invalid", "true");
        await inEachScheme(page, async (scheme) => {
          expect(await axeViolations(page, "dialog[open]"), `the dialog, ${locale}, 390 px, ${scheme}`).toEqual([]);
          await screenshotToLookAt(page, `webhooks-dialog-${locale}-390-${scheme}`);
        });
      } finally {
        await context.close();
        await receiver.stop();
      }
    });

    test("signed out, the panel says to sign in; without JavaScript nothing says it is loading", async ({
      browser,
    }) => {
      for (const javaScriptEnabled of [true, false]) {
        const context = await browser.newContext({ locale, javaScriptEnabled });
        const page = await context.newPage();
        await page.goto(`${process.env.E2E_BASE_URL!}/developers`);
        const panel = page.getByRole("region", { name: w.panel });
        await expect(panel).toBeVisible();
        await expect(panel.getByRole("button", { name: w.add })).toBeDisabled();
        if (javaScriptEnabled) {
          await expect(page.getByRole("banner").getByRole("button", { name: w.signIn })).toBeVisible();
          await expect(panel.getByText(w.signedOut)).toBeVisible();
        } else {
          // Chromium's parser keeps treating <noscript> as raw text when Playwright turns scripts off; a browser with
          // scripting disabled shows it.
          expect(await panel.locator("noscript").textContent()).toContain(
            language === "es" ? "hace falta JavaScript" : "needs JavaScript",
          );
          await expect(panel).not.toContainText(/Loading|Cargando|Checking|Verificando/);
          await expect(panel.getByRole("status")).toHaveCount(0);
        }
        await context.close();
      }
    });
  });
}
