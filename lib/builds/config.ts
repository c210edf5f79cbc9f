import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import picomatch from "picomatch";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { getEnv, readNamedVariable } from "../server/env";
import { processWide } from "../server/process-wide";
import { DEFAULT_ERROR_PATTERNS, DEFAULT_WARNING_PATTERNS } from "./logs/log-checks";
import { COMPOSE_SERVICE_PATTERN, MODULE_NAME_PATTERN, REPOSITORY_ALIAS_PATTERN, refProblem } from "./names";
import { unknownVariables } from "./runtime/drivers/compose-template";

/**
 * The operator's description of the build service (BUILDS_CONFIG, a YAML file). Validated once at start:
 * an invalid file stops the start with a message naming the key (`builds.config.yaml: ttl.min_seconds: ...`).
 * Relative paths and repository URLs are resolved against the file's folder, so `url: .` is the folder of
 * the configuration itself.
 */

const positiveSeconds = z.number().positive("must be a positive number of seconds");
const wholeSeconds = z.number().int("must be a whole number of seconds").positive("must be positive");
const port = z
  .number()
  .int("must be an integer")
  .min(1024, "must be at least 1024")
  .max(65535, "must be at most 65535");
const perUserLimit = z.number().int("must be a whole number of builds").min(1, "must be at least 1");
const command = z.string().trim().min(1, "must be a non-empty shell command").optional();
// Below 1000 are root and the system's users; above 2147483646, uids that some programs take for negative.
const uid = z
  .number()
  .int("must be an integer")
  .min(1000, "must be at least 1000")
  .max(2147483646, "must be at most 2147483646");

// A command inside a Compose service: argv, never a shell string; ${NAME} are the build's values (see COMPOSE_VARIABLES).
const composeCommandSchema = z.strictObject({
  service: z
    .string()
    .regex(COMPOSE_SERVICE_PATTERN, `must match ${COMPOSE_SERVICE_PATTERN}`)
    .describe("The Compose service the command runs in."),
  mode: z
    .enum(["run", "exec"])
    .default("run")
    .describe("run: in a one-off container (`compose run --rm`); exec: inside the service's running container."),
  command: z
    .array(z.string())
    .min(1, "must name the program to run")
    .superRefine((args, ctx) => {
      for (const problem of unknownVariables(args.join(" "))) ctx.addIssue({ code: "custom", message: problem });
    })
    .describe(
      "The program and its arguments (argv, never a shell string); ${NAME} are the build's values, such as ${DATABASE}, ${MODULES} and ${CONTAINER_ADDONS_PATH}.",
    ),
});

// A Compose one must be of mode run (checked below): the entry's folder is mounted into a one-off container.
const cacheCommand = z.union([z.string().trim().min(1, "must be a non-empty shell command"), composeCommandSchema], {
  error: "must be a shell command (driver process) or { service, command } (driver compose)",
});

/**
 * An install saved once and restored by later builds of the same modules (lib/builds/install-cache): the entries
 * live per builder host under builds_root, keyed by what the install reads.
 */
const installCacheSchema = z.strictObject({
  save: cacheCommand.describe(
    "Runs after a successful install that no entry held yet, with CACHE_DIR set to a fresh folder it fills (the database dump, the filestore); the server then seals it read-only. A shell command for the process driver, a Compose service command for compose.",
  ),
  restore: cacheCommand.describe(
    "Runs instead of the install when an entry of the build's key exists, with CACHE_DIR set to that entry's folder (read-only). If it fails, the build falls back to a full install.",
  ),
  max_entries: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .default(5)
    .describe("How many entries each builder host keeps; past it the least recently used goes."),
  max_age_days: z
    .number()
    .positive("must be a positive number of days")
    .default(30)
    .describe("An entry not restored nor saved for this many days is removed."),
  key_extra: z
    .string()
    .default("")
    .describe(
      'Text added to every key, for what changes an install that the modules\' files do not show (e.g. "demo=false"); change it to start afresh.',
    ),
});

