"use client";

import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { useSWRConfig } from "swr";
import { useCanAct } from "@/components/auth/use-can-act";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { inputClass } from "@/components/ui/field";
import { useFormat } from "@/components/ui/use-format";
import { extendedExpiry } from "@/lib/builds/extension";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import type { Build } from "@/lib/swr/types";
import { useAppConfig } from "@/lib/swr/use-app-config";
import { buildKey } from "@/lib/swr/use-build";
import { isBuildsKey } from "@/lib/swr/use-builds";
import { shortId } from "./build-format";
import { consoleHrefOf } from "./console-path";

/**
 * Rebuild (a new build of the same repositories and modules, refs resolved again; it opens when queued) and,
 * while the build runs, Extend: adds the chosen time to what the build has left (up to the configured
 * maximum from now, never less than it has), for its creator or an admin (`mayExtend`). Extend asks first,
 * saying the new expiry, computed by the same rule as the API's (lib/builds/extension.ts).
 */
export function RebuildExtendActions({ build, mayExtend }: { build: Build; mayExtend: boolean }) {
  const t = useTranslations("builds.actions");
  const format = useFormat();
  const { canAct } = useCanAct();
  const { mutate } = useSWRConfig();
  const router = useRouter();
  const { data: config } = useAppConfig(build.status === "running");
  const [busy, setBusy] = useState<"rebuild" | "extend">();
  const [error, setError] = useState<string>();
  const [asking, setAsking] = useState<number>();
  const choices = config?.ttl.choices ?? [];
  const [ttl, setTtl] = useState<number>();
  // An hour is what people add most; the smallest choice otherwise.
  const chosen = ttl ?? (choices.includes(3600) ? 3600 : choices[0]);

  async function act(action: "rebuild" | "extend") {
    setBusy(action);
    setError(undefined);
    try {
      if (action === "rebuild") {
        const { data } = await sendJson<Build>(`${buildKey(build.build_id)}/rebuild`, "POST");
        void mutate(isBuildsKey);
        router.push(consoleHrefOf(data.build_id), { scroll: false });
      } else {
        const { data } = await sendJson<Build>(`${buildKey(build.build_id)}/extend`, "POST", { ttl_seconds: chosen });
        await mutate(buildKey(build.build_id), (current?: Build) => ({ ...current, ...data }), { revalidate: true });
        void mutate(isBuildsKey);
        setAsking(undefined);
      }
    } catch (e) {
      setError(e instanceof ApiError ? e.message : t("failed", { action }));
    } finally {
      setBusy(undefined);
    }
  }

  const name = shortId(build.build_id);
  const extendable = build.status === "running" && mayExtend && chosen !== undefined && build.expires_at !== null;
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <Button
          onClick={() => void act("rebuild")}
          busy={busy === "rebuild"}
          disabled={!canAct}
          title={t("rebuildTitle")}
        >
          {t("rebuild")}
        </Button>
        {extendable && (
          <span className="inline-flex items-center gap-1">
            <label className="sr-only" htmlFor={`extend-${build.build_id}`}>
              {t("timeToAdd")}
            </label>
            <select
              id={`extend-${build.build_id}`}
              value={chosen}
              onChange={(e) => setTtl(Number(e.target.value))}
              className={`${inputClass} h-10 w-32`}
              disabled={!canAct}
            >
              {[...new Set([...choices, chosen])]
                .sort((a, b) => a - b)
                .map((seconds) => (
                  <option key={seconds} value={seconds}>
                    + {format.ttl(seconds)}
                  </option>
                ))}
            </select>
            <Button
              onClick={() => {
                setError(undefined);
                setAsking(chosen);
              }}
              disabled={!canAct}
            >
              {t("extend")}
            </Button>
          </span>
        )}
      </div>
      {extendable && config && asking !== undefined && (
        <ConfirmDialog
          open
          title={t("extendTitle", { id: name, ttl: format.ttl(asking) })}
          confirmLabel={t("extendConfirm", { ttl: format.ttl(asking) })}
          dismissLabel={t("keepExpiry")}
          tone="primary"
          busy={busy === "extend"}
          error={error}
          onConfirm={() => void act("extend")}
          onClose={() => {
            setAsking(undefined);
            setError(undefined);
          }}
        >
          <ExtensionPreview expiresAt={build.expires_at!} addSeconds={asking} maxSeconds={config.ttl.max_seconds} />
        </ConfirmDialog>
      )}
      {asking === undefined && error && <Alert tone="error">{error}</Alert>}
    </div>
  );
}

/** The expiry now and after the extension, with the cap named when it cuts the addition short. */
function ExtensionPreview({
  expiresAt,
  addSeconds,
  maxSeconds,
}: {
  expiresAt: string;
  addSeconds: number;
  maxSeconds: number;
}) {
  const t = useTranslations("builds.actions");
  const format = useFormat();
  const now = new Date();
  const current = new Date(expiresAt);
  const next = extendedExpiry(current, addSeconds, maxSeconds, now);
  const added = next.expiresAt.getTime() - current.getTime();
  return (
    <div className="flex flex-col gap-2">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
        <dt className="text-slate-600 dark:text-slate-400">{t("expiresNow")}</dt>
        <dd className="tabular-nums" data-testid="extend-current-expiry">
          {t("inDuration", {
            at: format.utcDateTime(current, false),
            duration: format.duration(current.getTime() - now.getTime()),
          })}
        </dd>
        <dt className="font-medium">{t("afterExtending")}</dt>
        <dd className="font-medium tabular-nums" data-testid="extend-new-expiry">
          {t("inDuration", {
            at: format.utcDateTime(next.expiresAt, false),
            duration: format.duration(next.expiresAt.getTime() - now.getTime()),
          })}
        </dd>
      </dl>
      {next.capped && (
        <p data-testid="extend-capped">
          {added > 0
            ? t("capped", {
                max: format.ttl(maxSeconds),
                added: format.duration(added),
                asked: format.ttl(addSeconds),
              })
            : t("cappedNothing", { max: format.ttl(maxSeconds) })}
        </p>
      )}
    </div>
  );
}
