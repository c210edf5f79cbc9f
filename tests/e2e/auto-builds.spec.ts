import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import { expect, registerThroughHeader, test } from "./fixtures";

/**
 * Automatic builds in the dashboard: a push to a followed branch (auto/*) with a signed GitHub webhook makes a
 * build marked as automatic, with its commit's subject and author; the drawer rebuilds it and extends the
 * rebuild, which belongs to the person who asked.
 */
function pushBranch(branch: string, subject: string): string {
  const repository = process.env.E2E_DEMO_REPO;
  if (!repository) throw new Error("E2E_DEMO_REPO is not set: run the specs through playwright.config.ts.");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Ana Pérez", "-c", "user.email=ana@example.com", ...args], {
      cwd: repository,
      encoding: "utf8",
    }).trim();
  // A commit on main's tree, made and named without a checkout: builds of other specs clone this repository
  // meanwhile, and its work tree stays on main.
  const sha = git("commit-tree", "main^{tree}", "-p", "main", "-m", subject);
  git("update-ref", `refs/heads/${branch}`, sha);
  return sha;
}

test("a webhook push shows up as an automatic build, and the drawer rebuilds and extends", { tag: "@builds" }, async ({
  page,
  baseURL,
}) => {
  const branch = `auto/e2e-${crypto.randomUUID().slice(0, 8)}`;
  const subject = `Invoices: print the due date ${branch.slice(-8)}`;
  const sha = pushBranch(branch, subject);
  const body = JSON.stringify({
    ref: `refs/heads/${branch}`,
    after: sha,
    deleted: false,
    pusher: { name: "anaperez" },
  });
  const signature = crypto.createHmac("sha256", process.env.E2E_WEBHOOK_SECRET!).update(body).digest("hex");
  const delivered = await fetch(new URL("/hooks/demo", baseURL), {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-GitHub-Event": "push",
      "X-Hub-Signature-256": `sha256=${signature}`,
    },
    body,
  });
  expect(delivered.status).toBe(202);

  await page.goto("/builds");
  await registerThroughHeader(page);
  await expect(page.getByTestId("followed-branches")).toContainText("auto/*");
  const row = page.getByTestId("build-row").filter({ hasText: subject });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("build-trigger")).toHaveText("auto · webhook");
  await expect(row).toContainText("Ana Pérez");

  await row.getByRole("link").first().click();
  const drawer = page.getByRole("dialog", { name: /^Build / });
  await expect(drawer.getByTestId("build-origin")).toHaveText("Webhook, pushed by anaperez");
  await expect(drawer.getByTestId("commit-subject")).toContainText(subject);
  await expect(drawer.getByTestId("build-status")).toHaveText("running", { timeout: 60_000 });

  await drawer.getByRole("button", { name: "Rebuild" }).click();
  await expect(drawer.getByTestId("build-trigger")).toHaveText("rebuild");
  await expect(drawer.getByTestId("build-origin")).toContainText("Rebuild by");
  await expect(drawer.getByTestId("build-status")).toHaveText("running", { timeout: 60_000 });
  await drawer.getByLabel("Time to add").selectOption("86400");
  await drawer.getByRole("button", { name: "Extend…" }).click();
  await page
    .getByRole("dialog", { name: /^Extend build/ })
    .getByRole("button", { name: "Extend by 1 day" })
    .click();
  // A day from now: the countdown shows hours.
  await expect(drawer.getByTestId("expiry-countdown")).toContainText(/2[34] ?h|1 ?d/);
});
