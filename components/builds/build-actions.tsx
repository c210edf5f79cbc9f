"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { useSWRConfig } from "swr";
import { useCanAct } from "@/components/auth/use-can-act";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import { type Build, IN_PROGRESS_STATUSES } from "@/lib/swr/types";
import { buildKey } from "@/lib/swr/use-build";
import { isBuildsKey } from "@/lib/swr/use-builds";
import { shortId } from "./build-format";
import { RebuildExtendActions } from "./rebuild-extend-actions";

type Action = "cancel" | "destroy" | "sleep" | "wake";

/**
 * Open preview while running, Cancel while queued or in progress, Destroy once the build is over. Cancel and
 * Destroy cannot be undone, so each asks first, naming the build.
 */
export function BuildActions({ build }: { build: Build }) {
  const t = useTranslations("builds.actions");
  const tBuilds = useTranslations("builds");
  const { canAct, hint } = useCanAct();
  const { mutate } = useSWRConfig();
  const [asking, setAsking] = useState<Action>();
  const [busy, setBusy] = useState<Action>();
  const [error, setError] = useState<string>();
  // Set when a Destroy was done without the build's host (lost): the runtime it left there is removed later.
  const [notice, setNotice] = useState<string>();

  // Signed in as someone who may not change this build (not its creator, not an admin): offer only what works.
  const othersBuild = canAct && build.viewer_can_change === false;
  const cancelable = !othersBuild && IN_PROGRESS_STATUSES.includes(build.status) && build.status !== "destroying";
  const destroyable = !othersBuild && ["running", "sleeping", "failed", "canceled", "expired"].includes(build.status);
  const changeable =
    IN_PROGRESS_STATUSES.includes(build.status) ||
    ["running", "sleeping", "failed", "canceled", "expired"].includes(build.status);
  // Sleep stops a preview and keeps its data; Wake starts it again (and waits for its healthcheck).
  const sleepable = !othersBuild && build.status === "running" && build.preview_url !== null;
  const wakeable = !othersBuild && build.status === "sleeping";
  const name = shortId(build.build_id);

  async function act(action: Action) {
    setBusy(action);
    setError(undefined);
    try {
      const url = action === "destroy" ? buildKey(build.build_id) : `${buildKey(build.build_id)}/${action}`;
      const { status, data } = await sendJson<Build>(url, action === "destroy" ? "DELETE" : "POST");
      // 202: the build's host is lost; the build is destroyed here, what it left on that host goes when it is back.
      setNotice(action === "destroy" && status === 202 ? t("hostLost", { host: build.host ?? "" }) : undefined);
      // The answer is the build as it is now: show it at once, then let the list catch up.
      await mutate(
        buildKey(build.build_id),
        (current?: Build) => ({ ...current, ...data, stages: data.stages ?? current?.stages ?? [] }),
        {
          revalidate: true,
        },
      );
      void mutate(isBuildsKey);
      setAsking(undefined);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : t("failed", { action }));
    } finally {
      setBusy(undefined);
    }
  }

  const close = () => {
    setAsking(undefined);
    setError(undefined);
  };

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        {build.status === "running" && build.preview_url && (
          <a
            href={build.preview_url}
            target="_blank"
            rel="noopener noreferrer"
            className="inline-flex h-10 items-center gap-2 rounded-md bg-emerald-700 px-4 text-sm font-medium whitespace-nowrap text-white hover:bg-emerald-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 dark:bg-emerald-500 dark:text-slate-950 dark:hover:bg-emerald-400"
          >
            {tBuilds("openPreview")} <span aria-hidden>↗</span>
          </a>
        )}
        {wakeable && (
          <Button onClick={() => void act("wake")} disabled={!canAct || busy === "wake"}>
            {busy === "wake" ? t("waking") : t("wake")}
          </Button>
        )}
        {sleepable && (
          <Button onClick={() => void act("sleep")} disabled={!canAct || busy === "sleep"}>
            {busy === "sleep" ? t("sleeping") : t("sleep")}
          </Button>
        )}
        {cancelable && (
          <Button onClick={() => setAsking("cancel")} disabled={!canAct}>
            {t("cancel")}
          </Button>
        )}
        {destroyable && (
          // Quieter than Open preview: what a person came for stands out, what cannot be undone does not invite.
          <Button variant="danger-subtle" onClick={() => setAsking("destroy")} disabled={!canAct}>
            {t("destroy")}
          </Button>
        )}
        {hint && (cancelable || destroyable) && (
          <span className="text-xs text-slate-600 dark:text-slate-400">{hint}</span>
        )}
        {othersBuild && changeable && (
          <span className="text-xs text-slate-600 dark:text-slate-400">
            {build.trigger === "webhook" || build.trigger === "poll"
              ? t("onlyAdminAuto")
              : t("onlyCreator", { who: build.created_by })}
          </span>
        )}
      </div>
      <ConfirmDialog
        open={asking === "cancel"}
        title={t("cancelTitle", { id: name })}
        confirmLabel={`${t("cancel")} ${name}`}
        dismissLabel={t("keepBuilding")}
        busy={busy === "cancel"}
        error={asking === "cancel" ? error : undefined}
        onConfirm={() => void act("cancel")}
        onClose={close}
      >
        <p>{t.rich("cancelBody", { id: name, code: (chunks) => <code className="font-mono">{chunks}</code> })}</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === "destroy"}
        title={t("destroyTitle", { id: name })}
        confirmLabel={t("destroyConfirm", { id: name })}
        busy={busy === "destroy"}
        error={asking === "destroy" ? error : undefined}
        onConfirm={() => void act("destroy")}
        onClose={close}
      >
        <p>
          {t.rich(build.status === "running" ? "destroyBodyRunning" : "destroyBody", {
            id: name,
            code: (chunks) => <code className="font-mono">{chunks}</code>,
          })}
        </p>
      </ConfirmDialog>
      {!asking && error && <Alert tone="error">{error}</Alert>}
      {!asking && notice && <Alert tone="info">{notice}</Alert>}
      <RebuildExtendActions build={build} mayExtend={!othersBuild} />
    </div>
  );
}
