import type { Locator, Page } from "@playwright/test";
import { apiUser, startApiBuild, waitForBuildStatus } from "./api";
import { expect, registerThroughHeader, screenshotToLookAt, test } from "./fixtures";

async function openNewBuildForm(page: Page) {
  await page.getByRole("button", { name: "New build" }).click();
  const dialog = page.getByRole("dialog", { name: "New build" });
  // The form is built from GET /app-config: the fixture repository is there, ready, with its modules.
  await expect(dialog.getByLabel("Repository 1", { exact: true })).toHaveValue("demo");
  await expect(dialog.getByLabel("Ref 1", { exact: true })).toHaveValue("main");
  return dialog;
}

/**
 * Destroy asks first, naming the build: the confirmation's title and button carry its short id, and
 * "Keep it" leaves the build alone.
 */
async function destroyFromDrawer(page: Page, drawer: Locator, buildId: string) {
  const name = buildId.slice(0, 8);
  await drawer.getByRole("button", { name: "Destroy", exact: true }).click();
  const confirm = page.getByRole("dialog", { name: `Destroy build ${name}?` });
  await expect(confirm).toBeVisible();
  await expect(confirm.getByRole("button", { name: "Keep it" })).toBeFocused();
  await confirm.getByRole("button", { name: `Destroy build ${name}` }).click();
  await expect(confirm).toBeHidden();
}

/** Fills the New build form with these modules and starts it; answers the new build's id, open in the drawer. */
async function startBuild(page: Page, modules: string[]) {
  const form = await openNewBuildForm(page);
  for (const name of modules) await form.getByRole("checkbox", { name, exact: true }).check();
  await form.getByLabel("Time to live").selectOption("600");
  await form.getByRole("button", { name: "Start build" }).click();
  await expect(page).toHaveURL(/\?build=/);
  return new URL(page.url()).searchParams.get("build")!;
}

