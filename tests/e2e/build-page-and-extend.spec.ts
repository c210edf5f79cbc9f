import { apiUser, waitForBuildStatus } from "./api";
import { expect, signInThroughHeader, test } from "./fixtures";

/**
 * A build's own address and its Extend, as a person uses them: /builds/{id} opened in the browser shows the
 * dashboard with that build open (JSON clients still get JSON), and Extend adds time, saying the new
 * expiry before it is confirmed, never leaving the build less time than it had.
 */
test("a build's page opens the dashboard on it, and Extend adds time without ever shortening", async ({ page, request }) => {
  const owner = await apiUser(request, "extend");
  const created = await request.post("/builds", {
    headers: owner.headers,
    data: { repositories: [{ repository: "demo", ref: "main" }], modules: ["alpha"], ttl_seconds: 3600 },
  });
  expect(created.status(), await created.text()).toBe(202);
  const buildId = ((await created.json()) as { build_id: string }).build_id;
  await waitForBuildStatus(request, buildId, "running");

  // JSON for programs at the same address.
  const data = await request.get(`/builds/${buildId}`, { headers: { Accept: "application/json" } });
  expect((await data.json()).build_id).toBe(buildId);

  await page.goto("/");
  await signInThroughHeader(page, owner.email);
  await expect(page.getByRole("banner").getByRole("button", { name: "Sign out" })).toBeVisible();

  await page.goto(`/builds/${buildId}`);
  await expect(page).toHaveURL(new RegExp(`/\\?build=${buildId}$`));
  const drawer = page.getByRole("dialog", { name: `Build ${buildId.slice(0, 8)}` });
  await expect(drawer.getByTestId("build-status")).toHaveText("running");
  // A running build has been running since a moment; it has not "finished".
  await expect(drawer.getByText("Running since")).toBeVisible();
  await expect(drawer.getByText("Finished", { exact: true })).toHaveCount(0);

  const expiryBefore = new Date(((await (await request.get(`/builds/${buildId}`)).json()) as { expires_at: string }).expires_at);

  // About an hour left; adding ten minutes must leave about seventy, not ten.
  await drawer.getByLabel("Time to add").selectOption("600");
  await drawer.getByRole("button", { name: "Extend…" }).click();
  const confirm = page.getByRole("dialog", { name: `Extend build ${buildId.slice(0, 8)} by 10 minutes?` });
  const spoken = (at: Date) =>
    at.toLocaleString("en-US", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
  await expect(confirm.getByTestId("extend-current-expiry")).toContainText(spoken(expiryBefore));
  await expect(confirm.getByTestId("extend-new-expiry")).toContainText(spoken(new Date(expiryBefore.getTime() + 600_000)));
  await expect(confirm.getByTestId("extend-new-expiry")).toContainText(/in 1 h (09|10) min/);
  await confirm.getByRole("button", { name: "Extend by 10 minutes" }).click();
  await expect(confirm).toBeHidden();

  const expiryAfter = new Date(((await (await request.get(`/builds/${buildId}`)).json()) as { expires_at: string }).expires_at);
  expect(expiryAfter.getTime() - expiryBefore.getTime()).toBe(600_000);
  await expect(drawer.getByTestId("expiry-countdown")).toContainText(/1 h (09|10) min/);

  await request.delete(`/builds/${buildId}`, { headers: owner.headers });
});
