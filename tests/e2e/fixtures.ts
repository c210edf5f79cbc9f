import crypto from "node:crypto";
import { test as base, expect, type Page } from "@playwright/test";

/**
 * The specs' `test`: baseURL is the app started by the global setup, and helpers do what a person does
 * in the header (register, sign in, sign out) and what the operator does to the central bank stand-in.
 */
export const test = base.extend<{ bcv: BcvControl }>({
  baseURL: async ({}, use) => {
    const url = process.env.E2E_BASE_URL;
    if (!url) throw new Error("E2E_BASE_URL is not set: run the specs through playwright.config.ts.");
    await use(url);
  },
  bcv: async ({}, use) => {
    const url = process.env.E2E_BCV_URL;
    if (!url) throw new Error("The central bank stand-in is not running (tests/support/bcv-server-cli.ts missing).");
    const control = new BcvControl(url);
    await use(control);
    // Each spec starts from the fixture page, whatever the previous one published.
    await control.set({ scenario: "ok", dollar: null, date: null });
  },
});

export { expect };

export class BcvControl {
  constructor(readonly url: string) {}

  /** Changes what the stand-in serves: a scenario (ok, error-500, no-dolar, ...) and/or the published rate. */
  async set(state: { scenario?: string; dollar?: string | null; date?: string | null }) {
    const response = await fetch(new URL("__control", this.url), {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(state),
    });
    if (!response.ok) throw new Error(`PUT /__control answered ${response.status}: ${await response.text()}`);
  }
}

export const PASSWORD = "correct horse battery";

export const uniqueEmail = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** Registers through the header's dialog, which signs the new account in. */
export async function registerThroughHeader(page: Page, email = uniqueEmail("person")) {
  await page.getByRole("banner").getByRole("button", { name: "Register" }).click();
  const dialog = page.getByRole("dialog", { name: "Create an account" });
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Password").fill(PASSWORD);
  await dialog.getByRole("button", { name: "Create account" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("banner").getByText(email)).toBeVisible();
  return email;
}

export async function signInThroughHeader(page: Page, email: string, password = PASSWORD) {
  await page.getByRole("banner").getByRole("button", { name: "Sign in" }).click();
  const dialog = page.getByRole("dialog", { name: "Sign in" });
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Password").fill(password);
  await dialog.getByRole("button", { name: "Sign in" }).click();
}

export async function signOutThroughHeader(page: Page) {
  await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("banner").getByRole("button", { name: "Sign in" })).toBeVisible();
}