test.describe("The builds console (/builds)", { tag: "@builds" }, () => {
  test("the build form shows the API's validation errors next to their fields", async ({ page }) => {
    await page.goto("/builds");
    await registerThroughHeader(page);
    const dialog = await openNewBuildForm(page);
    // The first field has the focus, so the form can be filled from the keyboard at once.
    await expect(dialog.getByLabel("Repository 1", { exact: true })).toBeFocused();
    await expect(dialog.getByRole("checkbox", { name: "alpha" })).toBeVisible();
    await expect(dialog.getByRole("checkbox", { name: "beta" })).toBeVisible();
    await expect(dialog.getByLabel("Time to live")).toHaveValue("3600");

    // No module chosen: said in words for a person, before the API is asked.
    await dialog.getByRole("button", { name: "Start build" }).click();
    await expect(dialog.getByText("Choose at least one module.")).toBeVisible();

    // A ref that does not exist: the problem names repositories[0].ref, shown under the Ref field.
    await dialog.getByRole("checkbox", { name: "alpha" }).check();
    await dialog.getByLabel("Ref 1", { exact: true }).fill("no-such-branch");
    await dialog.getByRole("button", { name: "Start build" }).click();
    const ref = dialog.getByLabel("Ref 1", { exact: true });
    await expect(ref).toHaveAttribute("aria-invalid", "true");
    const describedBy = (await ref.getAttribute("aria-describedby"))!.split(" ");
    await expect(dialog.locator(`[id="${describedBy.at(-1)}"]`)).toContainText(
      /no branch, tag or commit|does not exist/i,
    );

    // An unsafe ref is refused too, before git ever sees it.
    await ref.fill("bad..ref");
    await dialog.getByRole("button", { name: "Start build" }).click();
    await expect(ref).toHaveAttribute("aria-invalid", "true");

    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
  });

  test("start a build, watch its stages and live log, open its preview, destroy it", async ({
    page,
    context,
    request,
  }) => {
    // Both build slots (max_concurrent_builds: 2) held by slow installs: the new build waits in the queue until
    // they are canceled, however long a busy machine takes to draw the drawer.
    const blocker = await apiUser(request, "slots");
    const slowBuilds = [
      await startApiBuild(request, blocker.headers, ["slow"]),
      await startApiBuild(request, blocker.headers, ["slow"]),
    ];
    let email: string;
    let totalBefore: number;
    let buildId: string;
    const drawer = page.getByRole("dialog", { name: /^Build / });
    try {
      for (const id of slowBuilds) await waitForBuildStatus(request, id, "installing");
      await page.goto("/builds");
      email = await registerThroughHeader(page);
      totalBefore = Number(await page.getByTestId("counter-total").textContent());
      const inProgressBefore = Number(await page.getByTestId("counter-in-progress").textContent());

      const form = await openNewBuildForm(page);
      await form.getByRole("checkbox", { name: "alpha" }).check();
      await form.getByRole("checkbox", { name: "beta" }).check();
      // Its test stage prints its lines a second apart (the fixture's paced module), for the live log below.
      await form.getByRole("checkbox", { name: "paced" }).check();
      await form.getByLabel("Time to live").selectOption("600");
      await form.getByRole("button", { name: "Start build" }).click();

      // The new build opens in the drawer, addressed by the URL.
      await expect(page).toHaveURL(/\?build=/);
      buildId = new URL(page.url()).searchParams.get("build")!;
      await expect(drawer).toBeVisible();
      await expect(drawer.getByText(buildId)).toBeVisible();
      // Who started it, by display name (the email's local part unless the person chose one), never the email.
      await expect(drawer.getByTestId("build-origin")).toHaveText(email.split("@")[0]);
      // The time to live starts when the build runs, not while it waits and builds.
      await expect(drawer.getByText(/position \d+ in the queue/)).toBeVisible();
      await expect(drawer.getByTestId("expiry-countdown")).toHaveText("starts when running");
      // The counters count it as in progress meanwhile.
      await expect(page.getByTestId("counter-in-progress")).toHaveText(String(inProgressBefore + 1));
    } finally {
      // Their slots back to the queue: the new build goes on (its checkout below).
      for (const id of slowBuilds) await request.post(`/builds/${id}/cancel`, { headers: blocker.headers });
    }

    // The stages move forward; the viewer follows the running one.
    await expect(drawer.getByTestId("stage-checkout")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
    await expect(drawer.getByTestId("stage-test")).toHaveAttribute("data-status", "running", { timeout: 30_000 });
    const log = drawer.getByTestId("stage-log");
    await expect(drawer.getByTestId("log-live")).toBeVisible();
    await expect(drawer.getByRole("heading", { name: "Log · test" })).toBeVisible();

    // The log grows while the stage runs: "test 1" first, later lines without reloading anything.
    await expect(log).toContainText("test 1");
    const testLines = async () =>
      (await log.getByTestId("log-line").allTextContents()).filter((l) => l.startsWith("test ")).length;
    const linesEarly = await testLines();
    // The stage prints six lines a second apart: whatever had arrived when the viewer first showed, more follow.
    await expect.poll(testLines, { timeout: 15_000 }).toBeGreaterThan(linesEarly);
    // ANSI colours are rendered, and markup in the log is shown as text, never interpreted. The test stage is
    // pinned for these checks: on a busy machine it may end meanwhile, and the viewer would follow the next stage.
    await drawer.getByTestId("stage-test").click();
    await expect(drawer.getByRole("heading", { name: "Log · test" })).toBeVisible();
    await expect(log.locator(".ansi-cyan-fg").first()).toContainText("test 1");
    await expect(log).toContainText("<b>ok</b>");
    await expect(log.locator("b")).toHaveCount(0);
    await screenshotToLookAt(page, "build-live-log");
    await drawer.getByRole("button", { name: "Follow the build" }).click();

    // It reaches running: the viewer has followed on to the next stages.
    await expect(drawer.getByTestId("build-status")).toHaveText("running", { timeout: 60_000 });
    await expect(drawer.getByTestId("stage-healthcheck")).toHaveAttribute("data-status", "succeeded");
    await expect(drawer.getByTestId("commit-sha")).toHaveText(/^[0-9a-f]{7}$/);
    await expect(drawer.getByTestId("expiry-countdown")).toContainText(/min/);
    await expect(drawer.getByTestId("build-duration")).toHaveText(/^\d+(\.\d)? s$|min/);
    // Running, the drawer shows the preview's own output (the start stage's log), followed live.
    await expect(drawer.getByRole("heading", { name: "Log · start" })).toBeVisible();
    await expect(drawer.getByTestId("log-live")).toBeVisible();
    await expect(log).toContainText("serving on");

    // The preview's address is shown, and copied with one click.
    const shownUrl = drawer.getByTestId("preview-url").getByRole("link");
    await expect(shownUrl).toHaveText(/^https?:\/\//);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await drawer.getByRole("button", { name: "Copy URL" }).click();
    await expect(drawer.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await shownUrl.textContent());

    // Open preview: the build's own server lists its modules.
    const [preview] = await Promise.all([
      page.waitForEvent("popup"),
      drawer.getByRole("link", { name: /Open preview/ }).click(),
    ]);
    await expect(preview.locator("body")).toContainText("alpha");
    await expect(preview.locator("body")).toContainText("beta");
    const previewUrl = preview.url();
    await preview.close();
    // A request to the preview shows in its log as it happens, without reopening anything.
    await fetch(new URL("/seen-in-the-live-log", previewUrl));
    await expect(log).toContainText("GET /seen-in-the-live-log");

    // The stage log of a finished stage is read back on demand.
    await drawer.getByTestId("stage-install").click();
    await expect(log).toContainText("installed");

    // Destroy asks first; Keep it changes nothing.
    await drawer.getByRole("button", { name: "Destroy", exact: true }).click();
    const confirm = page.getByRole("dialog", { name: `Destroy build ${buildId.slice(0, 8)}?` });
    await confirm.getByRole("button", { name: "Keep it" }).click();
    await expect(confirm).toBeHidden();
    await expect(drawer.getByTestId("build-status")).toHaveText("running");

    // Destroy stops the runtime: the build is destroyed and its preview no longer answers.
    await destroyFromDrawer(page, drawer, buildId);
    await expect(drawer.getByTestId("build-status")).toHaveText("destroyed", { timeout: 30_000 });
    await expect(drawer.getByRole("link", { name: /Open preview/ })).toHaveCount(0);
    await expect
      .poll(
        async () =>
          fetch(previewUrl).then(
            () => "answers",
            () => "gone",
          ),
        { timeout: 15_000 },
      )
      .toBe("gone");

    // Back on the dashboard, the table lists it, and the search finds it by id.
    await drawer.getByRole("button", { name: "Close" }).click();
    await expect(page).not.toHaveURL(/\?build=/);
    await expect(page.getByTestId("counter-total")).toHaveText(String(totalBefore + 1));
    await page.getByLabel("Search").fill(buildId.slice(0, 8));
    await expect(page.getByTestId("build-row")).toHaveCount(1);
    await expect(page.getByTestId("build-row")).toContainText("destroyed");
    await expect(page.getByTestId("build-row").getByTestId("build-created-by")).toHaveText(email.split("@")[0]);
    await page.getByLabel("Status").selectOption("running");
    await expect(page.getByTestId("build-row")).toHaveCount(0);
  });

  test("a build of two repositories: one added in the form, its ref locked, its modules offered", async ({ page }) => {
    await page.goto("/builds");
    await registerThroughHeader(page);
    const form = await openNewBuildForm(page);

    // The repository that is not ready is offered but cannot be chosen.
    await expect(form.getByRole("option", { name: "offline (not ready)" })).toBeDisabled();
    await form.getByRole("button", { name: "Add repository" }).click();
    await expect(form.getByLabel("Repository 2", { exact: true })).toHaveValue("extras");
    const ref = form.getByLabel("Ref 2", { exact: true });
    await expect(ref).toHaveValue("main");
    await expect(ref).toHaveAttribute("readonly", "");
    await expect(form.getByText("Only the default ref can be built.")).toBeVisible();
    // Every configured repository that is ready is now in the build: nothing more to add.
    await expect(form.getByRole("button", { name: "Add repository" })).toBeDisabled();

    await form.getByRole("checkbox", { name: "alpha", exact: true }).check();
    await form.getByRole("checkbox", { name: "gamma", exact: true }).check();
    await form.getByRole("button", { name: "Start build" }).click();
    const drawer = page.getByRole("dialog", { name: /^Build / });
    await expect(drawer.getByTestId("commit-sha")).toHaveCount(2);
    await expect(drawer.getByTestId("build-status")).toHaveText("running", { timeout: 60_000 });

    const [preview] = await Promise.all([
      page.waitForEvent("popup"),
      drawer.getByRole("link", { name: /Open preview/ }).click(),
    ]);
    await expect(preview.locator("body")).toContainText("alpha");
    await expect(preview.locator("body")).toContainText("gamma");
    await preview.close();
    await destroyFromDrawer(page, drawer, new URL(page.url()).searchParams.get("build")!);
    await expect(drawer.getByTestId("build-status")).toHaveText("destroyed");
  });

  test("a failing build shows where and why it failed, and can be destroyed", async ({ page }) => {
    await page.goto("/builds");
    await registerThroughHeader(page);
    const buildId = await startBuild(page, ["alpha", "broken"]);
    const drawer = page.getByRole("dialog", { name: /^Build / });

    await expect(drawer.getByTestId("build-status")).toHaveText("failed", { timeout: 60_000 });
    await expect(drawer.getByTestId("failure-box")).toContainText("test");
    await expect(drawer.getByTestId("stage-test")).toHaveAttribute("data-status", "failed");
    await expect(drawer.getByTestId("stage-start")).toHaveAttribute("data-status", /skipped|canceled/);
    // The viewer shows the failed stage's log, stderr included.
    await expect(drawer.getByRole("heading", { name: "Log · test" })).toBeVisible();
    await expect(drawer.getByTestId("stage-log")).toContainText("1 test failed: broken");
    await expect(drawer.getByRole("button", { name: "Cancel build" })).toHaveCount(0);

    await destroyFromDrawer(page, drawer, buildId);
    await expect(drawer.getByTestId("build-status")).toHaveText("destroyed");
    await expect(page.getByTestId("counter-failed")).toHaveText(/^\d+$/);
  });

  test("a build can be canceled while it installs", async ({ page }) => {
    await page.goto("/builds");
    await registerThroughHeader(page);
    const buildId = await startBuild(page, ["slow"]);
    const drawer = page.getByRole("dialog", { name: /^Build / });

    await expect(drawer.getByTestId("stage-install")).toHaveAttribute("data-status", "running", { timeout: 30_000 });
    await expect(drawer.getByTestId("stage-log")).toContainText("still installing 2");
    await expect(drawer.getByRole("button", { name: "Destroy", exact: true })).toHaveCount(0);
    // Cancel asks first, naming the build.
    await drawer.getByRole("button", { name: "Cancel build", exact: true }).click();
    const confirm = page.getByRole("dialog", { name: `Cancel build ${buildId.slice(0, 8)}?` });
    await expect(confirm).toContainText(buildId.slice(0, 8));
    await confirm.getByRole("button", { name: `Cancel build ${buildId.slice(0, 8)}` }).click();
    await expect(confirm).toBeHidden();
    await expect(drawer.getByTestId("build-status")).toHaveText("canceled", { timeout: 30_000 });
    await expect(drawer.getByTestId("stage-install")).toHaveAttribute("data-status", /canceled|failed/);
    await expect(drawer.getByTestId("log-live")).toHaveCount(0);

    // Opened afresh, the drawer shows the interrupted install log, not a later stage that never ran.
    await page.goto(`/builds?build=${buildId}`);
    await expect(drawer.getByRole("heading", { name: "Log · install" })).toBeVisible();
    await expect(drawer.getByTestId("stage-log")).toContainText("still installing 2");
    await expect(drawer.getByTestId("stage-install")).toHaveAttribute("aria-pressed", "true");
    await drawer.getByTestId("stage-healthcheck").click();
    await expect(drawer.getByTestId("stage-log")).toHaveText(/did not run|skipped/);
  });

  test("a log longer than the API's tail says that only its end is shown", async ({ page }) => {
    await page.goto("/builds");
    await registerThroughHeader(page);
    const buildId = await startBuild(page, ["verbose"]);
    const drawer = page.getByRole("dialog", { name: /^Build / });
    await expect(drawer.getByTestId("build-status")).toHaveText("running", { timeout: 90_000 });

    // Opened afresh, a finished stage is read as the API's last 100,000 bytes.
    await page.goto(`/builds?build=${buildId}`);
    await drawer.getByTestId("stage-install").click();
    const log = drawer.getByTestId("stage-log");
    await expect(log).toContainText("verbose line 003000");
    await expect(drawer.getByTestId("log-truncated")).toBeVisible();
    await expect(log).not.toContainText("verbose line 000001 ");

    await destroyFromDrawer(page, drawer, buildId);
    await expect(drawer.getByTestId("build-status")).toHaveText("destroyed");
  });

  test("a link to a build that does not exist says so, and leads back without a useless retry", async ({ page }) => {
    await page.goto("/builds?build=doesnotexist&range=90d");
    const drawer = page.getByRole("dialog", { name: "Build not found" });
    await expect(drawer).toBeVisible();
    await expect(drawer).toContainText("No build has the id doesnotexist.");
    await expect(drawer.getByRole("button", { name: "Try again" })).toHaveCount(0);
    await drawer.getByRole("button", { name: "Back to the builds" }).click();
    await expect(drawer).toBeHidden();
    // Closing the drawer keeps the rest of the address.
    await expect(page).toHaveURL(/\/builds\?range=90d$/);
  });

  test("someone else's build offers no Cancel, Destroy or Extend, and says who may", async ({ page, request }) => {
    // The owner registers first, so the person looking is never the first user (an admin).
    const owner = await apiUser(request, "owner");
    const ownersName = owner.email.split("@")[0];
    const buildId = await startApiBuild(request, owner.headers, ["alpha", "broken"]);
    await waitForBuildStatus(request, buildId, "failed");

    await page.goto("/builds");
    await registerThroughHeader(page);
    await page.goto(`/builds?build=${buildId}`);
    const drawer = page.getByRole("dialog", { name: /^Build / });
    await expect(drawer.getByTestId("build-status")).toHaveText("failed");
    await expect(
      drawer.getByText(`Only ${ownersName} or an admin can cancel, destroy or extend this build.`),
    ).toBeVisible();
    await expect(drawer.getByRole("button", { name: "Destroy", exact: true })).toHaveCount(0);
    await expect(drawer.getByRole("button", { name: "Cancel build" })).toHaveCount(0);
    // Anyone signed in may start a build of the same commits, which is theirs.
    await expect(drawer.getByRole("button", { name: "Rebuild" })).toBeEnabled();

    // The API says the same: the owner may change it, the person looking may not, nobody signed out may.
    const asOwner = await (await request.get(`/builds/${buildId}`, { headers: owner.headers })).json();
    expect(asOwner.viewer_can_change).toBe(true);
    expect((await (await page.request.get(`/builds/${buildId}`)).json()).viewer_can_change).toBe(false);
    const anonymous = await (
      await request.get(`/builds/${buildId}`, { headers: { Authorization: "Bearer expired-or-forged" } })
    ).json();
    expect(anonymous.viewer_can_change).toBe(false);
  });

  test("signed out, the build actions are disabled with a hint", async ({ page }) => {
    await page.goto("/builds");
    await expect(page.getByRole("button", { name: "New build" })).toBeDisabled();
    await expect(page.getByRole("region", { name: "Builds" }).getByText("Sign in to use this action.")).toBeVisible();
  });
});
