import type { BuildsConfig, RepositoryConfig } from "../config";
import { listOpenPullRequests } from "../forge/pull-requests";
import { fetchPullRef } from "../git/mirrors";
import { findHead, listHeads } from "./heads";
import { pullNumberOf, pullRef } from "./pull-refs";
import { closePullRequest } from "./pull-requests";
import { noticeBranchHead } from "./service";

/**
 * Polling's half for pull requests, for a repository whose host is configured (`forge`) and that
 * follows pull requests: the host's list of open pull requests is read, each one's head is built as its preview
 * under the same rules as a pull request event (forks only with build_forks, one live preview per request, the
 * newer replacing the older), and a followed pull request no longer in the list has its preview destroyed.
 * The mirror was synced just before (lib/builds/auto/polling.ts).
 */
export async function pollPullRequests(config: BuildsConfig, repository: RepositoryConfig): Promise<void> {
  const forge = repository.forge;
  if (!forge || !repository.auto_build?.pull_requests) return;
  const listed = await listOpenPullRequests(forge);
  // Nothing is taken as closed on a listing that failed or stopped short.
  if (!listed.ok) {
    console.warn(`builds: the open pull requests of "${repository.alias}" could not be listed: ${listed.error}`);
    return;
  }
  const open = new Set<string>();
  for (const pull of listed.pulls) {
    if (pull.fromFork && !forge.build_forks) continue;
    const ref = pullRef(forge.kind, pull.number);
    open.add(ref);
    // The head already noticed: nothing to fetch (a poll then costs one listing, not a fetch per request).
    if (pull.headSha !== null && (await findHead(repository.alias, ref))?.commitSha === pull.headSha) continue;
    // The head as the repository publishes it, as for an event: the ref is what is built, not the listing's sha.
    const head = await fetchPullRef(config, repository, ref, { mirrorSynced: true });
    if (head) await noticeBranchHead(repository, ref, head, "poll", null, pull.sourceBranch);
  }
  for (const known of await listHeads(repository.alias)) {
    const number = pullNumberOf(known.branch);
    if (number === null || open.has(known.branch)) continue;
    await (await closePullRequest(repository, forge.kind, number, "no longer open")).done;
  }
}
