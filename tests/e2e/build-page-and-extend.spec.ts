import { apiUser, waitForBuildStatus } from "./api";
import { expect, signInThroughHeader, test } from "./fixtures";

/**
 * A build's own address and its Extend, as a person uses them: /builds/{id} opened in the browser shows the
 * dashboard with that build open (JSON clients still get JSON), and Extend adds time, saying the new
 * expiry before it is confirmed, never leaving the build less time than it had.
 */
// A viewer west of UTC: the panel's moments must still read as the runner's log lines do, in UTC and saying so.
test.use({ timezoneId: "America/Caracas" });

test("a build's page opens the dashboard on it, and Extend adds time without ever shortening", {
  tag: "@builds",
}, async ({ page, request }) => {
  // A build to run, two dialogs and a phone-width check: more than two minutes on a busy machine.
  test.setTimeout(300_000);
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

  await page.goto("/builds");
  await signInThroughHeader(page, owner.email);
  await expect(page.getByRole("banner").getByRole("button", { name: "Sign out" })).toBeVisible();

  await page.goto(`/builds/${buildId}`);
  await expect(page).toHaveURL(new RegExp(`/builds\\?build=${buildId}$`));
  const drawer = page.getByRole("dialog", { name: `Build ${buildId.slice(0, 8)}` });
  await expect(drawer.getByTestId("build-status")).toHaveText("running");
  // A running build has been running since a moment; it has not "finished".
  await expect(drawer.getByText("Running since")).toBeVisible();
  await expect(drawer.getByText("Finished", { exact: true })).toHaveCount(0);

  // One time zone in the whole panel: the details and the runner's own log lines both in UTC, both saying so.
  const createdAt = new Date(((await data.json()) as { created_at: string }).created_at);
  const inUtc = createdAt.toLocaleString("en-US", {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZone: "UTC",
  });
  await expect(drawer.getByText(`${inUtc} UTC`, { exact: true }).first()).toBeVisible();
  await drawer.getByTestId("stage-healthcheck").click();
  await expect(drawer.getByTestId("stage-log").getByTestId("log-line").first()).toHaveText(
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC GET http:\/\//,
  );

  const expiryBefore = new Date(
    ((await (await request.get(`/builds/${buildId}`)).json()) as { expires_at: string }).expires_at,
  );

  // About an hour left; adding ten minutes must leave about seventy, not ten.
  await drawer.getByLabel("Time to add").selectOption("600");
  await drawer.getByRole("button", { name: "Extend…" }).click();
  const confirm = page.getByRole("dialog", { name: `Extend build ${buildId.slice(0, 8)} by 10 minutes?` });
  const spoken = (at: Date) =>
    at.toLocaleString("en-US", {
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZone: "UTC",
      timeZoneName: "short",
    });
  await expect(confirm.getByTestId("extend-current-expiry")).toContainText(spoken(expiryBefore));
  await expect(confirm.getByTestId("extend-new-expiry")).toContainText(
    spoken(new Date(expiryBefore.getTime() + 600_000)),
  );
  await expect(confirm.getByTestId("extend-new-expiry")).toContainText(/in 1 h \d\d min/);
  await confirm.getByRole("button", { name: "Extend by 10 minutes" }).click();
  await expect(confirm).toBeHidden();

  const expiryAfter = new Date(
    ((await (await request.get(`/builds/${buildId}`)).json()) as { expires_at: string }).expires_at,
  );
  expect(expiryAfter.getTime() - expiryBefore.getTime()).toBe(600_000);
  await expect(drawer.getByTestId("expiry-countdown")).toContainText(/1 h \d\d min/);

  // On a phone the log's lines wrap at spaces: a word or a number is cut only when it alone is wider than the log.
  await page.setViewportSize({ width: 320, height: 700 });
  await drawer.getByTestId("stage-install").click();
  const log = drawer.getByTestId("stage-log");
  await expect(log).toContainText("reading each module manifest and its dependencies");
  const midWordBreaks = await log.evaluate((element) => {
    const found: string[] = [];
    for (const line of element.querySelectorAll<HTMLElement>('[data-testid="log-line"]')) {
      const text = line.textContent ?? "";
      const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
      const characters: { node: Text; offset: number }[] = [];
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        for (let offset = 0; offset < node.length; offset++) characters.push({ node, offset });
      }
      const top = (index: number) => {
        const range = document.createRange();
        range.setStart(characters[index].node, characters[index].offset);
        range.setEnd(characters[index].node, characters[index].offset + 1);
        return range.getBoundingClientRect().top;
      };
      for (let i = 1; i < characters.length; i++) {
        if (top(i) <= top(i - 1) + 1) continue;
        // A new visual line starts at i: fine after a space, or inside a word too long for a line of its own.
        if (/\s/.test(text[i - 1]) || /\s/.test(text[i])) continue;
        const start = text.slice(0, i).search(/\S+$/);
        const end = i + (text.slice(i).match(/^\S+/)?.[0].length ?? 0);
        const range = document.createRange();
        range.setStart(characters[start].node, characters[start].offset);
        range.setEnd(characters[end - 1].node, characters[end - 1].offset + 1);
        const wordWidth = [...range.getClientRects()].reduce((sum, rect) => sum + rect.width, 0);
        if (wordWidth <= line.clientWidth) found.push(`${text.slice(Math.max(0, i - 12), i)}|${text.slice(i, i + 12)}`);
      }
    }
    return found;
  });
  expect(midWordBreaks, "log lines broken inside a word that fits on a line").toEqual([]);

  await request.delete(`/builds/${buildId}`, { headers: owner.headers });
});
