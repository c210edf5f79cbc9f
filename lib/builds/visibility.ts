import { notFound } from "../http/problem";
import { getBuildsConfig, previewAccessOf, type RepositoryConfig } from "./config";
import { previewAccessFor } from "./preview-access";
import { findBuildAccessFacts } from "./repository";

/**
 * Who may see a build through the API (its JSON, its place in the list, its logs and their streams): anyone when
 * its preview is public, people signed in when it is private (`preview_access: users`). A stranger asking for a
 * private build gets the very 404 of a build that does not exist, so that its id tells nothing: not that it
 * exists, not its status, branch or commit. The gateway keeps its own rule (lib/gateway/access.ts): an unadmitted
 * visitor is sent to sign in, told nothing of the build.
 *
 * One decision, `mayViewBuild`, over a build's effective preview access, which `effectivePreviewAccess` gives:
 * the build's own choice (PATCH /builds/{id}), else its first repository's preview_access, the one its preview
 * names carry (lib/builds/preview-access.ts).
 */
export type PreviewAccess = RepositoryConfig["preview_access"];

/** Whoever asks: a signed-in user, or null for a visitor without (valid) credentials. */
export type BuildViewer = { id: number } | null;

/** The facts a build's preview access is decided from: its own choice, and its repositories with their positions. */
export interface BuildAccessFacts {
  previewAccess: string | null;
  repositories: { alias: string; position: number }[];
}

/** The preview access that rules a build. */
export function effectivePreviewAccess(build: BuildAccessFacts): PreviewAccess {
  const first = build.repositories.find((repository) => repository.position === 0);
  return previewAccessFor(build.previewAccess, first?.alias ?? null);
}

/** Whether this viewer may see anything of a build with this preview access. */
export function mayViewBuild(access: PreviewAccess, viewer: BuildViewer): boolean {
  return access === "public" || viewer !== null;
}

/** The 404 of a build that does not exist, the same for one this viewer may not see. */
export function noSuchBuild(buildId: string) {
  return notFound(`There is no build ${JSON.stringify(buildId.slice(0, 80))}.`);
}

/** Whether the build exists and this viewer may see it (reading only what decides it). */
export async function isBuildVisible(buildId: string, viewer: BuildViewer): Promise<boolean> {
  const facts = await findBuildAccessFacts(buildId);
  return facts !== null && mayViewBuild(effectivePreviewAccess(facts), viewer);
}

/** Throws noSuchBuild unless the build exists and this viewer may see it; the build itself is read elsewhere. */
export async function assertBuildVisible(buildId: string, viewer: BuildViewer): Promise<void> {
  if (!(await isBuildVisible(buildId, viewer))) throw noSuchBuild(buildId);
}

/**
 * The first repositories whose builds a viewer may list, for a query to filter by; undefined for all of them. A
 * repository no longer configured counts as private (previewAccessOf), so its builds are left out for strangers.
 */
export function listableFirstRepositories(viewer: BuildViewer): string[] | undefined {
  if (viewer !== null) return undefined;
  return getBuildsConfig()
    .repositories.map((repository) => repository.alias)
    .filter((alias) => mayViewBuild(previewAccessOf(alias), viewer));
}