const composeSchema = z.strictObject({
  template: z
    .string()
    .trim()
    .min(1, "must be the path of a Compose file")
    .describe(
      "The Compose file of a build, relative to this file's folder: ordinary Compose YAML whose ${NAME} variables (BUILD_ID, PORT, SOURCES, DATABASE, ...) are filled in per build.",
    ),
  cli: z
    .enum(["auto", "docker compose", "docker-compose"])
    .default("auto")
    .describe("Which client runs Compose: auto detects `docker compose` (v2), else `docker-compose` (v1)."),
  sources_mount: z
    .string()
    .startsWith("/", "must be an absolute path inside the containers")
    .default("/mnt/sources")
    .describe(
      "Where the template mounts the build's sources folder (${SOURCES}) inside the containers; CONTAINER_ADDONS_PATH lies below it.",
    ),
  database_service: z
    .string()
    .regex(COMPOSE_SERVICE_PATTERN)
    .optional()
    .describe("The service the database stage starts and waits for until it is healthy; unset: the stage is skipped."),
  web_service: z
    .string()
    .regex(COMPOSE_SERVICE_PATTERN)
    .default("web")
    .describe("The service that publishes the preview on ${PORT}: the runtime is alive while it runs."),
  install: composeCommandSchema.optional().describe("The install stage: a command in one of the template's services."),
  test: composeCommandSchema.optional().describe("The test stage: a command whose non-zero exit fails the build."),
  stop_timeout_seconds: z
    .number()
    .int()
    .min(0)
    .max(300)
    .default(5)
    .describe("Seconds the containers get to stop on `down` before they are killed."),
});

// The git host the repository lives on: build statuses go to its commits, pull request events come
// from it. The token is never in this file: token_env names the environment variable that holds it.
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The shortest X-Preview-Bypass secret accepted at start. */
export const MIN_BYPASS_SECRET_LENGTH = 32;
export const FORGE_KINDS = ["github", "gitlab", "gitea"] as const;
export type ForgeKind = (typeof FORGE_KINDS)[number];
/** Where each host's API is when api_url is not given; Gitea and Forgejo are always self-hosted. */
const DEFAULT_API_URLS: Record<ForgeKind, string | null> = {
  github: "https://api.github.com",
  gitlab: "https://gitlab.com/api/v4",
  gitea: null,
};

const forgeSchema = z
  .strictObject({
    kind: z
      .enum(FORGE_KINDS, { error: 'must be "github", "gitlab" or "gitea" (Forgejo speaks Gitea\'s API)' })
      .describe("The git host's kind: github, gitlab, or gitea (Forgejo speaks Gitea's API)."),
    api_url: z
      .url({
        protocol: /^https?$/,
        error: "must be the http(s) address of the host's API, e.g. https://gitea.example.com/api/v1",
      })
      .optional()
      .describe(
        "The host's API. Unset: https://api.github.com or https://gitlab.com/api/v4; required with gitea (e.g. https://gitea.example.com/api/v1).",
      ),
    project: z
      .string()
      .trim()
      .min(1, "must name the project: owner/name, or GitLab's id or path")
      .max(300)
      .describe("GitHub and Gitea: owner/name; GitLab: the project's numeric id or its path (group/name)."),
    token_env: z
      .string()
      .regex(ENV_NAME, "must be an environment variable name (the token itself never goes in this file)")
      .describe(
        "The environment variable holding the host's API token (the token itself never goes in this file); it must be set at start.",
      ),
    context: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .default("bcv-runbot/preview")
      .describe("The name of the commit status the builds report."),
    comment: z
      .boolean()
      .default(false)
      .describe("One comment on each pull request with its preview's link and state, edited in place."),
    build_forks: z
      .boolean()
      .default(false)
      .describe("Build pull requests from forks too. They run anyone's code: only with trusted contributors."),
    timeout_seconds: positiveSeconds.max(120).default(10).describe("How long one call to the host's API may take."),
    retries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(3)
      .describe("How often a call that timed out or got a 5xx is tried again."),
  })
  .transform((forge, ctx) => {
    const apiUrl = forge.api_url ?? DEFAULT_API_URLS[forge.kind];
    if (apiUrl === null) {
      ctx.addIssue({
        code: "custom",
        path: ["api_url"],
        message: `is required with kind ${forge.kind} (e.g. https://gitea.example.com/api/v1)`,
      });
      return z.NEVER;
    }
    if (forge.kind !== "gitlab" && !/^[^/\s]+\/[^/\s]+$/.test(forge.project)) {
      ctx.addIssue({ code: "custom", path: ["project"], message: "must be owner/name" });
      return z.NEVER;
    }
    return { ...forge, api_url: apiUrl.replace(/\/+$/, "") };
  });

export type ForgeConfig = z.output<typeof forgeSchema>;

