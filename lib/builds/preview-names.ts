import crypto from "node:crypto";
import path from "node:path";
import { pullNumberOf } from "./auto/pull-refs";
import { type BuildsConfig, type GatewayConfig, InvalidBuildsConfigError } from "./config";

/**
 * The names a build's preview is reached at behind the gateway (gateway: in the builds configuration), each one
 * DNS label under the gateway's domain:
 * - `<build_id>.<domain>`: this build, for as long as it lives;
 * - `<branch>--<alias>.<domain>`: the newest live build whose first repository is `<alias>` at that branch;
 * - `pr-<n>--<alias>.<domain>`: the same for pull (merge) request n.
 * A label holds lowercase letters, digits and single dashes, 63 characters at most. A branch or alias that is
 * not already such a part as it stands (`feature/x`, `my_addons`, `a--b`, too long), or that would read as a
 * pull request's part (`pr-12`) or as a hashed part (below), carries a short hash of its original text: its
 * part is a readable stem, a dash, and six characters whose first is a digit. Parts kept as they stand never
 * end that way, so a kept part never equals a hashed one, and `feature/x` and `feature-x` get two names.
 *
 * That hashed name always works. A branch is also reached, and shown, at its readable name: its text made a
 * label (`feature/price-list` -> `feature-price-list--shop`), as people guess it, whenever no other live branch of
 * the repository makes the same label (`branchLabel`). A branch whose text is that label as it stands
 * (`feature-x`) keeps it; two others that meet there (`feature/x`, `feature_x`) both keep their hashed names.
 */
export const LABEL_MAX_LENGTH = 63;
/** What the names need of the gateway's settings. */
type GatewayAddress = Pick<GatewayConfig, "domain" | "scheme" | "port">;
const ALIAS_PART_MAX_LENGTH = 24;
const HASH_LENGTH = 6;
const PLAIN_PART = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const HASHED_ENDING = /(?:^|-)[0-9][a-z0-9]{5}$/;
const PULL_REQUEST_PART = /^pr-[0-9]+$/;
export const BUILD_ID_LABEL = /^[0-9a-f]{16}$/;
// One part (no double dash), or a branch's (or pull request's) part and an alias's part joined by `--`.
const PART = "[a-z0-9]+(?:-[a-z0-9]+)*";
const NAME_LABEL = new RegExp(`^(${PART})(?:--(${PART}))?$`);

/** Six characters: a digit, then five of [a-z0-9], from the SHA-256 of the text. */
export function shortHash(text: string): string {
  let value = crypto.createHash("sha256").update(text).digest().readUIntBE(0, 6);
  let hash = String(value % 10);
  value = Math.floor(value / 10);
  for (let index = 1; index < HASH_LENGTH; index++) {
    hash += (value % 36).toString(36);
    value = Math.floor(value / 36);
  }
  return hash;
}

/** `text` as one part of a name, at most `maxLength` characters: as it stands when it can be, else stem and hash. */
export function namePart(text: string, maxLength: number): string {
  const keptAsItStands =
    PLAIN_PART.test(text) &&
    text.length <= maxLength &&
    !HASHED_ENDING.test(text) &&
    !PULL_REQUEST_PART.test(text) &&
    // `xn--` opens an internationalized name: browsers would decode `xn--demo` and fail.
    text !== "xn";
  if (keptAsItStands) return text;
  const stem = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, maxLength - HASH_LENGTH - 1)
    .replace(/^-+|-+$/g, "");
  return stem ? `${stem}-${shortHash(text)}` : shortHash(text);
}

export function aliasPart(alias: string): string {
  return namePart(alias, ALIAS_PART_MAX_LENGTH);
}

/** The label of a branch of a repository, or of a pull request when the ref is one's head. */
export function refLabel(alias: string, ref: string): string {
  const aliasLabel = aliasPart(alias);
  const number = pullNumberOf(ref);
  if (number !== null) return `pr-${number}--${aliasLabel}`;
  return `${namePart(ref, LABEL_MAX_LENGTH - 2 - aliasLabel.length)}--${aliasLabel}`;
}

/**
 * A branch's text made one label with its alias's (`feature/price-list` -> `feature-price-list--shop`), or null for
 * a pull request's head (it has `pr-<n>`) and a text that cannot read as a branch's own part (nothing left, or it
 * would read as a pull request's or a hashed part).
 */
export function readableLabel(alias: string, ref: string): string | null {
  if (pullNumberOf(ref) !== null) return null;
  const aliasLabel = aliasPart(alias);
  const part = ref
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, LABEL_MAX_LENGTH - 2 - aliasLabel.length)
    .replace(/-+$/, "");
  if (!part || HASHED_ENDING.test(part) || PULL_REQUEST_PART.test(part) || part === "xn") return null;
  return `${part}--${aliasLabel}`;
}

/**
 * The name a branch (or pull request) of `alias` is shown at, given the refs of that repository's live builds:
 * its readable label unless another of those refs makes the same one, else its hashed label (`refLabel`).
 */
export function branchLabel(alias: string, ref: string, liveRefs: Iterable<string>): string {
  const hashed = refLabel(alias, ref);
  const readable = readableLabel(alias, ref);
  if (readable === null || readable === hashed) return hashed;
  for (const other of liveRefs) if (other !== ref && readableLabel(alias, other) === readable) return hashed;
  return readable;
}

