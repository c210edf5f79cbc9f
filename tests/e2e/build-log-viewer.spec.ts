import fs from "node:fs";
import { apiUser, startApiBuild, waitForBuildStatus } from "./api";
import { expect, screenshotToLookAt, test } from "./fixtures";

/**
 * A stage's log as a person reads it on a phone: numbered lines, a search that counts the lines it
 * finds and steps through them, and the whole log to download. The search box keeps room to type in at
 * 320 px (it once shrank to a few letters beside the match count and the download link).
 */
test("a stage's log has line numbers, a search that steps through its lines, and a download of the whole log", {
  tag: "@builds",
}, async ({ page, request }) => {
  test.setTimeout(180_000);
  const owner = await apiUser(request, "log-viewer");
  // Fails in its test stage: no preview to hold a port, and an install log of three known lines.
  const buildId = await startApiBuild(request, owner.headers, ["broken"]);
  await waitForBuildStatus(request, buildId, "failed");

  await page.setViewportSize({ width: 320, height: 800 });
  await page.goto(`/builds/${buildId}`);
  const drawer = page.getByRole("dialog", { name: `Build ${buildId.slice(0, 8)}` });
  await drawer.getByTestId("stage-install").click();
  const log = drawer.getByTestId("stage-log");
  await expect(log.getByTestId("log-line")).toHaveText([
    "installing broken",
    "reading each module manifest and its dependencies, then copying the add-ons into the build path in order",
    "installed broken",
  ]);
  // The numbers stand beside the lines, outside their text (a copied passage is the log's own).
  await expect(log.locator("li > span[aria-hidden]")).toHaveText(["1", "2", "3"]);

  const search = drawer.getByRole("searchbox", { name: "Search the install log" });
  expect((await search.boundingBox())!.width, "the search box's width at 320 px").toBeGreaterThanOrEqual(150);
  await search.fill("INSTALL");
  const count = drawer.getByTestId("log-search-count");
  await expect(count).toHaveText("1 of 2 matching lines");
  await expect(log.locator('li[data-line="0"]')).toHaveClass(/bg-amber-400\/30/);
  await search.press("Enter");
  await expect(count).toHaveText("2 of 2 matching lines");
  await expect(log.locator('li[data-line="2"]')).toHaveClass(/bg-amber-400\/30/);
  await drawer.getByRole("button", { name: "Next match" }).click();
  await expect(count).toHaveText("1 of 2 matching lines");
  await search.fill("manifest");
  await expect(count).toHaveText("1 matching line");
  await search.fill("no such words");
  await expect(count).toHaveText("no match");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    drawer.getByRole("link", { name: "Download the whole log" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`build-${buildId}-install.log`);
  const raw = await (await request.get(`/builds/${buildId}/logs/raw?stage=install`)).text();
  // Every byte, colour codes and all: the file is the log as the stage wrote it.
  expect(raw).toContain("\u001b[32minstalled\u001b[0m broken");
  expect(fs.readFileSync((await download.path())!, "utf8")).toBe(raw);
});

/**
 * A search that finds the last line sets the log loose from its end, which shows "Jump to latest" over the
 * log's bottom right corner; the log keeps room under its last line for it, so no text is ever behind it.
 */
test("'Jump to latest' never covers the last line, at 320 and 1440 px", { tag: "@builds" }, async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const owner = await apiUser(request, "log-jump");
  // An install log longer than the box (3000 lines), ending with "installed verbose,broken"; no preview.
  const buildId = await startApiBuild(request, owner.headers, ["verbose", "broken"]);
  await waitForBuildStatus(request, buildId, "failed");

  for (const width of [320, 1440]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`/builds/${buildId}`);
    const drawer = page.getByRole("dialog", { name: `Build ${buildId.slice(0, 8)}` });
    await drawer.getByTestId("stage-install").click();
    const log = drawer.getByTestId("stage-log");
    const lastLine = log.locator("li").last();
    await expect(lastLine).toContainText("installed verbose,broken");
    // The log opens at its end; searching for its last line leaves it there and shows the button.
    await drawer.getByRole("searchbox", { name: "Search the install log" }).fill("installed verbose");
    await expect(drawer.getByTestId("log-search-count")).toHaveText("1 matching line");
    const jump = drawer.getByRole("button", { name: "Jump to latest" });
    await expect(jump).toBeVisible();
    await screenshotToLookAt(page, `jump-to-latest-${width}`);
    const button = (await jump.boundingBox())!;
    const line = (await lastLine.boundingBox())!;
    expect(button.y, `at ${width} px the button starts below the last line`).toBeGreaterThanOrEqual(
      line.y + line.height,
    );
  }
});
