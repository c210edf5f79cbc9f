import crypto from "node:crypto";
import { z } from "zod";
import { badRequest, invalidRequest, MAX_LISTED_ERRORS, serviceUnavailable } from "../../http/problem";
import { type PublicUser, publicNameOf } from "../../users/roles";
import { getBuildsConfig, type RepositoryConfig } from "../config";
import { readCommitInfo } from "../git/commits";
import { isRepositoryReady, listModules, resolveRef, syncMirror } from "../git/mirrors";
import { assertUnderUserLimits, limitsFor } from "../limits";
import { MODULE_NAME_PATTERN, REPOSITORY_ALIAS_PATTERN, refProblem } from "../names";
import { enqueueBuild } from "../queue/executor";
import { countQueuedBuilds, disableInstallCache, insertQueuedBuild } from "../repository";
import { configuredDriver } from "../runtime/drivers";
import { type BuildTrigger, type BuildView, createBuildSchema, MAX_MODULES, MAX_REPOSITORIES } from "../schemas";
import { presentBuild } from "../service";

/** Seconds a client is asked to wait before trying again when the service cannot take a build. */
const RETRY_AFTER_SECONDS = 30;

/**
 * Validates a POST /builds body. Wrong JSON types answer 400 like everywhere else; unknown fields are a
 * domain rule of this endpoint and answer 400, naming them.
 */
export function parseCreateBuild(body: unknown) {
  const result = createBuildSchema.safeParse(body);
  if (result.success) return result.data;
  const typeIssues = result.error.issues.filter((issue) => issue.code !== "unrecognized_keys");
  if (typeIssues.length > 0) throw invalidRequest(new z.ZodError(typeIssues), "body");
  const unknown = result.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ["body", ...issue.path.map(String), key].join("."))
      : [],
  );
  const named = unknown.slice(0, MAX_LISTED_ERRORS).join(", ") + (unknown.length > MAX_LISTED_ERRORS ? ", …" : "");
  throw badRequest(
    `Unknown field${unknown.length > 1 ? "s" : ""}: ${named}.`,
    unknown.map((field) => ({ field, message: "is not a field of this request" })),
  );
}

type RequestedRepository = { repository: RepositoryConfig; ref: string; field: string };

/**
 * POST /builds: checks the request against the configuration, fetches the repositories, resolves every ref
 * to a commit, checks the modules at those commits, stores the build and queues it.
 */
export async function createBuild(
  user: PublicUser,
  input: z.output<typeof createBuildSchema>,
  options: {
    trigger?: Extract<BuildTrigger, "manual" | "rebuild">;
    /** When the server received the request (performance.now()): refs are resolved as they were then, or newer. */
    receivedAt?: number;
    /** False: the install stage installs afresh rather than restoring from the install cache. */
    installCache?: boolean;
  } = {},
): Promise<BuildView> {
  const { trigger = "manual", receivedAt = performance.now() } = options;
  const config = getBuildsConfig();
  if (config.repositories.length === 0) {
    throw serviceUnavailable(
      "No repository is configured: the operator must add one to the builds configuration.",
      RETRY_AFTER_SECONDS,
    );
  }
  const driver = configuredDriver(config);
  const readiness = await driver.readiness(config);
  if (!readiness.ready)
    throw serviceUnavailable(`The ${driver.name} runtime is not ready: ${readiness.reason}`, RETRY_AFTER_SECONDS);
  const requested = checkRepositories(input, config.repositories);
  const modules = checkModuleNames(input.modules);
  const ttlSeconds = input.ttl_seconds ?? config.ttl.default_seconds;
  if (ttlSeconds < config.ttl.min_seconds || ttlSeconds > config.ttl.max_seconds) {
    throw badRequest(
      `ttl_seconds must be between ${config.ttl.min_seconds} and ${config.ttl.max_seconds}; got ${ttlSeconds}.`,
      [
        {
          field: "body.ttl_seconds",
          message: `must be between ${config.ttl.min_seconds} and ${config.ttl.max_seconds}`,
        },
      ],
    );
  }
  const queueFull = () =>
    serviceUnavailable(
      `The build queue is full (${config.max_queued_builds} builds waiting); try again later.`,
      RETRY_AFTER_SECONDS,
    );
  // Checked early to answer before fetching any repository; checked again, atomically, when inserting.
  const limits = limitsFor(config, user);
  await assertUnderUserLimits(user, limits);
  if ((await countQueuedBuilds()) >= config.max_queued_builds) throw queueFull();

  // Fetch before resolving, so the build gets the refs as they were when the request arrived (or newer).
  const synced = await Promise.all(requested.map(({ repository }) => syncMirror(config, repository, receivedAt)));
  const notReady = requested.filter(
    (_, index) => !synced[index] || !isRepositoryReady(requested[index].repository.alias),
  );
  if (notReady.length > 0) {
    throw serviceUnavailable(
      `Not ready: ${notReady.map(({ repository }) => repository.alias).join(", ")} (its mirror could not be cloned or fetched); try again later.`,
      RETRY_AFTER_SECONDS,
    );
  }

  const resolved = [];
  const available = new Set<string>();
  for (const { repository, ref, field } of requested) {
    const commitSha = await resolveRef(config, repository.alias, ref);
    if (!commitSha) {
      throw badRequest(`The ref "${ref}" does not exist in the repository "${repository.alias}".`, [
        { field, message: "no branch, tag or commit of that name" },
      ]);
    }
    for (const name of await listModules(config, repository, commitSha)) available.add(name);
    const commit = await readCommitInfo(config, repository.alias, commitSha);
    resolved.push({
      alias: repository.alias,
      ref,
      commitSha,
      commitSubject: commit.subject,
      commitAuthor: commit.author,
      refReason: "requested" as const,
    });
  }
  const missing = modules.filter((name) => !available.has(name));
  if (missing.length > 0) {
    throw badRequest(
      `Module${missing.length > 1 ? "s" : ""} not found in ${resolved.map((r) => `${r.alias}@${r.ref}`).join(", ")}: ${missing.join(", ")}.`,
      missing.map((name) => ({
        field: `body.modules[${modules.indexOf(name)}]`,
        message: `no module "${name}" at the requested commits`,
      })),
    );
  }

  const build = await insertQueuedBuild(
    {
      id: crypto.randomBytes(8).toString("hex"),
      modules,
      ttlSeconds,
      createdAt: new Date(),
      createdById: user.id,
      // Public reads show who started a build by display name; the email stays private.
      createdBy: publicNameOf(user),
      trigger,
      // Who started it: the same name as created_by (for a rebuild, the requester, who owns the new build).
      triggeredBy: publicNameOf(user),
      repositories: resolved,
      driver: driver.name,
      stages: driver.stages.map((stage) => stage.name),
    },
    config.max_queued_builds,
    limits,
  );
  if (!build) {
    // Another request of the same user may have taken the last place meanwhile: say which bound refused it.
    await assertUnderUserLimits(user, limits);
    throw queueFull();
  }
  // Before the build is announced: the executor reads it when it claims the build.
  if (options.installCache === false) await disableInstallCache(build.id);
  enqueueBuild(build.id);
  return presentBuild(build, user);
}

