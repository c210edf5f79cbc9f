import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { git, type Remote } from "./auto-builds";

/**
 * Pull and merge requests as the hosts publish them: a commit on top of main, pushed to the ref where the
 * host keeps the request's head, and the webhook payloads the hosts document (trimmed to their usual fields;
 * what the service ignores is there so that it is seen to be ignored).
 */
export function pushPullRequestHead(remote: Remote, ref: string, subject: string): string {
  git(remote.work, "checkout", "--quiet", "--detach", "origin/main");
  const file = path.join(remote.work, "notes", `${crypto.randomUUID()}.txt`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, subject);
  git(remote.work, "add", ".");
  git(remote.work, "commit", "--quiet", "-m", subject);
  const sha = git(remote.work, "rev-parse", "HEAD");
  git(remote.work, "push", "--quiet", "--force", "origin", `HEAD:${ref}`);
  return sha;
}

const REPOSITORY = {
  id: 1296269,
  name: "hub",
  full_name: "acme/hub",
  fork: false,
  default_branch: "main",
  owner: { login: "acme", id: 1 },
};

/** GitHub's `pull_request` event (X-GitHub-Event: pull_request). */
export function githubPullRequest(action: string, number: number, headSha: string, options: { merged?: boolean } = {}) {
  return {
    action,
    number,
    pull_request: {
      id: 1_000_000 + number,
      number,
      state: action === "closed" ? "closed" : "open",
      title: "Invoices: print the due date",
      user: { login: "anaperez", id: 583231 },
      merged: options.merged ?? false,
      head: { label: "acme:feature/invoices", ref: "feature/invoices", sha: headSha, repo: REPOSITORY },
      base: { label: "acme:main", ref: "main", sha: "6113728f27ae82c7b1a177c8d03f9e96e0adf246", repo: REPOSITORY },
    },
    ...(action === "synchronize" ? { before: "6113728f27ae82c7b1a177c8d03f9e96e0adf246", after: headSha } : {}),
    repository: REPOSITORY,
    sender: { login: "anaperez", id: 583231, type: "User" },
  };
}

/** GitLab's merge request event (X-Gitlab-Event: Merge Request Hook). `oldrev` is sent on updates that push commits. */
export function gitlabMergeRequest(
  action: string,
  iid: number,
  lastCommit: string,
  options: { oldrev?: string | null } = {},
) {
  const project = { id: 15, name: "lab", path_with_namespace: "acme/lab", default_branch: "main" };
  const oldrev =
    options.oldrev === undefined
      ? action === "update"
        ? "6113728f27ae82c7b1a177c8d03f9e96e0adf246"
        : null
      : options.oldrev;
  return {
    object_kind: "merge_request",
    event_type: "merge_request",
    user: { id: 1, name: "Ana Pérez", username: "anaperez" },
    project,
    object_attributes: {
      id: 99,
      iid,
      title: "Invoices: print the due date",
      state: action === "merge" ? "merged" : action === "close" ? "closed" : "opened",
      action,
      source_branch: "feature/invoices",
      target_branch: "main",
      source_project_id: 15,
      target_project_id: 15,
      last_commit: { id: lastCommit, message: "invoices: print the due date" },
      ...(oldrev ? { oldrev } : {}),
    },
    repository: { name: "lab", homepage: "https://gitlab.example.com/acme/lab" },
  };
}

/** Gitea's and Forgejo's `pull_request` event (X-Gitea-Event: pull_request). */
export function giteaPullRequest(action: string, number: number, headSha: string) {
  const repository = {
    id: 7,
    name: "tea",
    full_name: "acme/tea",
    fork: false,
    owner: { login: "acme", username: "acme" },
  };
  return {
    action,
    number,
    pull_request: {
      id: 30 + number,
      number,
      state: action === "closed" ? "closed" : "open",
      title: "Invoices: print the due date",
      merged: false,
      head: { label: "feature/invoices", ref: "feature/invoices", sha: headSha, repo_id: 7, repo: repository },
      base: {
        label: "main",
        ref: "main",
        sha: "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
        repo_id: 7,
        repo: repository,
      },
    },
    repository,
    sender: { id: 3, login: "anaperez", username: "anaperez" },
  };
}

/**
 * An open pull request as the hosts list them (GitHub and Gitea GET /repos/{o}/{r}/pulls?state=open, GitLab
 * GET /projects/{id}/merge_requests?state=opened), trimmed to their usual fields. `fork`: the head lives in
 * another repository (GitLab: another project).
 */
export function listedPullRequest(
  host: "github" | "gitlab" | "gitea",
  number: number,
  headSha: string,
  options: { fork?: boolean } = {},
) {
  const fork = options.fork ?? false;
  if (host === "gitlab") {
    return {
      id: 500 + number,
      iid: number,
      project_id: 15,
      title: "Invoices: print the due date",
      state: "opened",
      source_branch: "feature/invoices",
      target_branch: "main",
      source_project_id: fork ? 4242 : 15,
      target_project_id: 15,
      author: { id: 1, username: "anaperez", name: "Ana Pérez" },
      sha: headSha,
      draft: false,
      web_url: `https://gitlab.example.com/acme/lab/-/merge_requests/${number}`,
    };
  }
  const base =
    host === "github"
      ? REPOSITORY
      : { id: 7, name: "tea", full_name: "acme/tea", fork: false, owner: { login: "acme" } };
  const headRepo = fork
    ? { id: 4242, name: base.name, full_name: `stranger/${base.name}`, fork: true, owner: { login: "stranger" } }
    : base;
  return {
    id: 1_000_000 + number,
    number,
    state: "open",
    title: "Invoices: print the due date",
    user: { login: "anaperez", id: 583231 },
    draft: false,
    head: {
      label: `${headRepo.owner.login}:feature/invoices`,
      ref: "feature/invoices",
      sha: headSha,
      repo: headRepo,
      ...(host === "gitea" ? { repo_id: headRepo.id } : {}),
    },
    base: {
      label: "acme:main",
      ref: "main",
      sha: "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
      repo: base,
      ...(host === "gitea" ? { repo_id: base.id } : {}),
    },
  };
}
