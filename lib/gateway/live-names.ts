import { type GatewayConfig, getBuildsConfig } from "../builds/config";
import { previewAccessFor } from "../builds/preview-access";
import { aliasPart, branchLabel, nameUrl, readHost } from "../builds/preview-names";
import { listLiveFirstRepositories } from "../builds/repository";
import { type Credentials, visitorIsSignedIn } from "./access";

/**
 * The hint on the page of a name no preview has: the names of the live previews of the repository the name asks
 * for (its part after `--`; of every repository when it names none of them), the nearest to the name asked first,
 * as a team guessing `feature-price-list--shop` wants to see `feature-price-list-2--shop`. Public previews are
 * listed to anyone; private ones only to a visitor the gateway's cookie for this name shows signed in to the
 * dashboard (a share link's holder is not), so their names reach no one who could not open them anyway.
 */
export interface LiveName {
  name: string;
  url: string;
}

export interface LiveNames {
  names: LiveName[];
  /** Whether private previews were listed too (the visitor is signed in). */
  signedIn: boolean;
}

/** At most this many names: a hint, not a directory. */
const MAX_NAMES = 12;

export async function liveNamesNear(
  host: string,
  credentials: Credentials,
  gateway: GatewayConfig | undefined = getBuildsConfig().gateway,
): Promise<LiveNames> {
  if (!gateway) return { names: [], signedIn: false };
  const request = readHost(gateway, host);
  if (request.kind === "invalid") return { names: [], signedIn: false };
  const label = request.label;
  const signedIn = label !== "" && (await visitorIsSignedIn(label, credentials));
  const aliasLabel = label.includes("--") ? label.slice(label.lastIndexOf("--") + 2) : null;
  const repositories = getBuildsConfig().repositories;
  const named = repositories.filter((repository) => aliasPart(repository.alias) === aliasLabel);
  const live = await listLiveFirstRepositories();
  const labels: string[] = [];
  for (const repository of named.length > 0 ? named : repositories) {
    const rows = live.filter((row) => row.alias === repository.alias);
    const liveRefs = new Set(rows.map((row) => row.ref));
    // The newest live build of each ref is the one its name leads to, and whose access counts.
    const newest = new Map<string, string | null>();
    for (const row of rows) if (!newest.has(row.ref)) newest.set(row.ref, row.previewAccess);
    for (const [ref, choice] of newest)
      if (signedIn || previewAccessFor(choice, repository.alias) === "public")
        labels.push(branchLabel(repository.alias, ref, liveRefs));
  }
  const distance = new Map(labels.map((candidate) => [candidate, editDistance(label, candidate)]));
  const nearest = [...new Set(labels)]
    .sort((a, b) => distance.get(a)! - distance.get(b)! || a.localeCompare(b))
    .slice(0, MAX_NAMES);
  return {
    names: nearest.map((nameLabel) => {
      const name = `${nameLabel}.${gateway.domain}`;
      return { name, url: nameUrl(gateway, name) };
    }),
    signedIn,
  };
}

/** Levenshtein's distance: the fewest insertions, deletions and substitutions that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
