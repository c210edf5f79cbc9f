"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { useSWRConfig } from "swr";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { inputClass } from "@/components/ui/field";
import { useFormat } from "@/components/ui/use-format";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import type { Build } from "@/lib/swr/types";
import { buildKey } from "@/lib/swr/use-build";
import { type PreviewShare, useBuildShares } from "@/lib/swr/use-build-shares";
import { isBuildsKey } from "@/lib/swr/use-builds";

const EXPIRIES = [
  { key: "hour", seconds: 3600 },
  { key: "day", seconds: 86_400 },
  { key: "week", seconds: 604_800 },
] as const;

const LIVE = ["queued", "checking_out", "installing", "testing", "starting", "running", "sleeping"];

/**
 * Who opens the preview through the gateway (the build's own choice, else its first repository's preview_access),
 * and, for the build's creator or an admin, the switch between public and signed-in users (its branch's next builds
 * keep the choice) and its share links: made with an expiry and what they open (the branch's newest build, or this
 * build), listed with theirs, revoked. A new link's URL is shown once (only a hash of its secret is kept), with a
 * copy button.
 */
export function PreviewAccess({ build }: { build: Build }) {
  const t = useTranslations("builds.access");
  if (!build.preview_access) return null;
  const canChange = build.viewer_can_change === true;
  return (
    <div className="flex flex-col gap-3 text-sm" data-testid="preview-access">
      <div className="flex flex-col gap-1">
        <span className="text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">
          {t("title")}
        </span>
        <p>
          <span
            className={`mr-2 inline-block rounded px-1.5 py-0.5 text-xs font-semibold ${
              build.preview_access === "users"
                ? "bg-amber-100 text-amber-900 dark:bg-amber-900/40 dark:text-amber-200"
                : "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/40 dark:text-emerald-200"
            }`}
          >
            {t(build.preview_access)}
          </span>
          <span className="text-slate-600 dark:text-slate-400">
            {t(build.preview_access === "users" ? "usersHint" : "publicHint")}
          </span>
        </p>
        {canChange && <AccessSwitch build={build} />}
      </div>
      {canChange && LIVE.includes(build.status) && <ShareLinks build={build} />}
    </div>
  );
}

/** The owner's (or an admin's) switch: PATCH /builds/{id} with the other access. */
function AccessSwitch({ build }: { build: Build }) {
  const t = useTranslations("builds.access");
  const { mutate } = useSWRConfig();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const other = build.preview_access === "users" ? "public" : "users";

  async function switchAccess() {
    setBusy(true);
    setError(undefined);
    try {
      const { data } = await sendJson<Build>(buildKey(build.build_id), "PATCH", { preview_access: other });
      await mutate(buildKey(build.build_id), (current?: Build) => ({ ...current, ...data }), { revalidate: true });
      void mutate(isBuildsKey);
    } catch (e) {
      setError(t("failed", { error: e instanceof ApiError ? e.message : String(e) }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-col gap-1">
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" busy={busy} onClick={() => void switchAccess()} data-testid="preview-access-switch">
          {t(other === "users" ? "makeUsers" : "makePublic")}
        </Button>
        <span className="text-xs text-slate-600 dark:text-slate-400">{t("branchKeeps")}</span>
      </div>
      {error && <Alert tone="error">{error}</Alert>}
    </div>
  );
}

function ShareLinks({ build }: { build: Build }) {
  const buildId = build.build_id;
  const t = useTranslations("builds.shares");
  const format = useFormat();
  const { data, error: loadError, mutate } = useBuildShares(buildId);
  const [seconds, setSeconds] = useState<number>(86_400);
  const followsBranch = build.preview_names?.some((name) => name.kind !== "build") ?? false;
  const [scope, setScope] = useState<"branch" | "build">(followsBranch ? "branch" : "build");
  const [created, setCreated] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();

  async function run(key: string, work: () => Promise<void>) {
    setBusy(key);
    setError(undefined);
    try {
      await work();
      await mutate();
    } catch (e) {
      setError(t("failed", { error: e instanceof ApiError ? e.message : String(e) }));
    } finally {
      setBusy(undefined);
    }
  }

  const create = () =>
    run("create", async () => {
      const { data: share } = await sendJson<PreviewShare & { url: string }>(`${buildKey(buildId)}/share`, "POST", {
        expires_in_seconds: seconds,
        scope,
      });
      setCreated(share.url);
    });
  const revoke = (share: PreviewShare) =>
    run(share.id, async () => {
      await sendJson(`${buildKey(buildId)}/shares/${encodeURIComponent(share.id)}`, "DELETE");
    });

  return (
    <section className="flex flex-col gap-2" aria-labelledby={`shares-${buildId}`} data-testid="share-links">
      <h3 id={`shares-${buildId}`} className="text-sm font-semibold">
        {t("title")}
      </h3>
      <p className="text-slate-600 dark:text-slate-400">{t("intro")}</p>
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
          {t("expiry")}
          <select
            className={`${inputClass} h-8 w-32`}
            value={seconds}
            onChange={(event) => setSeconds(Number(event.target.value))}
          >
            {EXPIRIES.map((expiry) => (
              <option key={expiry.key} value={expiry.seconds}>
                {t(expiry.key)}
              </option>
            ))}
          </select>
        </label>
        {followsBranch && (
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
            {t("scope")}
            <select
              className={`${inputClass} h-8 w-56`}
              value={scope}
              onChange={(event) => setScope(event.target.value === "build" ? "build" : "branch")}
            >
              <option value="branch">{t("scopeBranch")}</option>
              <option value="build">{t("scopeBuild")}</option>
            </select>
          </label>
        )}
        <Button size="sm" variant="primary" busy={busy === "create"} onClick={() => void create()}>
          {t("create")}
        </Button>
      </div>
      {created && (
        <div
          className="flex flex-col gap-1 rounded-md border border-indigo-200 bg-indigo-50 p-2 dark:border-indigo-800 dark:bg-indigo-950/40"
          data-testid="new-share-link"
        >
          <span className="text-xs text-slate-700 dark:text-slate-300">{t("created")}</span>
          <div className="flex min-w-0 flex-wrap items-center gap-2">
            <code className="min-w-0 font-mono text-xs break-all">{created}</code>
            <CopyButton text={created} label={t("copy")} />
          </div>
        </div>
      )}
      {error && <Alert tone="error">{error}</Alert>}
      {loadError ? (
        <Alert tone="error">{t("loadFailed")}</Alert>
      ) : data && data.shares.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-400">{t("none")}</p>
      ) : (
        <ul className="flex flex-col gap-1">
          {data?.shares.map((share) => {
            const when = format.utcDateTime(share.expires_at);
            return (
              <li key={share.id} className="flex flex-wrap items-center gap-x-2 gap-y-1">
                <span>{t(share.scope === "branch" ? "opensBranch" : "opensBuild")}</span>
                <span>{t("expires", { when })}</span>
                <span className="text-slate-600 dark:text-slate-400">{t("by", { name: share.created_by })}</span>
                <Button
                  size="sm"
                  busy={busy === share.id}
                  aria-label={t("revokeLabel", { when })}
                  onClick={() => void revoke(share)}
                >
                  {t("revoke")}
                </Button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
