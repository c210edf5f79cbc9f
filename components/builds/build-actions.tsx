"use client";

import { useState } from "react";
import { useSWRConfig } from "swr";
import { useCanAct } from "@/components/auth/use-can-act";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import { IN_PROGRESS_STATUSES, type Build } from "@/lib/swr/types";
import { buildKey } from "@/lib/swr/use-build";
import { isBuildsKey } from "@/lib/swr/use-builds";
import { RebuildExtendActions } from "./rebuild-extend-actions";

/** Open preview while running, Cancel while queued or in progress, Destroy once the build is over. */
export function BuildActions({ build }: { build: Build }) {
  const { canAct, hint } = useCanAct();
  const { mutate } = useSWRConfig();
  const [busy, setBusy] = useState<"cancel" | "destroy">();
  const [error, setError] = useState<string>();

  const cancelable = IN_PROGRESS_STATUSES.includes(build.status) && build.status !== "destroying";
  const destroyable = ["running", "failed", "canceled", "expired"].includes(build.status);

  async function act(action: "cancel" | "destroy") {
    setBusy(action);
    setError(undefined);
    try {
      const url = action === "cancel" ? `${buildKey(build.build_id)}/cancel` : buildKey(build.build_id);
      const { data } = await sendJson<Build>(url, action === "cancel" ? "POST" : "DELETE");
      // The answer is the build as it is now: show it at once, then let the list catch up.
      await mutate(buildKey(build.build_id), (current?: Build) => ({ ...current, ...data, stages: data.stages ?? current?.stages ?? [] }), {
        revalidate: true,
      });
      void mutate(isBuildsKey);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : `The build could not be ${action === "cancel" ? "canceled" : "destroyed"}.`);
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        {build.status === "running" && build.preview_url && (
          <a
            href={build.preview_url}
            target="_blank"
            rel="noopener noreferrer"
            className="inline-flex h-10 items-center gap-2 rounded-md bg-emerald-700 px-4 text-sm font-medium text-white hover:bg-emerald-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-700 dark:bg-emerald-500 dark:text-slate-950 dark:hover:bg-emerald-400"
          >
            Open preview <span aria-hidden>↗</span>
          </a>
        )}
        {cancelable && (
          <Button onClick={() => void act("cancel")} busy={busy === "cancel"} disabled={!canAct}>
            Cancel build
          </Button>
        )}
        {destroyable && (
          <Button variant="danger" onClick={() => void act("destroy")} busy={busy === "destroy"} disabled={!canAct}>
            Destroy
          </Button>
        )}
        {hint && (cancelable || destroyable) && <span className="text-xs text-slate-600 dark:text-slate-400">{hint}</span>}
      </div>
      {error && <Alert tone="error">{error}</Alert>}
      <RebuildExtendActions build={build} />
    </div>
  );
}
