import type { BuildsConfig } from "./config";
import { git, mirrorPath } from "./mirrors";

export interface CommitInfo {
  subject: string | null;
  author: string | null;
}

/**
 * A commit's subject line and author name, read from the repository's mirror; nulls when git cannot say
 * (a build is never refused for want of them). `sha` is a full commit id that resolveRef returned.
 */
export async function readCommitInfo(config: BuildsConfig, alias: string, sha: string): Promise<CommitInfo> {
  try {
    const out = await git([`--git-dir=${mirrorPath(config, alias)}`, "log", "-1", "--no-show-signature", "--format=%s%x00%an", sha, "--"]);
    const [subject, author] = out.replace(/\n$/, "").split("\0");
    // Bounded: a subject can be as long as its author liked.
    return { subject: subject ? subject.slice(0, 300) : null, author: author ? author.slice(0, 200) : null };
  } catch {
    return { subject: null, author: null };
  }
}
