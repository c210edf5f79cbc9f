import { processWide } from "../../server/process-wide";
import type { BuildsConfig } from "../config";
import { git, mirrorPath } from "./mirrors";

export interface CommitInfo {
  subject: string | null;
  author: string | null;
}

// A commit's subject and author never change, so each is read from git once: a burst of builds of one commit
// (or a rebuild) then spawns no git process for them. Bounded; the oldest entry goes first.
const MAX_CACHED_COMMITS = 1_000;
const globalForCommits = processWide<{ buildCommitInfo?: Map<string, Promise<CommitInfo>> }>(
  "buildCommitInfo",
  () => ({}),
);

/**
 * A commit's subject line and author name, read from the repository's mirror; nulls when git cannot say
 * (a build is never refused for want of them). `sha` is a full commit id that resolveRef returned.
 */
export function readCommitInfo(config: BuildsConfig, alias: string, sha: string): Promise<CommitInfo> {
  const cache = (globalForCommits.buildCommitInfo ??= new Map());
  const key = `${alias}\0${sha}`;
  let info = cache.get(key);
  if (!info) {
    info = readCommitInfoFromGit(config, alias, sha);
    cache.set(key, info);
    if (cache.size > MAX_CACHED_COMMITS) cache.delete(cache.keys().next().value!);
    // Unknown (nulls) is not remembered: the mirror may not have the commit yet.
    void info.then((read: CommitInfo) => {
      if (read.subject === null && read.author === null) cache.delete(key);
    });
  }
  return info;
}

async function readCommitInfoFromGit(config: BuildsConfig, alias: string, sha: string): Promise<CommitInfo> {
  try {
    const out = await git([
      `--git-dir=${mirrorPath(config, alias)}`,
      "log",
      "-1",
      "--no-show-signature",
      "--format=%s%x00%an",
      sha,
      "--",
    ]);
    const [subject, author] = out.replace(/\n$/, "").split("\0");
    // Bounded: a subject can be as long as its author liked.
    return { subject: subject ? subject.slice(0, 300) : null, author: author ? author.slice(0, 200) : null };
  } catch {
    return { subject: null, author: null };
  }
}
