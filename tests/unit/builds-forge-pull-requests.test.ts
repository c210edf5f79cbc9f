import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ForgeConfig } from "@/lib/builds/config";
import { listOpenPullRequests } from "@/lib/builds/forge/pull-requests";
import { type ForgeServer, startForgeServer } from "../support/forge-server";
import { listedPullRequest } from "../support/pull-requests";

// Listing a repository's open pull requests page by page (polling), against a loopback stand-in of each
// host's API: every page is read, and a listing that fails or does not end is reported as such, never as a
// shorter list (which polling would take as pull requests closed).
const TOKEN_ENV = "FORGE_LIST_TEST_TOKEN";
let server: ForgeServer;
beforeAll(async () => {
  process.env[TOKEN_ENV] = "list-t0ken";
  server = await startForgeServer();
});
afterAll(async () => {
  delete process.env[TOKEN_ENV];
  await server?.close();
});

const forge = (kind: ForgeConfig["kind"], project: string): ForgeConfig => ({
  kind,
  api_url: server.url,
  project,
  token_env: TOKEN_ENV,
  context: "ci",
  comment: false,
  build_forks: false,
  timeout_seconds: 5,
  retries: 0,
});
const sha = (n: number) => n.toString(16).padStart(40, "0");

/** Serves `total` open pull requests at `path`, `size` a page, as the host pages them. */
function serveOpen(
  host: "github" | "gitlab" | "gitea",
  path: string,
  total: number,
  size: number,
  sizeParameter: string,
) {
  server.serve(path, (query) => {
    expect(query.get(sizeParameter)).toBe(String(size));
    const page = Number(query.get("page"));
    const numbers = Array.from({ length: total }, (_, index) => index + 1).slice((page - 1) * size, page * size);
    return {
      status: 200,
      body: numbers.map((number) => listedPullRequest(host, number, sha(number), { fork: number % 10 === 0 })),
    };
  });
}

describe("listOpenPullRequests", () => {
  it("GitHub: reads every page of 100, with each one's head and whether it comes from a fork", async () => {
    serveOpen("github", "/repos/acme/hub/pulls", 150, 100, "per_page");
    const listed = await listOpenPullRequests(forge("github", "acme/hub"));
    expect(listed.ok).toBe(true);
    if (!listed.ok) return;
    expect(listed.pulls).toHaveLength(150);
    expect(listed.pulls[41]).toEqual({
      number: 42,
      headSha: sha(42),
      fromFork: false,
      sourceBranch: "feature/invoices",
    });
    expect(listed.pulls[39]).toEqual({
      number: 40,
      headSha: sha(40),
      fromFork: true,
      sourceBranch: "feature/invoices",
    });
    const asked = server.requests.filter((request) => request.path === "/repos/acme/hub/pulls");
    expect(asked.map((request) => [request.method, request.query.get("state"), request.query.get("page")])).toEqual([
      ["GET", "open", "1"],
      ["GET", "open", "2"],
    ]);
    expect(asked[0].headers.authorization).toBe("Bearer list-t0ken");
  });

  it("Gitea: pages of 50 (`limit`); GitLab: merge requests by iid, `state=opened`, the project's id or path encoded", async () => {
    serveOpen("gitea", "/repos/acme/tea/pulls", 50, 50, "limit");
    const tea = await listOpenPullRequests(forge("gitea", "acme/tea"));
    expect(tea.ok && tea.pulls.length).toBe(50);
    // A full last page asks for one more, which is empty.
    expect(
      server.requests
        .filter((request) => request.path === "/repos/acme/tea/pulls")
        .map((request) => request.query.get("page")),
    ).toEqual(["1", "2"]);

    serveOpen("gitlab", "/projects/group%2Flab/merge_requests", 3, 100, "per_page");
    const lab = await listOpenPullRequests(forge("gitlab", "group/lab"));
    expect(lab).toEqual({
      ok: true,
      pulls: [1, 2, 3].map((number) => ({
        number,
        headSha: sha(number),
        fromFork: false,
        sourceBranch: "feature/invoices",
      })),
    });
    expect(server.requests.at(-1)!.query.get("state")).toBe("opened");
  });

  it("a host that fails, answers something else than a list, or has more pages than are read: not ok, never a shorter list", async () => {
    server.serve("/repos/acme/down/pulls", () => ({ status: 503, body: { message: "maintenance" } }));
    expect(await listOpenPullRequests(forge("github", "acme/down"))).toEqual({
      ok: false,
      error: expect.stringContaining("HTTP 503: maintenance"),
    });

    server.serve("/repos/acme/odd/pulls", () => ({ status: 200, body: { message: "not a list" } }));
    expect(await listOpenPullRequests(forge("github", "acme/odd"))).toEqual({
      ok: false,
      error: "page 1 of the open pull requests is not a JSON list",
    });

    serveOpen("gitea", "/repos/acme/busy/pulls", 600, 50, "limit");
    expect(await listOpenPullRequests(forge("gitea", "acme/busy"))).toEqual({
      ok: false,
      error: "more than 500 open pull requests: the listing stops there",
    });
  });
});
