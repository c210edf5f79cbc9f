import { apiUser, startApiBuild, waitForBuildStatus } from "./api";
import { expect, signInThroughHeader, test } from "./fixtures";

/**
 * Sleep and Wake from the dashboard, with the process driver: Sleep stops the preview (its port stops
 * answering) and the build shows as sleeping, with a Wake button and its time to live still counting; Wake
 * starts it again and the same preview answers.
 */
test("Sleep stops a running preview and Wake brings it back", { tag: "@builds" }, async ({ page, request }) => {
  // A build to run, then a stop and a start with a healthcheck: well over a minute on a busy machine.
  test.setTimeout(300_000);
  const owner = await apiUser(request, "sleeper");
  const buildId = await startApiBuild(request, owner.headers, ["alpha"]);
  await waitForBuildStatus(request, buildId, "running");
  const running = (await (await request.get(`/builds/${buildId}`)).json()) as {
    preview_url: string;
    expires_at: string;
  };
  const preview = await request.get(running.preview_url);
  expect(await preview.text()).toContain(`Preview of build ${buildId}`);

  await page.goto("/builds");
  await signInThroughHeader(page, owner.email);
  await expect(page.getByRole("banner").getByRole("button", { name: "Sign out" })).toBeVisible();
  await page.goto(`/builds/${buildId}`);
  const drawer = page.getByRole("dialog", { name: `Build ${buildId.slice(0, 8)}` });
  await expect(drawer.getByTestId("build-status")).toHaveText("running");
  await expect(drawer.getByRole("button", { name: "Wake" })).toHaveCount(0);

  await drawer.getByRole("button", { name: "Sleep" }).click();
  await expect(drawer.getByTestId("build-status")).toHaveText("sleeping");
  // Asleep: nothing to open, nothing answers on its port, and its expiry stands as it was.
  await expect(drawer.getByRole("link", { name: /Open preview/ })).toHaveCount(0);
  await expect(drawer.getByRole("button", { name: "Sleep" })).toHaveCount(0);
  await expect(drawer.getByTestId("expiry-countdown")).toBeVisible();
  await expect
    .poll(
      async () =>
        await request.get(running.preview_url, { timeout: 5_000 }).then(
          () => "answers",
          () => "closed",
        ),
    )
    .toBe("closed");
  const asleep = (await (await request.get(`/builds/${buildId}`)).json()) as {
    status: string;
    preview_url: string | null;
    expires_at: string;
  };
  expect(asleep).toMatchObject({ status: "sleeping", preview_url: null, expires_at: running.expires_at });
  // The builds list says so too.
  await page.keyboard.press("Escape");
  // Closed: the console's own address again, before the build's is opened anew.
  await expect(page).toHaveURL(/\/builds$/);
  await expect(page.getByRole("row", { name: new RegExp(buildId.slice(0, 8)) }).getByText("sleeping")).toBeVisible();

  await page.goto(`/builds/${buildId}`);
  await drawer.getByRole("button", { name: "Wake" }).click();
  await expect(drawer.getByTestId("build-status")).toHaveText("running", { timeout: 60_000 });
  const openPreview = drawer.getByRole("link", { name: /Open preview/ });
  await expect(openPreview).toHaveAttribute("href", running.preview_url);
  // The preview answers again, in the browser as for a program.
  const previewPage = await page.context().newPage();
  await previewPage.goto(running.preview_url);
  await expect(previewPage.getByRole("heading", { name: `Preview of build ${buildId}` })).toBeVisible();
  await previewPage.close();
  const awake = (await (await request.get(`/builds/${buildId}`)).json()) as { status: string; expires_at: string };
  expect(awake).toMatchObject({ status: "running", expires_at: running.expires_at });
});
