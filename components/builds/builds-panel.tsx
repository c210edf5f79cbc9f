"use client";

import { useTranslations } from "next-intl";
import { useDeferredValue, useState } from "react";
import { useCanAct } from "@/components/auth/use-can-act";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { Panel } from "@/components/ui/panel";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { BUILD_STATUSES, type BuildStatus, type BuildSummary } from "@/lib/swr/types";
import { useBuilds } from "@/lib/swr/use-builds";
import { groupByRef } from "./build-groups";
import { useStatusLabel } from "./build-status-badge";
import { BuildsTable } from "./builds-table";
import { FollowedBranches } from "./followed-branches";
import { NewBuildDialog } from "./new-build-dialog";

/** Whether a build matches a free-text search: its id, a repository, ref, commit or module. */
function matches(build: BuildSummary, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (!needle) return true;
  const haystack = [
    build.build_id,
    ...build.modules,
    ...build.repositories.flatMap((r) => [r.repository, r.ref, r.commit_sha ?? ""]),
    build.created_by ?? "",
  ];
  return haystack.some((text) => text.toLowerCase().includes(needle));
}

/** The builds table with its status filter (asked of the API), search (over the loaded page) and New build. */
export function BuildsPanel() {
  const t = useTranslations("builds");
  const statusLabel = useStatusLabel();
  const [status, setStatus] = useState<BuildStatus | "">("");
  const [search, setSearch] = useState("");
  const [grouped, setGrouped] = useState(false);
  const deferredSearch = useDeferredValue(search);
  const [creating, setCreating] = useState(false);
  const { canAct, hint } = useCanAct();
  const { data, error, mutate, isLoading } = useBuilds(status ? { status } : {});

  const shown = data?.builds.filter((build) => matches(build, deferredSearch));

  let body: React.ReactNode;
  if (error) {
    body = <PanelError error={error} onRetry={() => void mutate()} className="h-48" />;
  } else if (!data || (isLoading && !shown)) {
    body = <PanelLoading label={t("loading")} className="h-48" />;
  } else if (data.builds.length === 0) {
    body = (
      <PanelEmpty className="h-48">
        <p>{status ? t("noneWithStatus", { status: statusLabel(status) }) : t("none")}</p>
      </PanelEmpty>
    );
  } else if (shown!.length === 0) {
    body = <PanelEmpty className="h-48">{t("noMatch", { query: deferredSearch })}</PanelEmpty>;
  } else {
    // No Suspense boundary: the console is rendered per request, and a boundary would let React send the table
    // apart from the page, shown only once an inline script runs (never, without scripts).
    body = grouped ? (
      <div className="flex min-h-48 flex-col gap-5" data-testid="build-groups">
        {groupByRef(shown!).map((group) => (
          <section key={group.key} aria-label={`${group.alias} ${group.ref}`}>
            <h3 className="mb-2 flex flex-wrap items-baseline gap-x-2 text-sm font-semibold">
              <span className="font-mono">{group.alias}</span>
              <span className="font-mono break-all text-indigo-700 dark:text-indigo-300">
                {group.pullRequest === null ? group.ref : t("groups.pullRequest", { number: group.pullRequest })}
              </span>
              <span className="font-normal text-slate-600 dark:text-slate-400">
                {t("groups.count", { count: group.builds.length })}
              </span>
            </h3>
            <BuildsTable builds={group.builds} grouped />
          </section>
        ))}
      </div>
    ) : (
      <BuildsTable builds={shown!} />
    );
  }

  return (
    <Panel
      title={t("title")}
      actions={
        <>
          {hint && (
            <span className="text-xs text-slate-600 dark:text-slate-400" id="new-build-hint">
              {hint}
            </span>
          )}
          <Button
            variant="primary"
            disabled={!canAct}
            onClick={() => setCreating(true)}
            aria-describedby={hint ? "new-build-hint" : undefined}
          >
            {t("newBuild")}
          </Button>
        </>
      }
    >
      <div className="mb-3 flex flex-wrap gap-3">
        <label className="flex items-center gap-2 text-sm font-medium text-slate-700 dark:text-slate-300">
          {t("status")}
          <select
            value={status}
            onChange={(e) => setStatus(e.target.value as BuildStatus | "")}
            className={`${inputClass} h-9 w-40`}
          >
            <option value="">{t("allStatuses")}</option>
            {BUILD_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label className="flex min-w-0 flex-1 basis-56 items-center gap-2 text-sm font-medium text-slate-700 sm:max-w-sm dark:text-slate-300">
          {t("search")}
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder={t("searchPlaceholder")}
            className={`${inputClass} h-9`}
          />
        </label>
        <label className="flex min-h-8 items-center gap-2 text-sm font-medium text-slate-700 dark:text-slate-300">
          <input
            type="checkbox"
            checked={grouped}
            onChange={(e) => setGrouped(e.target.checked)}
            className="size-6 accent-indigo-600"
          />
          {t("groups.toggle")}
        </label>
      </div>
      <FollowedBranches />
      {body}
      <NewBuildDialog open={creating} onClose={() => setCreating(false)} />
    </Panel>
  );
}