/** A name's URL: the gateway's scheme, and its port unless it is the scheme's own. */
export function nameUrl(gateway: GatewayAddress, host: string): string {
  const defaultPort = gateway.scheme === "https" ? 443 : 80;
  return `${gateway.scheme}://${host}${gateway.port === defaultPort ? "" : `:${gateway.port}`}/`;
}

export interface PreviewName {
  kind: "build" | "branch" | "pull_request";
  /** The host name, `<label>.<domain>`. */
  name: string;
  url: string;
}

/**
 * A build's names: its own, and its first repository's branch or pull request's; for an automatic build of a
 * bundle, the bundle's branch's (`<branch>--<bundle>`), since that is what it follows. `liveRefs`: the live refs
 * its branch's readable name may clash with, those of its first repository's or of its bundle's.
 */
export function previewNamesOf(
  gateway: GatewayAddress,
  build: {
    id: string;
    repositories: { alias: string; ref: string }[];
    bundle?: string | null;
    branch?: string | null;
  },
  liveRefs: Iterable<string> = [],
): PreviewName[] {
  const named = (kind: PreviewName["kind"], label: string): PreviewName => {
    const name = `${label}.${gateway.domain}`;
    return { kind, name, url: nameUrl(gateway, name) };
  };
  const names = [named("build", build.id)];
  const first = build.repositories[0];
  if (build.bundle && build.branch)
    names.push(
      named(
        pullNumberOf(build.branch) === null ? "branch" : "pull_request",
        branchLabel(build.bundle, build.branch, liveRefs),
      ),
    );
  else if (first)
    names.push(
      named(
        pullNumberOf(first.ref) === null ? "branch" : "pull_request",
        branchLabel(first.alias, first.ref, liveRefs),
      ),
    );
  return names;
}

/** What a Host header asks the gateway for. */
export type HostRequest =
  | { kind: "build"; label: string; buildId: string }
  | { kind: "ref"; label: string; aliasLabel: string }
  | { kind: "unknown"; label: string }
  | { kind: "invalid"; reason: string };

/**
 * Reads a Host header as the gateway's clients send it: a name under the gateway's domain, with the gateway's
 * port or none, case-insensitive as DNS is. A host elsewhere (another domain, an IP literal), with a trailing
 * dot, another port or characters no host name holds is invalid, with the reason; a name under the domain that
 * is not one label of a preview's name's shape is unknown.
 */
export function readHost(gateway: GatewayAddress, host: string): HostRequest {
  if (host.length > 255) return { kind: "invalid", reason: "The Host header is longer than a host name can be." };
  const match = /^([a-zA-Z0-9.-]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match)
    return {
      kind: "invalid",
      reason: "The Host header is not a host name (letters, digits, dashes, dots) and a port.",
    };
  const [, name, port] = match;
  if (port !== undefined && Number(port) !== gateway.port)
    return { kind: "invalid", reason: `The gateway serves port ${gateway.port} only.` };
  const lower = name.toLowerCase();
  if (lower === gateway.domain) return { kind: "unknown", label: "" };
  const suffix = `.${gateway.domain}`;
  if (!lower.endsWith(suffix)) return { kind: "invalid", reason: `The host is not a name under ${gateway.domain}.` };
  const label = lower.slice(0, -suffix.length);
  const parts = label.length <= LABEL_MAX_LENGTH ? NAME_LABEL.exec(label) : null;
  if (!parts) return { kind: "unknown", label };
  if (BUILD_ID_LABEL.test(label)) return { kind: "build", label, buildId: label };
  if (parts[2] === undefined) return { kind: "unknown", label };
  return { kind: "ref", label, aliasLabel: parts[2] };
}

/**
 * Why the dashboard at `dashboardUrl` may not run with this gateway, or null: a host at or under the preview
 * domain would let a preview's code set cookies the dashboard receives.
 */
export function dashboardUnderPreviewDomain(gateway: GatewayAddress, dashboardUrl: string): string | null {
  const host = new URL(dashboardUrl).hostname.toLowerCase().replace(/\.$/, "");
  if (host !== gateway.domain && !host.endsWith(`.${gateway.domain}`)) return null;
  return (
    `gateway.domain: the dashboard (${dashboardUrl}) lies under the preview domain ${gateway.domain}, where any ` +
    "preview's code could set cookies the dashboard receives. Give the previews a domain of their own, ideally " +
    "a registrable domain apart from the dashboard's (as vercel.app is for Vercel)."
  );
}

/** Stops the start (InvalidBuildsConfigError) when one of the dashboard's addresses lies under the preview domain. */
export function refuseDashboardUnderPreviews(config: BuildsConfig, dashboardUrls: (string | undefined)[]): void {
  if (!config.gateway) return;
  for (const url of dashboardUrls) {
    const problem = url && dashboardUnderPreviewDomain(config.gateway, url);
    if (problem) throw new InvalidBuildsConfigError(`${path.basename(config.file)}: ${problem}`);
  }
}

/**
 * The start's warning when a repository keeps its previews to signed-in users while anyone may register: then
 * anyone may become a user, and its previews are not private.
 */
export function warnPrivatePreviewsWithOpenRegistration(
  config: BuildsConfig,
  registration: "open" | "closed",
): string | null {
  const aliases = config.repositories
    .filter((repository) => repository.preview_access === "users")
    .map((repository) => repository.alias);
  if (aliases.length === 0 || registration !== "open") return null;
  return (
    `WARNING: preview_access is "users" for ${aliases.join(", ")}, but REGISTRATION=open lets anyone register ` +
    "and open those previews: set REGISTRATION=closed to keep them private."
  );
}