// The front door of the previews (lib/gateway): every build's preview under one wildcard domain of its own.
const DNS_NAME = /^(?=.{1,189}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const gatewaySchema = z
  .strictObject({
    // 189 characters at most, so that a 63-character name below it stays within DNS's 253.
    domain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(DNS_NAME, "must be a DNS name of two labels or more, such as preview.example.com (at most 189 characters)")
      .describe(
        "The wildcard domain of the previews: a build is <build_id>.<domain>, a branch's newest <branch>--<alias>.<domain>.",
      ),
    scheme: z
      .enum(["http", "https"], { error: 'must be "http" or "https"' })
      .default("http")
      .describe("The scheme of the previews' links: https when TLS ends in front of the gateway."),
    port: z
      .number()
      .int("must be an integer")
      .min(1)
      .max(65535)
      .optional()
      .describe("The port people reach the gateway at; unset: the scheme's (80 or 443), left out of the links."),
    wakes_per_hour: z
      .number()
      .int("must be a whole number")
      .min(0)
      .max(1000)
      .default(6)
      .describe("How many sleeping previews one client address may wake per hour by visiting them."),
  })
  .transform((gateway) => ({ ...gateway, port: gateway.port ?? (gateway.scheme === "https" ? 443 : 80) }));

export type GatewayConfig = z.output<typeof gatewaySchema>;

const repositorySchema = z.strictObject({
  alias: z
    .string()
    .regex(REPOSITORY_ALIAS_PATTERN, `must match ${REPOSITORY_ALIAS_PATTERN}`)
    .describe(
      "The repository's name in requests (`repositories: [{alias, ref}]`), in its checkout's folder and in the gateway's branch names.",
    ),
  url: z
    .string()
    .trim()
    .min(1, "must be a local path or a git URL")
    .describe(
      "Where it is cloned from: a URL git understands (https, ssh, file, user@host:path) or a local path, relative to this file's folder.",
    ),
  default_ref: z
    .string()
    .default("main")
    .superRefine((ref, ctx) => {
      const problem = refProblem(ref);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .describe("The branch, tag or commit built when a request names no ref."),
  allow_request_ref: z
    .boolean()
    .default(true)
    .describe("Whether a request may name another ref than default_ref; false: only default_ref is built."),
  priority: z
    .number()
    .int("must be an integer")
    .default(10)
    .describe(
      "The order of the repositories in ADDONS_PATH (lowest first, then by alias); the first one's checkout is where the stage commands run.",
    ),
  modules_path: z
    .string()
    .default(".")
    .refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes(".."), "must be a path inside the repository")
    .describe("The folder inside the repository that holds the modules, one folder each; it goes into ADDONS_PATH."),
  module_manifest: z
    .string()
    .default("__manifest__.py")
    .refine((name) => /^[^/\\]+$/.test(name) && name !== "." && name !== "..", "must be a file name")
    .describe(
      "The file that makes a folder of modules_path a module: a requested module without it is refused before anything runs.",
    ),
  auto_build: z
    .strictObject({
      branches: z
        .array(z.string().trim().min(1, "must be a non-empty glob such as main or feature/*"))
        .min(1, "must list at least one branch glob")
        .describe("Globs of the branches followed: `*` stays within one path segment, `**` crosses them."),
      modules: z
        .union(
          [
            z.literal("all"),
            z
              .array(z.string().regex(MODULE_NAME_PATTERN, `must match ${MODULE_NAME_PATTERN}`))
              .min(1, "must list at least one module"),
          ],
          { error: 'must be "all" or a list of module names' },
        )
        .default("all")
        .describe('The modules an automatic build installs: "all" (every module of modules_path) or a list of names.'),
      ttl_seconds: wholeSeconds
        .optional()
        .describe(
          "The time to live of an automatic build, within ttl.min_seconds and ttl.max_seconds; unset: ttl.default_seconds.",
        ),
      pull_requests: z
        .boolean()
        .default(true)
        .describe("Follow pull and merge requests too: their head commit is built as a preview of the request."),
    })
    .optional()
    .describe(
      "Automatic builds: a new head of a followed branch (by webhook or by polling) is built, and replaces that branch's previous build.",
    ),
  forge: forgeSchema
    .optional()
    .describe(
      "The git host the repository lives on: build statuses go to its commits, pull request events come from it.",
    ),
  webhook_secret: z
    .string()
    .min(1, "must not be empty")
    .optional()
    .describe("The secret the git host signs its webhooks (POST /hooks/<alias>) with; unset: webhooks are refused."),
  webhook_secret_env: z
    .string()
    .regex(ENV_NAME, "must be an environment variable name")
    .optional()
    .describe("Or the environment variable holding that secret (it must be set at start), not both."),
  watch_interval_seconds: positiveSeconds
    .optional()
    .describe(
      "Fetch the repository on this interval and build new heads of followed branches, for hosts that cannot call this service; needs auto_build.",
    ),
  preview_access: z
    .enum(["public", "users"], { error: 'must be "public" or "users"' })
    .default("public")
    .describe(
      "Who opens this repository's previews through the gateway: public, anyone who has the address; users, only people signed in (and holders of a share link, and tests with the bypass secret), who alone also see its builds and logs in the API.",
    ),
  preview_bypass_secret_env: z
    .string()
    .regex(ENV_NAME, "must be an environment variable name")
    .optional()
    .describe(
      "The environment variable holding the secret (32 characters or more) that automated tests send in X-Preview-Bypass to open a private preview without signing in; 10 wrong secrets a minute from one address are answered 429.",
    ),
});

const logPattern = z.string().superRefine((pattern, ctx) => {
  try {
    new RegExp(pattern);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `is not a valid regular expression: ${(error as Error).message}` });
  }
});

