/**
 * Examples for the API description (/openapi.json, /docs): push events as the three hosts send them, trimmed
 * to what matters here. The GitHub one follows GitHub's documented push payload.
 */
const BEFORE = "6113728f27ae82c7b1a177c8d03f9e96e0adf246";
const AFTER = "59b20b8d5c6ff8d09518454d4dd8b7a30f095ab5";

export const hookExamples = {
  GitHubPush: {
    summary: "GitHub push (X-GitHub-Event: push, X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body>)",
    value: {
      ref: "refs/heads/feature/invoices",
      before: BEFORE,
      after: AFTER,
      created: false,
      deleted: false,
      forced: false,
      base_ref: null,
      compare: `https://github.com/acme/erp-addons/compare/6113728f27ae...59b20b8d5c6f`,
      commits: [
        {
          id: AFTER,
          tree_id: "f9d2a07e9488b91af2641b26b9407fe22a451433",
          distinct: true,
          message: "invoices: print the due date",
          timestamp: "2026-11-23T06:12:41-04:00",
          url: `https://github.com/acme/erp-addons/commit/${AFTER}`,
          author: { name: "Ana Pérez", email: "ana@example.com", username: "anaperez" },
          committer: { name: "Ana Pérez", email: "ana@example.com", username: "anaperez" },
          added: [],
          removed: [],
          modified: ["invoices/report.py"],
        },
      ],
      head_commit: {
        id: AFTER,
        message: "invoices: print the due date",
        timestamp: "2026-11-23T06:12:41-04:00",
        author: { name: "Ana Pérez", email: "ana@example.com", username: "anaperez" },
      },
      repository: { id: 1296269, name: "erp-addons", full_name: "acme/erp-addons", default_branch: "main" },
      pusher: { name: "anaperez", email: "ana@example.com" },
      sender: { login: "anaperez", id: 583231, type: "User" },
    },
  },
  GitHubBranchDeleted: {
    summary: "GitHub push deleting a branch (its automatic builds are destroyed)",
    value: {
      ref: "refs/heads/feature/invoices",
      before: AFTER,
      after: "0000000000000000000000000000000000000000",
      created: false,
      deleted: true,
      forced: false,
      commits: [],
      head_commit: null,
      repository: { id: 1296269, name: "erp-addons", full_name: "acme/erp-addons" },
      pusher: { name: "anaperez", email: "ana@example.com" },
      sender: { login: "anaperez", id: 583231, type: "User" },
    },
  },
  GitLabPush: {
    summary: "GitLab push (X-Gitlab-Event: Push Hook, X-Gitlab-Token: <the secret>)",
    value: {
      object_kind: "push",
      event_name: "push",
      before: BEFORE,
      after: AFTER,
      ref: "refs/heads/main",
      user_username: "anaperez",
      user_name: "Ana Pérez",
      project: { path_with_namespace: "acme/erp-addons", default_branch: "main" },
      total_commits_count: 1,
    },
  },
  GiteaPush: {
    summary: "Gitea or Forgejo push (X-Gitea-Event: push, X-Gitea-Signature: <hex HMAC-SHA256 of the body>)",
    value: {
      ref: "refs/heads/main",
      before: BEFORE,
      after: AFTER,
      repository: { full_name: "acme/erp-addons", default_branch: "main" },
      pusher: { login: "anaperez", full_name: "Ana Pérez" },
      sender: { login: "anaperez" },
    },
  },
};
