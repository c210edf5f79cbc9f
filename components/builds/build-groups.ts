import { pullNumberOf } from "@/lib/builds/auto/pull-refs";
import type { BuildSummary } from "@/lib/swr/types";

export interface BuildGroup {
  key: string;
  alias: string;
  /** The branch (or tag, or commit) of the first repository; for a pull request, the ref its head is fetched from. */
  ref: string;
  pullRequest: number | null;
  builds: BuildSummary[];
}

/**
 * Builds grouped as runbot's and GitLab's environment views group them: by the first repository's branch or pull
 * request, the same thing a build's stable preview name follows. Groups keep the list's order (the group of the
 * newest build first), and each its builds' order.
 */
export function groupByRef(builds: BuildSummary[]): BuildGroup[] {
  const groups = new Map<string, BuildGroup>();
  for (const build of builds) {
    const first = build.repositories[0];
    const alias = first?.repository ?? "";
    const ref = first?.ref ?? "";
    const key = `${alias}\u0000${ref}`;
    let group = groups.get(key);
    if (!group) {
      group = { key, alias, ref, pullRequest: pullNumberOf(ref), builds: [] };
      groups.set(key, group);
    }
    group.builds.push(build);
  }
  return [...groups.values()];
}
