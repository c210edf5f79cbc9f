"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { inputClass } from "@/components/ui/field";
import { useFormat } from "@/components/ui/use-format";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import type { Build } from "@/lib/swr/types";
import { buildKey } from "@/lib/swr/use-build";
import { type PreviewShare, useBuildShares } from "@/lib/swr/use-build-shares";

const EXPIRIES = [
  { key: "hour", seconds: 3600 },
  { key: "day", seconds: 86_400 },
  { key: "week", seconds: 604_800 },
] as const;

const LIVE = ["queued", "checking_out", "installing", "testing", "starting", "running", "sleeping"];

/**
 * Who opens the preview through the gateway (its first repository's preview_access), and, for the build's creator
 * or an admin, its share links: made with an expiry, listed with theirs, revoked. A new link's URL is shown once
 * (only a hash of its secret is kept), with a copy button.
 */
export function PreviewAccess({ build }: { build: Build }) {
  const t = useTranslations("builds.access");
  if (!build.preview_access) return null;
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
      </div>
      {build.viewer_can_change === true && LIVE.includes(build.status) && <ShareLinks buildId={build.build_id} />}
    </div>
  );
}

function ShareLinks({ buildId }: { buildId: string }) {
  const t = useTranslations("builds.shares");
  const format = useFormat();
  const { data, error: loadError, mutate } = useBuildShares(buildId);
  const [seconds, setSeconds] = useState<number>(86_400);
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