const logChecksSchema = z
  .strictObject({
    errors: z
      .array(logPattern)
      .default(DEFAULT_ERROR_PATTERNS)
      .describe(
        "Regular expressions (JavaScript) of a log line that is an error; each error takes the lines after it (its traceback) until the next log record. By default Odoo's ERROR and CRITICAL records and Python's `Traceback (most recent call last):`",
      ),
    warnings: z
      .array(logPattern)
      .default(DEFAULT_WARNING_PATTERNS)
      .describe(
        "Regular expressions of a log line that is a warning (unless it is an error). By default Odoo's WARNING records",
      ),
    fail_on_errors: z
      .boolean()
      .default(false)
      .describe(
        "Whether an error in a stage's log fails the build at the end of that stage; otherwise errors are counted and shown only",
      ),
  })
  .prefault({})
  .describe(
    "What is looked for in every stage's log: the errors and warnings a build shows, and GET /builds/errors groups",
  );

// Not refProblem: a bundle's name goes into preview host names and build names, so it stays a plain label.
export const BUNDLE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,30}$/;

const bundleSchema = z
  .strictObject({
    name: z
      .string()
      .regex(BUNDLE_NAME_PATTERN, `must match ${BUNDLE_NAME_PATTERN}`)
      .describe("The bundle's name, in its builds' preview names (<branch>--<name>)"),
    repositories: z
      .array(z.string().regex(REPOSITORY_ALIAS_PATTERN, `must match ${REPOSITORY_ALIAS_PATTERN}`))
      .min(2, "must list at least two repository aliases")
      .describe(
        "The aliases of the repositories built together: a push or a pull request of a branch on any of them builds all of them, each at that branch, else at its base, else at its default_ref",
      ),
  })
  .describe("Repositories built together, as Odoo's runbot builds odoo, enterprise and their addons");