/** The requested repositories in ADDONS_PATH order (priority, then alias), each checked against its configuration. */
function checkRepositories(
  input: z.output<typeof createBuildSchema>,
  configured: RepositoryConfig[],
): RequestedRepository[] {
  const legacy = input.repository !== undefined || input.ref !== undefined;
  if (legacy && input.repositories !== undefined) {
    throw badRequest("Give either `repositories` or the legacy `repository` and `ref`, not both.", [
      { field: "body.repositories", message: "cannot be mixed with repository/ref" },
    ]);
  }
  if (legacy && input.repository === undefined) {
    throw badRequest("The legacy form needs `repository` with its `ref`.", [
      { field: "body.repository", message: "is required" },
    ]);
  }
  const entries = legacy
    ? [{ repository: input.repository!, ref: input.ref, field: "body" }]
    : (input.repositories ?? []).map((entry, index) => ({ ...entry, field: `body.repositories[${index}]` }));
  if (entries.length === 0) {
    throw badRequest("At least one repository is required.", [
      { field: "body.repositories", message: "must not be empty" },
    ]);
  }
  if (entries.length > MAX_REPOSITORIES) {
    throw badRequest(`At most ${MAX_REPOSITORIES} repositories per build; got ${entries.length}.`, [
      { field: "body.repositories", message: `must have at most ${MAX_REPOSITORIES} items` },
    ]);
  }
  const seen = new Set<string>();
  const requested = entries.map(({ repository: alias, ref, field }) => {
    if (seen.has(alias)) {
      throw badRequest(`The repository "${alias}" is requested twice.`, [
        { field: `${field}.repository`, message: "duplicate alias" },
      ]);
    }
    seen.add(alias);
    const repository = REPOSITORY_ALIAS_PATTERN.test(alias) ? configured.find((r) => r.alias === alias) : undefined;
    if (!repository) {
      throw badRequest(
        `The repository "${alias}" is not configured; configured: ${configured.map((r) => r.alias).join(", ")}.`,
        [{ field: `${field}.repository`, message: "not a configured repository" }],
      );
    }
    const wanted = ref ?? repository.default_ref;
    const problem = refProblem(wanted);
    if (problem) {
      throw badRequest(`The ref ${JSON.stringify(wanted.slice(0, 220))} is not allowed: it ${problem}.`, [
        { field: `${field}.ref`, message: problem },
      ]);
    }
    if (!repository.allow_request_ref && wanted !== repository.default_ref) {
      throw badRequest(
        `The repository "${alias}" only builds its default ref "${repository.default_ref}"; got "${wanted}".`,
        [{ field: `${field}.ref`, message: `must be ${repository.default_ref}` }],
      );
    }
    return { repository, ref: wanted, field: `${field}.ref` };
  });
  return requested.sort((a, b) => configured.indexOf(a.repository) - configured.indexOf(b.repository));
}

function checkModuleNames(modules: string[]): string[] {
  if (modules.length === 0) {
    throw badRequest("At least one module is required.", [{ field: "body.modules", message: "must not be empty" }]);
  }
  if (modules.length > MAX_MODULES) {
    throw badRequest(`At most ${MAX_MODULES} modules per build; got ${modules.length}.`, [
      { field: "body.modules", message: `must have at most ${MAX_MODULES} items` },
    ]);
  }
  const seen = new Set<string>();
  modules.forEach((name, index) => {
    if (!MODULE_NAME_PATTERN.test(name)) {
      throw badRequest(
        `The module name ${JSON.stringify(name.slice(0, 140))} is invalid: it must match ${MODULE_NAME_PATTERN}.`,
        [{ field: `body.modules[${index}]`, message: `must match ${MODULE_NAME_PATTERN}` }],
      );
    }
    if (seen.has(name)) {
      throw badRequest(`The module "${name}" is listed twice.`, [
        { field: `body.modules[${index}]`, message: "duplicate module" },
      ]);
    }
    seen.add(name);
  });
  return modules;
}
