import { getTopology } from "../../topology";
import { getBuildsConfig } from "../config";
import { type CacheEntry, listEntries } from "./entries";
import type { InstallCacheEntryView, InstallCacheListView } from "./schemas";

/** GET /builds/cache: this builder host's entries, most recently used first (an empty list without a cache). */
export function listInstallCache(): InstallCacheListView {
  const config = getBuildsConfig();
  const cache = config.runtime.install_cache;
  return {
    host: getTopology().instanceName(),
    max_entries: cache?.max_entries ?? 0,
    max_age_days: cache?.max_age_days ?? 0,
    entries: listEntries(config).map(presentEntry),
  };
}

function presentEntry(entry: CacheEntry): InstallCacheEntryView {
  return {
    key: entry.key,
    modules: entry.modules,
    commits: entry.commits.map((commit) => ({ repository: commit.alias, commit_sha: commit.commit })),
    size_bytes: entry.sizeBytes,
    saved_by: entry.savedBy,
    saved_at: entry.savedAt,
    last_used_at: entry.lastUsedAt,
    hits: entry.hits,
  };
}