export const configSchema = z
  .strictObject({
    // Outside the data folder: builds running as runtime.run_as_uids must enter the builds but not the data folder.
    builds_root: z
      .string()
      .min(1)
      .default("./builds")
      .describe(
        "Where the builds live, <builds_root>/<build_id>/{sources,logs,runtime}, relative to this file's folder; outside the data folder, which stages may not enter.",
      ),
    max_concurrent_builds: z
      .number()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(64)
      .default(2)
      .describe(
        "How many builds this instance runs at once; 0: none, an instance that only serves the API while others sharing its PostgreSQL database run the builds.",
      ),
    max_queued_builds: z
      .number()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .default(50)
      .describe("How many builds may wait in the queue; past it a new build is refused with 429."),
    max_awake_builds: z
      .number()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .optional()
      .describe(
        "At most this many previews of this host run at once: past it, the one awake longest without a wake or an extension is put to sleep. Unset: no limit.",
      ),
    sleep_after_idle_seconds: z
      .number()
      .int("must be a whole number of seconds")
      .min(2)
      .optional()
      .describe(
        "A preview nobody started, woke or visited through the gateway for this long is put to sleep (a visit wakes it again); each host's own, as max_awake_builds. Unset: previews sleep only by hand or past max_awake_builds.",
      ),
    ttl: z
      .strictObject({
        default_seconds: wholeSeconds.default(14400).describe("A build's time to live when its request names none."),
        min_seconds: wholeSeconds
          .default(300)
          .describe("The shortest time to live a request or an extension may ask for."),
        max_seconds: wholeSeconds
          .default(604800)
          .describe("The longest time to live a request or an extension may ask for."),
        choices: z
          .array(wholeSeconds)
          .default([3600, 14400, 28800, 86400])
          .describe("The times to live the dashboard offers, each within min_seconds and max_seconds."),
      })
      .prefault({})
      .superRefine((ttl, ctx) => {
        const issue = (key: string, message: string) => ctx.addIssue({ code: "custom", path: [key], message });
        if (ttl.min_seconds > ttl.max_seconds) issue("min_seconds", "must not be greater than ttl.max_seconds");
        if (ttl.default_seconds < ttl.min_seconds || ttl.default_seconds > ttl.max_seconds) {
          issue("default_seconds", "must be between ttl.min_seconds and ttl.max_seconds");
        }
        ttl.choices.forEach((choice, index) => {
          if (choice < ttl.min_seconds || choice > ttl.max_seconds) {
            ctx.addIssue({
              code: "custom",
              path: ["choices", index],
              message: "must be between ttl.min_seconds and ttl.max_seconds",
            });
          }
        });
      })
      .describe("How long a build's preview lives before the reaper destroys it; its owner may extend it."),
    ports: z
      .strictObject({
        start: port.default(18000).describe("The first port of the range."),
        end: port.default(19999).describe("The last port of the range."),
      })
      .prefault({})
      .refine((ports) => ports.start <= ports.end, { path: ["end"], message: "must not be less than ports.start" })
      .describe("The ports this host's previews listen on, one per running build: as many previews as ports at most."),
    // Previews must live on other host names than the dashboard, or the dashboard's cookies reach them (cookies
    // ignore ports).
    preview_url: z
      .string()
      .default("http://127.0.0.1:{port}/")
      .refine((template) => {
        try {
          const url = new URL(fillPreviewTemplate(template, "0123456789abcdef", 18000, "build-1"));
          return url.protocol === "http:" || url.protocol === "https:";
        } catch {
          return false;
        }
      }, "must be an http(s) URL template using {build_id}, {port} and {host}, e.g. http://{build_id}.preview.localhost:{port}/")
      .describe(
        "Where a running build is reached, {build_id}, {port} and {host} filled in ({host}: the instance's INSTANCE_NAME without its :port, for several builder hosts: http://{build_id}.{host}.preview.example.com:{port}/). Use other host names than the dashboard's, e.g. http://{build_id}.preview.localhost:{port}/: the default, 127.0.0.1, is the local demo's and unsafe.",
      ),
    preview_address: z
      .string()
      .trim()
      .default("127.0.0.1")
      .refine((address) => net.isIP(address) !== 0, "must be an IP address, such as 127.0.0.1 or 10.0.0.11")
      .describe(
        "The address this host's previews listen on and the gateway reaches them at: loopback on one machine; with several, a private address of this host that the gateway's machine reaches.",
      ),
    gateway: gatewaySchema
      .optional()
      .describe(
        "The previews' front door (`npm run gateway`): every preview a name of its own under one wildcard domain. Unset: previews are reached at preview_url.",
      ),
    stage_timeout_seconds: positiveSeconds
      .default(1800)
      .describe("How long one stage may run before it is stopped and the build fails."),
    stage_log_limit_mb: z
      .number()
      .positive("must be a positive number of megabytes")
      .max(100_000)
      .default(50)
      .describe(
        "What one stage (or a runtime) may write to its log; past it the log says so and the output is dropped.",
      ),
    reaper_interval_seconds: positiveSeconds
      .default(30)
      .describe("How often the reaper looks for expired builds; small values are for tests."),
    runtime: z
      .strictObject({
        driver: z
          .enum(["process", "compose"], { error: 'must be "process" or "compose"' })
          .default("process")
          .describe(
            "process: the shell commands below on this host (as a uid of each build's own when the server is root); compose: a Docker Compose project per build.",
          ),
        install: command.describe(
          "The process driver's install stage: a shell command (/bin/sh -c) run in the build's first repository checkout, with BUILD_ID, PORT, PREVIEW_ADDRESS, MODULES, ADDONS_PATH, WORKSPACE and APP_DIR (the application's folder) set. Unset: skipped.",
        ),
        test: command.describe(
          "The process driver's test stage, run as install is; a non-zero exit fails the build. Unset: skipped.",
        ),
        start: command.describe(
          "The process driver's preview: a long-running shell command, run as install is, that serves on $PREVIEW_ADDRESS:$PORT.",
        ),
        compose: composeSchema.optional().describe("The compose driver's settings; required with driver compose."),
        // The default lies in a span no distribution or systemd hands out, as many as the ports.
        run_as_uids: z
          .strictObject({
            start: uid.default(1_900_000_000).describe("The first uid of the range."),
            end: uid.default(1_900_001_999).describe("The last uid of the range."),
          })
          .prefault({})
          .refine((range) => range.start <= range.end, {
            path: ["end"],
            message: "must not be less than run_as_uids.start",
          })
          .describe(
            "With the server root, each build of the process driver runs as a uid of its own from this range, leased while it has processes or files. No user may have one: a build's processes are ended by uid.",
          ),
        // One user shared by every build would let builds reach each other's processes and files.
        run_as: z
          .never({
            error: "was replaced by run_as_uids: each build runs as a uid of its own from that range; remove run_as",
          })
          .optional()
          .describe("Not accepted any more: replaced by run_as_uids."),
        install_cache: installCacheSchema
          .optional()
          .describe(
            "Keeps installs to restore them: a build whose modules, their files and the commands match an entry restores it instead of installing. Unset: every build installs.",
          ),
        healthcheck: z
          .strictObject({
            path: z
              .string()
              .startsWith("/", "must start with /")
              .default("/")
              .describe("The path asked for on the preview's port."),
            timeout_seconds: positiveSeconds
              .default(120)
              .describe("How long the preview has to answer before the build fails."),
          })
          .prefault({})
          .describe("The last stage: the build runs once its preview answers HTTP below 500."),
      })
      .prefault({})
      .describe("How the stages run and the preview is kept alive."),
    repositories: z
      .array(repositorySchema)
      .default([])
      .describe("The git repositories a build may check out, each under an alias."),
    limits: z
      .strictObject({
        live_per_user: perUserLimit
          .default(5)
          .describe("A user's live builds at most: queued, in progress or running; past it, 429."),
        queued_per_user: perUserLimit
          .default(3)
          .describe("Of those, how many may wait in the queue at once (queued builds count in both); past it, 429."),
        admin_live_per_user: perUserLimit
          .nullable()
          .default(null)
          .describe("An admin's live builds at most; null: no bound."),
        admin_queued_per_user: perUserLimit
          .nullable()
          .default(null)
          .describe("An admin's queued builds at most; null: no bound."),
      })
      .prefault({})
      .superRefine((limits, ctx) => {
        if (limits.queued_per_user > limits.live_per_user) {
          ctx.addIssue({
            code: "custom",
            path: ["queued_per_user"],
            message: "must not be greater than limits.live_per_user (queued builds are live too)",
          });
        }
        if (
          limits.admin_queued_per_user !== null &&
          limits.admin_live_per_user !== null &&
          limits.admin_queued_per_user > limits.admin_live_per_user
        ) {
          ctx.addIssue({
            code: "custom",
            path: ["admin_queued_per_user"],
            message: "must not be greater than limits.admin_live_per_user",
          });
        }
      })
      .describe(
        "Per-user bounds, so that one account cannot take every preview port or fill the queue. Automatic builds belong to the service and count against none.",
      ),
    retention_days: z
      .number()
      .positive("must be a positive number of days")
      .default(14)
      .describe(
        "Builds that are over keep their rows and logs this long, then the reaper purges both. Fractions are for tests.",
      ),
    log_checks: logChecksSchema,
    keep_per_branch: z
      .number()
      .int("must be a whole number of builds")
      .min(1, "must be at least 1")
      .max(20, "must be at most 20")
      .default(1)
      .describe(
        "How many live automatic builds each branch, bundle branch or pull request keeps: once a newer one runs, the older ones past this number are destroyed. Builds started by hand are never touched",
      ),
    bundles: z
      .array(bundleSchema)
      .default([])
      .describe("Groups of repositories whose automatic builds hold every repository of the group"),
  })
  .superRefine((config, ctx) => {
    if (config.runtime.driver === "compose" && !config.runtime.compose) {
      ctx.addIssue({
        code: "custom",
        path: ["runtime", "compose"],
        message: "is required with driver compose (at least its template)",
      });
    }
    const cache = config.runtime.install_cache;
    for (const key of ["save", "restore"] as const) {
      if (!cache) break;
      const shell = typeof cache[key] === "string";
      if (!shell && (cache[key] as { mode: string }).mode !== "run") {
        ctx.addIssue({
          code: "custom",
          path: ["runtime", "install_cache", key, "mode"],
          message: 'must be "run": the entry\'s folder is mounted into a one-off container',
        });
      }
      if (shell !== (config.runtime.driver === "process")) {
        ctx.addIssue({
          code: "custom",
          path: ["runtime", "install_cache", key],
          message: shell
            ? "must be { service, command } with driver compose"
            : "must be a shell command with driver process",
        });
      }
    }
    const seen = new Set<string>();
    config.repositories.forEach((repository, index) => {
      const issue = (key: (string | number)[], message: string) =>
        ctx.addIssue({ code: "custom", path: ["repositories", index, ...key], message });
      if (seen.has(repository.alias)) issue(["alias"], `duplicates the alias "${repository.alias}"`);
      seen.add(repository.alias);
      if (repository.webhook_secret !== undefined && repository.webhook_secret_env !== undefined) {
        issue(["webhook_secret_env"], "give either webhook_secret or webhook_secret_env, not both");
      }
      if (repository.webhook_secret_env !== undefined && !readNamedVariable(repository.webhook_secret_env)) {
        issue(["webhook_secret_env"], `the environment variable ${repository.webhook_secret_env} is not set`);
      }
      if (repository.preview_bypass_secret_env !== undefined) {
        const secret = readNamedVariable(repository.preview_bypass_secret_env);
        if (!secret)
          issue(
            ["preview_bypass_secret_env"],
            `the environment variable ${repository.preview_bypass_secret_env} is not set`,
          );
        // It opens a private preview to whoever sends it, from anywhere: long enough that guessing is hopeless.
        else if (secret.length < MIN_BYPASS_SECRET_LENGTH)
          issue(
            ["preview_bypass_secret_env"],
            `the environment variable ${repository.preview_bypass_secret_env} holds ${secret.length} characters; a bypass secret needs at least ${MIN_BYPASS_SECRET_LENGTH} (openssl rand -base64 32)`,
          );
      }
      if (repository.forge && !readNamedVariable(repository.forge.token_env)) {
        issue(["forge", "token_env"], `the environment variable ${repository.forge.token_env} is not set`);
      }
      if (repository.watch_interval_seconds !== undefined && repository.auto_build === undefined) {
        issue(["watch_interval_seconds"], "needs auto_build: polling only builds followed branches");
      }
      const ttl = repository.auto_build?.ttl_seconds;
      if (ttl !== undefined && (ttl < config.ttl.min_seconds || ttl > config.ttl.max_seconds)) {
        issue(["auto_build", "ttl_seconds"], "must be between ttl.min_seconds and ttl.max_seconds");
      }
      repository.auto_build?.branches.forEach((glob, globIndex) => {
        try {
          picomatch.makeRe(glob, BRANCH_GLOB_OPTIONS);
        } catch {
          issue(["auto_build", "branches", globIndex], "is not a valid glob");
        }
      });
    });
    const bundleOf = new Map<string, string>();
    const bundleNames = new Set<string>();
    config.bundles.forEach((bundle, index) => {
      const issue = (key: (string | number)[], message: string) =>
        ctx.addIssue({ code: "custom", path: ["bundles", index, ...key], message });
      if (bundleNames.has(bundle.name)) issue(["name"], `duplicates the bundle "${bundle.name}"`);
      // Preview names end in a repository's alias or a bundle's name: one word must not lead to two things.
      if (seen.has(bundle.name)) issue(["name"], `is the alias of a repository; give the bundle another name`);
      bundleNames.add(bundle.name);
      bundle.repositories.forEach((alias, aliasIndex) => {
        if (!seen.has(alias)) issue(["repositories", aliasIndex], `is not the alias of a configured repository`);
        // A push must lead to one build: a repository in two bundles would start two.
        const other = bundleOf.get(alias);
        if (other !== undefined) issue(["repositories", aliasIndex], `"${alias}" is already in the bundle "${other}"`);
        bundleOf.set(alias, bundle.name);
      });
    });
  });

