import { z } from "zod";
import { BUILD_STATUSES, STAGE_STATUSES } from "./status";

/**
 * The build service's request and response shapes: they validate requests and generate the OpenAPI
 * components (those with `.meta({ id })`). Wrong JSON types answer 400; the domain rules of POST /builds
 * (lib/builds/actions/create.ts), unknown fields included, answer 400.
 */
export const MAX_REPOSITORIES = 10;
export const MAX_MODULES = 100;
export const LOG_WINDOW_BYTES = 100_000;

export const buildRepositoryRequestSchema = z
  .strictObject({
    repository: z.string().describe("A configured repository alias"),
    ref: z.string().optional().describe("A branch, tag or full commit id; the repository's default_ref when omitted"),
  })
  .meta({ id: "BuildRepositoryRequest" });

export const createBuildSchema = z
  .strictObject({
    repositories: z.array(buildRepositoryRequestSchema).optional().describe(`1 to ${MAX_REPOSITORIES} repositories`),
    repository: z.string().optional().describe("Legacy form: one repository alias (not with `repositories`)"),
    ref: z.string().optional().describe("Legacy form: its ref"),
    modules: z.array(z.string()).describe(`1 to ${MAX_MODULES} module names`),
    ttl_seconds: z
      .number()
      .int()
      .optional()
      .describe("Within the configured bounds; the configured default when omitted")
      .meta({ example: 14400 }),
  })
  .meta({ id: "CreateBuild" });

export type CreateBuildInput = z.output<typeof createBuildSchema>;

const timestamp = z.iso.datetime().meta({ example: "2026-11-24T19:00:02.123Z" });

export const buildStageSchema = z
  .object({
    name: z
      .string()
      .describe("A stage of the build's runtime driver, e.g. checkout, install, test, start, healthcheck"),
    status: z.enum(STAGE_STATUSES),
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    duration_ms: z.number().int().nullable(),
    exit_code: z.number().int().nullable(),
    cached: z
      .boolean()
      .describe(
        "True when the stage restored an entry of the install cache instead of doing its work (runtime.install_cache: the install stage)",
      ),
    log_growing: z
      .boolean()
      .describe(
        "Whether the stage's log can still grow: the stage runs, or it is `start`, whose log is the runtime's own output while the runtime lives (follow it with GET /builds/{build_id}/logs/stream)",
      ),
  })
  .meta({ id: "BuildStage" });

export const buildRepositorySchema = z
  .object({
    repository: z.string(),
    ref: z.string(),
    commit_sha: z.string(),
    commit_subject: z
      .string()
      .nullable()
      .describe("The commit's subject line, from git; null for builds made before it was recorded"),
    commit_author: z.string().nullable().describe("The commit's author name, from git"),
    ref_reason: z
      .enum(["requested", "branch", "base", "default"])
      .nullable()
      .describe(
        "Why the build took this ref: requested (chosen when the build was made), branch (a bundle build's branch, which this repository has), base (that branch's base here: the longest branch it starts with, followed by `-`), default (this repository's default_ref); null for builds made before it was recorded",
      ),
  })
  .meta({ id: "BuildRepository" });

export const previewNameSchema = z
  .object({
    kind: z
      .enum(["build", "branch", "pull_request"])
      .describe(
        "build: this build only; branch and pull_request: the newest live build of it, across rebuilds and pushes",
      ),
    name: z.string().describe("A host name under the gateway's domain"),
    url: z.string(),
  })
  .meta({ id: "PreviewName" });

export const gatewayVerdictSchema = z
  .object({
    status: z.union([
      z.literal(200),
      z.literal(400),
      z.literal(401),
      z.literal(404),
      z.literal(410),
      z.literal(429),
      z.literal(503),
    ]),
    upstream: z.string().nullable().describe("With 200: the ip:port of the build's preview"),
    build_id: z.string().nullable(),
    detail: z.string().nullable().describe("Unless 200: what the gateway's page says"),
  })
  .meta({ id: "GatewayVerdict" });

export const BUILD_TRIGGERS = ["manual", "webhook", "poll", "rebuild"] as const;
export type BuildTrigger = (typeof BUILD_TRIGGERS)[number];
/** Triggers of automatic builds: they follow a branch and belong to the service. */
export const AUTOMATIC_TRIGGERS: readonly BuildTrigger[] = ["webhook", "poll"];

