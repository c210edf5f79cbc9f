import { type APIRequestContext, expect } from "@playwright/test";
import { BcvControl, PASSWORD, uniqueEmail } from "./fixtures";
import { importRates } from "./workbook-rates";

/**
 * What a spec prepares through the API rather than the screen (stored rates, a running build), so it can
 * spend its time on what it checks.
 */
export async function apiUser(request: APIRequestContext, label = "api") {
  const email = uniqueEmail(label);
  const registered = await request.post("/users/", { data: { email, password: PASSWORD } });
  expect(registered.status()).toBe(201);
  const token = await request.post("/users/token", { form: { username: email, password: PASSWORD } });
  expect(token.status()).toBe(200);
  const { access_token } = (await token.json()) as { access_token: string };
  return { email, headers: { Authorization: `Bearer ${access_token}` } };
}

export const bcvControl = () => {
  const url = process.env.E2E_BCV_URL;
  if (!url) throw new Error("The central bank stand-in is not running.");
  return new BcvControl(url);
};

/**
 * Stores each rate (dollar as the bank writes it, "240,12345678") by importing a workbook laid out like the
 * bank's, as the e2e admin: the home page gives only value dates near today, so rates of any date come from a workbook.
 */
export async function storeRates(request: APIRequestContext, rates: { date: string; dollar: string }[]) {
  await importRates(request, rates);
}

/** Starts a build of the e2e fixture's demo repository and answers its id. */
export async function startApiBuild(request: APIRequestContext, headers: Record<string, string>, modules: string[]) {
  const created = await request.post("/builds", {
    headers,
    data: { repositories: [{ repository: "demo", ref: "main" }], modules, ttl_seconds: 600 },
  });
  expect(created.status(), await created.text()).toBe(202);
  return ((await created.json()) as { build_id: string }).build_id;
}

export async function waitForBuildStatus(
  request: APIRequestContext,
  buildId: string,
  status: string,
  timeoutMs = 60_000,
) {
  await expect
    .poll(async () => ((await (await request.get(`/builds/${buildId}`)).json()) as { status: string }).status, {
      timeout: timeoutMs,
    })
    .toBe(status);
}