/** Branch globs: `*` stays within one path segment (feature/* is not feature/a/b), `**` crosses them. */
export const BRANCH_GLOB_OPTIONS: picomatch.PicomatchOptions = { dot: true, strictSlashes: true };

type ParsedConfig = z.output<typeof configSchema>;
export type RepositoryConfig = ParsedConfig["repositories"][number] & {
  /** A local absolute path or a URL git understands. */
  resolvedUrl: string;
  /** The webhook secret (webhook_secret, or read from webhook_secret_env at start); null: no webhooks. */
  webhookSecret: string | null;
  /** The secret of X-Preview-Bypass (read from preview_bypass_secret_env at start); null: no bypass. */
  previewBypassSecret: string | null;
};
export type BuildsConfig = Omit<ParsedConfig, "repositories" | "builds_root"> & {
  /** The configuration file, absolute. */
  file: string;
  /** builds_root, absolute. */
  builds_root: string;
  /** Sorted by priority, then alias: the order of ADDONS_PATH. */
  repositories: RepositoryConfig[];
};

export class InvalidBuildsConfigError extends Error {}

/** The preview URL of a build from the configured template. */
export function fillPreviewTemplate(template: string, buildId: string, port: number, host: string): string {
  return template.replaceAll("{build_id}", buildId).replaceAll("{port}", String(port)).replaceAll("{host}", host);
}