export const buildSummarySchema = z
  .object({
    build_id: z.string(),
    status: z.enum(BUILD_STATUSES),
    repositories: z.array(buildRepositorySchema),
    modules: z.array(z.string()),
    ttl_seconds: z.number().int(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp
      .nullable()
      .describe("When the build stopped working: it reached running, failed or was canceled"),
    expires_at: timestamp.nullable().describe("Null until the build reaches running: the time to live starts there"),
    queue_position: z.number().int().nullable().describe("1 for the next build to run; null unless queued"),
    preview_url: z
      .string()
      .nullable()
      .describe("Null unless running. With a gateway, the build's own name: https://<build_id>.<domain>/"),
    preview_names: z
      .array(previewNameSchema)
      .describe(
        "With a gateway (gateway: in the builds configuration), the names the preview is reached at: the build's own, and its first repository's branch or pull request's, which leads to the newest live build of it; empty without one",
      ),
    preview_access: z
      .enum(["public", "users"])
      .nullable()
      .describe(
        "With a gateway, who opens the preview through it: anyone (public), or people signed in to the dashboard and holders of a share link (users). The build's own choice (PATCH /builds/{build_id}; a new build starts with its branch's last choice), else its first repository's preview_access; null without a gateway",
      ),
    host: z
      .string()
      .nullable()
      .describe("The instance (INSTANCE_NAME) that claimed the build and runs its runtime; null while queued"),
    failure_stage: z
      .string()
      .nullable()
      .describe(
        "A stage name, `recovery` for a build a restart interrupted, or `wake` for a runtime that did not come back from sleep",
      ),
    failure_message: z.string().nullable(),
    created_by: z
      .string()
      .describe(
        "The display name of the user who asked for the build (never the email); `build service` for automatic builds",
      ),
    trigger: z
      .enum(BUILD_TRIGGERS)
      .describe("How the build was started: by hand, by a webhook, by polling, or as a rebuild"),
    triggered_by: z
      .string()
      .nullable()
      .describe(
        "Who started it: the user's display name, or for a webhook the pusher the payload names; null for polling",
      ),
    bundle: z
      .string()
      .nullable()
      .describe("For an automatic build of a bundle (bundles: in the builds configuration), the bundle's name"),
    branch: z
      .string()
      .nullable()
      .describe(
        "For an automatic build of a bundle, the branch (or pull request ref) that was pushed, which its repositories took or based their ref on",
      ),
    log_checks: z
      .object({
        errors: z.number().int().describe("Error lines (with their tracebacks) found in the stages' logs so far"),
        warnings: z.number().int().describe("Warning lines found in the stages' logs so far"),
      })
      .describe("What log_checks of the builds configuration found in the logs of the stages that ended"),
  })
  .meta({ id: "BuildSummary" });

export const forgeReportSchema = z
  .object({
    repository: z.string().describe("The repository whose git host was told"),
    kind: z.enum(["status", "comment"]).describe("A commit status, or the pull request's comment"),
    state: z
      .string()
      .describe(
        "The host's own word for what was reported: pending, running, success, failure, failed, error, canceled",
      ),
    description: z.string(),
    outcome: z.enum(["sent", "failed"]).describe("sent: the host took it; failed: it did not, after the retries"),
    attempts: z.number().int(),
    error: z.string().nullable().describe("Why the host did not take it (an HTTP status, a timeout); null when sent"),
    at: timestamp,
  })
  .meta({ id: "ForgeReport" });

export const buildSchema = buildSummarySchema
  .extend({
    stages: z.array(buildStageSchema).describe("The stages of the build's runtime driver, in order"),
    forge_reports: z
      .array(forgeReportSchema)
      .describe("What the build told the git hosts of its repositories (those with a `forge` block), oldest first"),
    viewer_can_change: z
      .boolean()
      .optional()
      .describe(
        "Whether the requester may cancel, destroy or extend the build (its creator or an admin); false without credentials. Absent from webhook answers",
      ),
  })
  .meta({ id: "Build" });

export const buildListSchema = z
  .object({
    builds: z.array(buildSummarySchema),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
  })
  .meta({ id: "BuildList" });

export const listBuildsQuerySchema = z.object({
  status: z.enum(BUILD_STATUSES).optional().describe("Only the builds in this status"),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Builds per page"),
  cursor: z.string().min(1).max(64).optional().describe("next_cursor of the previous page"),
});

// A well-formed name the build lacks answers 404; anything else (path tricks, capitals) is malformed: 400.
const stageParameter = z
  .string()
  .regex(/^[a-z][a-z_]{0,31}$/, "must be a stage name such as install")
  .describe("A stage of the build, as its `stages` name them (checkout, install, test, start, ...)")
  .meta({ example: "install" });

export const buildLogQuerySchema = z.object({
  stage: stageParameter.optional(),
  offset: z.coerce.number().int().min(0).optional().describe("The byte of the log to start from"),
});

export const buildLogStreamQuerySchema = z.object({ stage: stageParameter });

export const rawBuildLogQuerySchema = buildLogQuerySchema.pick({ stage: true });

export const buildLogSchema = z
  .object({
    build_id: z.string(),
    stage: z.string().nullable().describe("Null for all stages"),
    offset: z.number().int(),
    next_offset: z.number().int(),
    size: z.number().int(),
    content: z.string(),
    truncated: z.boolean().describe("True when bytes before `offset` were left out of a tail read"),
    complete: z.boolean().describe("True when the stage is over and the log will not grow"),
  })
  .meta({ id: "BuildLog" });

export const listBuildErrorsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe("Errors to list, the most recently seen first"),
});

