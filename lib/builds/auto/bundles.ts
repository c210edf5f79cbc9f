import type { BuildsConfig, RepositoryConfig } from "../config";
import { listBranches, resolveBranch, resolveRef, syncMirror } from "../git/mirrors";

/**
 * Bundles (bundles: in the builds configuration): repositories built together, as Odoo's runbot builds odoo,
 * enterprise and their addons. A branch pushed on any of them builds all of them: each at that branch where it has
 * it, else at the branch's base there (the longest of its branches that the pushed one starts with followed by
 * `-`: `16.0` for `16.0-fix-sale`), else at its default_ref.
 */

export type RefReason = "requested" | "branch" | "base" | "default";

export interface BundleRef {
  alias: string;
  ref: string;
  commitSha: string;
  reason: RefReason;
}

/** The bundle a repository belongs to, or null. */
export function bundleOf(config: Pick<BuildsConfig, "bundles">, alias: string) {
  return config.bundles.find((bundle) => bundle.repositories.includes(alias)) ?? null;
}

/**
 * Which of `branches` a build of `branch` takes in a repository that does not have it: the longest branch that
 * `branch` starts with, followed by `-` (runbot's rule: `16.0-fix-sale` is based on `16.0`, `saas-17.2-x` on
 * `saas-17.2`); null when none is.
 */
export function baseBranchOf(branch: string, branches: Iterable<string>): string | null {
  let base: string | null = null;
  for (const candidate of branches) {
    if (candidate === branch || !branch.startsWith(`${candidate}-`)) continue;
    if (base === null || candidate.length > base.length) base = candidate;
  }
  return base;
}

/**
 * The ref and commit each repository of a bundle takes for a build of `branch` (the pushed repository's own is
 * given). The other repositories' mirrors are fetched first: a branch pushed to them just before must be seen.
 * Null for a repository whose default_ref cannot be resolved either: the build cannot be made.
 */
export async function resolveBundleRefs(
  config: BuildsConfig,
  repositories: readonly RepositoryConfig[],
  branch: string,
  pushed: { alias: string; ref: string; commitSha: string },
): Promise<{ refs: BundleRef[]; missing: string | null }> {
  const refs: BundleRef[] = [];
  for (const repository of repositories) {
    if (repository.alias === pushed.alias) {
      refs.push({ ...pushed, reason: "branch" });
      continue;
    }
    await syncMirror(config, repository);
    const own = await resolveBranch(config, repository.alias, branch);
    if (own) {
      refs.push({ alias: repository.alias, ref: branch, commitSha: own, reason: "branch" });
      continue;
    }
    const base = baseBranchOf(branch, await listBranches(config, repository.alias));
    const baseSha = base === null ? null : await resolveBranch(config, repository.alias, base);
    if (base !== null && baseSha) {
      refs.push({ alias: repository.alias, ref: base, commitSha: baseSha, reason: "base" });
      continue;
    }
    const fallback = await resolveRef(config, repository.alias, repository.default_ref);
    if (!fallback) return { refs, missing: repository.alias };
    refs.push({ alias: repository.alias, ref: repository.default_ref, commitSha: fallback, reason: "default" });
  }
  return { refs, missing: null };
}