/** Reads and validates a builds configuration file. Throws InvalidBuildsConfigError naming the key. */
export function loadBuildsConfig(file: string): BuildsConfig {
  const absolute = path.resolve(file);
  const label = path.basename(absolute);
  let text: string;
  try {
    text = fs.readFileSync(absolute, "utf8");
  } catch (error) {
    throw new InvalidBuildsConfigError(`${label}: cannot read ${absolute}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new InvalidBuildsConfigError(`${label}: not valid YAML: ${(error as Error).message}`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : String(part))).join(".");
      const keys = issue.code === "unrecognized_keys" ? [key, issue.keys.join(", ")].filter(Boolean).join(".") : key;
      return `${label}: ${(keys || "(root)").replace(/\.\[/g, "[")}: ${issue.message}`;
    });
    throw new InvalidBuildsConfigError(lines.join("\n"));
  }
  const folder = path.dirname(absolute);
  const repositories = parsed.data.repositories
    .map((repository) => ({
      ...repository,
      resolvedUrl: resolveRepositoryUrl(repository.url, folder),
      webhookSecret:
        repository.webhook_secret ??
        (repository.webhook_secret_env === undefined
          ? null
          : (readNamedVariable(repository.webhook_secret_env) ?? null)),
      previewBypassSecret:
        repository.preview_bypass_secret_env === undefined
          ? null
          : (readNamedVariable(repository.preview_bypass_secret_env) ?? null),
    }))
    .sort((a, b) => a.priority - b.priority || a.alias.localeCompare(b.alias));
  const compose = parsed.data.runtime.compose;
  const runtime = compose
    ? { ...parsed.data.runtime, compose: { ...compose, template: path.resolve(folder, compose.template) } }
    : parsed.data.runtime;
  return {
    ...parsed.data,
    runtime,
    file: absolute,
    builds_root: path.resolve(folder, parsed.data.builds_root),
    repositories,
  };
}

/** URLs (https, ssh, file, scp-like user@host:path) stay as they are; anything else is a path. */
function resolveRepositoryUrl(url: string, folder: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/\\]+@[^/\\]+:/.test(url)) return url;
  return path.resolve(folder, url);
}

/**
 * Who opens a build's preview through the gateway: its first repository's preview_access. A repository no longer
 * configured keeps its previews closed rather than guessing they were public.
 */
export function previewAccessOf(alias: string | null): RepositoryConfig["preview_access"] {
  const repository = alias === null ? undefined : getBuildsConfig().repositories.find((r) => r.alias === alias);
  return repository?.preview_access ?? "users";
}

const globalForConfig = processWide<{ buildsConfig?: BuildsConfig }>("buildsConfig", () => ({}));

/** The configuration at BUILDS_CONFIG, read once per process. */
export function getBuildsConfig(): BuildsConfig {
  globalForConfig.buildsConfig ??= loadBuildsConfig(getEnv().BUILDS_CONFIG);
  return globalForConfig.buildsConfig;
}