export const buildErrorSchema = z
  .object({
    fingerprint: z.string().describe("The SHA-256 (first 32 hex digits) of the cleaned text"),
    cleaned: z
      .string()
      .describe(
        "The error's line and its traceback, without what differs between runs: numbers as <n>, hex ids as <hex>, dates as <date>, the build's folder as <build>",
      ),
    sample: z.string().describe("The newest occurrence as it was logged"),
    builds: z.number().int().describe("How many builds logged it"),
    branches: z.array(z.string()).describe("The branches of those builds, sorted"),
    first_seen: timestamp,
    last_seen: timestamp,
    on_base: z
      .boolean()
      .describe(
        "Whether a base branch has it too: one of its branches is a repository's default_ref, or the base of another of its branches (16.0 of 16.0-fix-sale)",
      ),
    build_ids: z.array(z.string()).describe("The newest builds that logged it, at most 10"),
  })
  .meta({ id: "BuildError" });

export const buildErrorListSchema = z.object({ errors: z.array(buildErrorSchema) }).meta({ id: "BuildErrorList" });

export type BuildErrorListView = z.infer<typeof buildErrorListSchema>;

/** Who may open a build's preview through the gateway (lib/builds/preview-access.ts). */
export const PREVIEW_ACCESS_LEVELS = ["public", "users"] as const;
export type PreviewAccess = (typeof PREVIEW_ACCESS_LEVELS)[number];

export const updateBuildSchema = z
  .strictObject({
    preview_access: z
      .enum(PREVIEW_ACCESS_LEVELS, { error: 'must be "public" or "users"' })
      .describe(
        "Who opens the build's preview through the gateway: anyone with its address (public), or people signed in to the dashboard and holders of a share link (users). Becomes its branch's choice: the branch's next builds start with it",
      )
      .meta({ example: "users" }),
  })
  .meta({ id: "UpdateBuild" });

export const rebuildBuildSchema = z
  .strictObject({
    install_cache: z
      .boolean()
      .default(true)
      .describe(
        "false: install afresh instead of restoring from the install cache (runtime.install_cache); the fresh install then replaces its key's entry",
      ),
  })
  .meta({ id: "RebuildBuild" });

export const extendBuildSchema = z
  .strictObject({
    ttl_seconds: z
      .number()
      .int()
      .positive()
      .describe(
        "Seconds added to the time the build has left; the new expiry is at most ttl.max_seconds from now, and never earlier than the current one",
      )
      .meta({ example: 3600 }),
  })
  .meta({ id: "ExtendBuild" });

export const hookParamsSchema = z.object({
  alias: z.string().describe("The alias of a repository of the builds configuration").meta({ example: "demo" }),
});

export const BRANCH_LIST_MAX = 500;

export const branchQuerySchema = z.object({
  q: z
    .string()
    .max(255)
    .optional()
    .describe("Only branches whose name holds this text (any case)")
    .meta({ example: "feature/" }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(BRANCH_LIST_MAX)
    .default(100)
    .describe(`At most this many branches (1-${BRANCH_LIST_MAX})`),
});

export const branchListSchema = z
  .object({
    repository: z.string(),
    default_ref: z.string(),
    branches: z
      .array(z.object({ name: z.string(), commit_sha: z.string() }))
      .describe("The default ref's branch first, then those whose name starts with `q`, then the others, by name"),
    truncated: z.boolean().describe("Whether more branches matched than `limit`"),
  })
  .meta({ id: "BranchList" });

export const hookResultSchema = z
  .object({
    result: z
      .enum(["started", "pending", "nothing_to_do", "destroying", "pong", "already_processed"])
      .describe(
        "started: a build was queued; pending: the queue is full, the commit is remembered and built when there is room; " +
          "destroying: the branch was deleted, or the pull request closed, and its automatic builds are being destroyed; " +
          "already_processed: a redelivery of a delivery id taken in before, not acted on again",
      ),
    detail: z.string(),
    repository: z.string(),
    branch: z
      .string()
      .nullable()
      .describe("The branch, or for a pull request the ref its head is fetched from (refs/pull/7/head)"),
    pull_request: z.number().int().nullable().describe("The pull or merge request's number, for its events"),
    commit_sha: z.string().nullable(),
    build: buildSchema.nullable().describe("The build started"),
    build_ids: z
      .array(z.string())
      .describe("The builds concerned: the one started or already made for this commit, or those destroyed"),
  })
  .meta({ id: "HookResult" });

export type HookResultView = z.infer<typeof hookResultSchema>;

export const buildIdParamsSchema = z.object({
  build_id: z.string().describe("The build's id").meta({ example: "3f9a1c2b7d4e5f60" }),
});

export const appConfigSchema = z
  .object({
    version: z.string(),
    repositories: z.array(
      z.object({
        alias: z.string(),
        default_ref: z.string(),
        allow_request_ref: z.boolean(),
        priority: z.number().int(),
        ready: z.boolean(),
        modules: z.array(z.string()).describe("At the default ref; empty while the repository is not ready"),
        auto_build: z
          .object({
            branches: z.array(z.string()).describe("Globs of the branches built automatically"),
            modules: z.union([z.literal("all"), z.array(z.string())]),
            ttl_seconds: z.number().int(),
            webhook: z.boolean().describe("Whether POST /hooks/{alias} is accepted (a secret is configured)"),
            watch_interval_seconds: z.number().nullable().describe("Polling interval; null when not polled"),
          })
          .nullable()
          .describe("The branches followed by automatic builds; null when none are"),
      }),
    ),
    ttl: z.object({
      default_seconds: z.number().int(),
      min_seconds: z.number().int(),
      max_seconds: z.number().int(),
      choices: z.array(z.number().int()),
    }),
    max_concurrent_builds: z.number().int(),
    runtime: z
      .object({
        driver: z.string().describe("process (commands on the host) or compose (a Docker Compose project per build)"),
        ready: z.boolean().describe("False when builds cannot run now; POST /builds then answers 503"),
        reason: z.string().nullable().describe("Why the runtime is not ready; null when it is"),
        stages: z.array(z.string()).describe("The stages a new build goes through, in order"),
      })
      .meta({ id: "RuntimeStatus" }),
    max_repositories: z.number().int(),
    max_modules: z.number().int(),
  })
  .meta({ id: "AppConfig" });

export type BuildView = z.infer<typeof buildSchema>;
export type BuildSummaryView = z.infer<typeof buildSummarySchema>;
export type BuildLogView = z.infer<typeof buildLogSchema>;
export type AppConfigView = z.infer<typeof appConfigSchema>;

/**
 * The fields of a push event POST /hooks/{alias} reads (GitHub, GitLab and Gitea/Forgejo send these names);
 * the rest of the payload is ignored. Only for the API description: the body is read after its signature.
 */
export const pushEventSchema = z
  .looseObject({
    ref: z.string().describe("refs/heads/<branch>; other refs (tags) start nothing"),
    after: z.string().describe("The branch's new commit; all zeros when the branch was deleted"),
    before: z.string().optional(),
    deleted: z.boolean().optional().describe("GitHub and Gitea: true when the branch was deleted"),
    pusher: z.looseObject({ name: z.string().optional(), login: z.string().optional() }).optional(),
    user_username: z.string().optional().describe("GitLab: who pushed"),
  })
  .meta({ id: "PushEvent" });
